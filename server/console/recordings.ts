import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { finished } from 'node:stream/promises';
import { dirname, join } from 'node:path';
import type { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { constants, createGzip, gunzip, gzip, type Gzip } from 'node:zlib';
import type { Recording } from '../../src/api/recordings';
import { realClock, type Clock } from '../clock';
import type { Actor } from '../core/actor';
import { audienceReaches } from '../core/dto';
import { forbidden, notFound } from '../core/errors';
import { newId } from '../core/ids';
import type { Repositories } from '../store/repositories';
import type { ConsoleRecordingTable } from '../store/schema';

// Console recordings: with recording on for a gamespace's workspace (its `recordConsoles`, or
// the server's RECORD_CONSOLES when the workspace has not chosen), the console route hands every
// byte it sends a viewer to a recorder, greeting included. The recorder frames each send as a
// record, `u32 BE ms since the session began | u8 channel | u32 BE length | bytes` (channel 0, the
// screen: src/api/recordings.ts), and writes the records through gzip to
// `{recordings}/{gamespaceId}/{recordingId}.rec.gz`, flushing at most once a second, so that a
// file holds every record up to its last second even if the server stops. The row (migration
// 009) is written when the console has opened, and finished when the viewer goes. A recording
// left open by a server that stopped is closed at the next start: its file is cut after the last
// whole record and written again as a complete gzip.
//
// Who may list and replay a gamespace's recordings: administrators, and observers whose scope its
// workspace's audience reaches (the gamespace browser's rule). The players themselves may not:
// the product offers replay to observers and administrators only.

export const RECORD_HEADER_BYTES = 9;
/** A session's records wait in memory at most this long before they go through gzip. */
export const RECORDING_FLUSH_MS = 1_000;
/** ...or until this many bytes wait. */
const FLUSH_BYTES = 256 * 1024;
const MAX_OFFSET = 0xffff_ffff;

const gunzipAsync = promisify(gunzip);
const gzipAsync = promisify(gzip);

export interface RecordingSettings {
  defaultOn: boolean;
  maxBytes: number;
  retentionMs: number;
  dir: string;
}

/** Who is watching which machine: what a recording's row says of its session. */
export interface RecordedSession {
  gamespaceId: string;
  machineId: string;
  machineName: string;
  userId: string;
  userName: string;
}

/** One console session's recorder (server/console/routes.ts). */
export interface ConsoleRecorder {
  /** Bytes as they are sent to the viewer. */
  record(bytes: Uint8Array): void;
  /** The machine's console opened: the recording is kept (a row and a file) from here on. */
  keep(): void;
  /** The viewer went: the file and row are finished (or, never kept, nothing is left). */
  end(): Promise<void>;
}

/** One record's header and bytes. */
export function frameRecord(offsetMs: number, channel: number, bytes: Uint8Array): Buffer {
  const record = Buffer.allocUnsafe(RECORD_HEADER_BYTES + bytes.length);
  record.writeUInt32BE(Math.min(MAX_OFFSET, Math.max(0, Math.floor(offsetMs))), 0);
  record.writeUInt8(channel, 4);
  record.writeUInt32BE(bytes.length, 5);
  record.set(bytes, RECORD_HEADER_BYTES);
  return record;
}

export interface ParsedRecord {
  offsetMs: number;
  channel: number;
  bytes: Buffer;
}

/** The whole records of a stream, and how many bytes they take (a cut last record is left). */
export function parseRecords(stream: Buffer): { records: ParsedRecord[]; length: number } {
  const records: ParsedRecord[] = [];
  let at = 0;
  while (at + RECORD_HEADER_BYTES <= stream.length) {
    const size = stream.readUInt32BE(at + 5);
    const end = at + RECORD_HEADER_BYTES + size;
    if (end > stream.length) break;
    records.push({
      offsetMs: stream.readUInt32BE(at),
      channel: stream.readUInt8(at + 4),
      bytes: stream.subarray(at + RECORD_HEADER_BYTES, end),
    });
    at = end;
  }
  return { records, length: at };
}

/** A gzip file read as far as it was written (a file whose writer stopped has no trailer). */
async function readPartialGzip(path: string): Promise<Buffer> {
  const compressed = await readFile(path);
  if (compressed.length === 0) return Buffer.alloc(0);
  return gunzipAsync(compressed, { finishFlush: constants.Z_SYNC_FLUSH });
}

const fileNameOf = (row: ConsoleRecordingTable): string => {
  const machine = row.machineName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '');
  const when = new Date(row.startedAt)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  return `${machine || 'console'}-${when}.rec`;
};

export interface RecordingsDeps {
  repositories: Pick<Repositories, 'recordings' | 'gamespaces' | 'workspaces'>;
  settings: RecordingSettings;
  clock?: Clock;
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** What GET recording/{id}/stream sends: the gzip of the record stream, as a stream or whole. */
export interface RecordingStream {
  row: ConsoleRecordingTable;
  /** A download's file name. */
  fileName: string;
  /** The gzip bytes. */
  gzip(): Readable | Promise<Buffer>;
}

export function createConsoleRecordings(deps: RecordingsDeps) {
  const { settings, log } = deps;
  const repos = deps.repositories;
  const clock = deps.clock ?? realClock;
  /** Recordings this server is writing, by id: not closed by a recovery, finished on close. */
  const active = new Set<string>();
  /** Every recorder's end, kept or not, until it settles: close() waits for them. */
  const ending = new Set<Promise<void>>();

  const pathOf = (file: string) => join(settings.dir, file);

  /** The gamespace of an isolation tag, when its workspace records consoles. */
  async function recordedGamespace(tag: string): Promise<string | null> {
    const game = await repos.gamespaces.find(tag);
    if (!game?.workspaceId) return null;
    const ws = await repos.workspaces.find(game.workspaceId);
    if (!ws) return null;
    const choice = ws.recordConsoles;
    const on = choice === null || choice === undefined ? settings.defaultOn : choice === 1;
    return on ? game.id : null;
  }

  /** Administrators, and observers of the workspace's audience (the gamespace browser's rule). */
  async function mayWatch(actor: Actor, gamespaceId: string): Promise<boolean> {
    if (actor.isAdmin) return true;
    if (!actor.isObserver || actor.isAgent || actor.grant) return false;
    const game = await repos.gamespaces.find(gamespaceId);
    if (!game?.workspaceId) return false;
    const ws = await repos.workspaces.find(game.workspaceId);
    return !!ws && audienceReaches(ws.audience, actor.scope);
  }

  function dto(row: ConsoleRecordingTable): Recording {
    const open = row.endedAt === 0;
    return {
      id: row.id,
      gamespaceId: row.gamespaceId,
      machineId: row.machineId,
      machineName: row.machineName,
      userId: row.userId,
      userName: row.userName,
      startedAt: new Date(row.startedAt).toISOString(),
      endedAt: open ? null : new Date(row.endedAt).toISOString(),
      durationMs: open ? Math.max(0, clock.now() - row.startedAt) : row.durationMs,
      bytes: row.bytes,
      truncated: row.truncated === 1,
    };
  }

  function recorder(session: RecordedSession): ConsoleRecorder {
    const began = performance.now();
    const startedAt = clock.now();
    const id = newId();
    const file = `${session.gamespaceId}/${id}.rec.gz`;
    let waiting: Buffer[] = [];
    let waitingBytes = 0;
    let total = 0;
    let truncated = false;
    let kept = false;
    let ended: Promise<void> | null = null;
    let zip: Gzip | null = null;
    let out: WriteStream | null = null;
    let inserted: Promise<void> = Promise.resolve();
    let timer: NodeJS.Timeout | null = null;
    let failed = false;

    const flush = () => {
      if (timer) clearTimeout(timer);
      timer = null;
      if (!zip || waitingBytes === 0 || failed) return;
      zip.write(waiting.length === 1 ? waiting[0]! : Buffer.concat(waiting, waitingBytes));
      // Readable up to here even if the server stops before the end.
      zip.flush(constants.Z_SYNC_FLUSH);
      waiting = [];
      waitingBytes = 0;
    };

    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      log.warn({ err, recordingId: id }, 'console recording: writing the file failed');
    };

    return {
      record(bytes) {
        if (ended || truncated || bytes.length === 0) return;
        const size = RECORD_HEADER_BYTES + bytes.length;
        if (total + size > settings.maxBytes) {
          truncated = true;
          flush();
          return;
        }
        waiting.push(frameRecord(performance.now() - began, 0, bytes));
        waitingBytes += size;
        total += size;
        if (!kept) return;
        if (waitingBytes >= FLUSH_BYTES) flush();
        else timer ??= setTimeout(flush, RECORDING_FLUSH_MS).unref();
      },
      keep() {
        if (kept || ended) return;
        kept = true;
        const path = pathOf(file);
        zip = createGzip({ level: 6 });
        zip.on('error', fail);
        // The folder first; the stream opens its file once the folder is there.
        const opened = mkdir(dirname(path), { recursive: true }).then(() => {
          out = createWriteStream(path);
          out.on('error', fail);
          zip!.pipe(out);
        });
        inserted = opened.then(() =>
          repos.recordings.insert({
            id,
            ...session,
            startedAt,
            endedAt: 0,
            durationMs: 0,
            bytes: 0,
            truncated: 0,
            file,
          }),
        );
        inserted.catch((err: unknown) => fail(err));
        active.add(id);
        flush();
      },
      end() {
        if (ended) return ended;
        ended = (async () => {
          if (timer) clearTimeout(timer);
          timer = null;
          if (!kept || !zip) return;
          flush();
          zip.end();
          try {
            await inserted;
            if (out) await finished(out as WriteStream);
          } catch (err) {
            fail(err);
          }
          if (failed) return;
          await repos.recordings.finish(id, {
            endedAt: Math.max(startedAt, clock.now()),
            durationMs: Math.round(performance.now() - began),
            bytes: total,
            truncated: truncated ? 1 : 0,
          });
        })()
          .catch((err: unknown) =>
            log.warn({ err, recordingId: id }, 'console recording: finishing it failed'),
          )
          .finally(() => {
            active.delete(id);
            ending.delete(ended!);
          });
        ending.add(ended);
        return ended;
      },
    };
  }

  /** Cuts an open recording's file after its last whole record and finishes its row. */
  async function close(row: ConsoleRecordingTable): Promise<void> {
    const path = pathOf(row.file);
    let stream: Buffer = Buffer.alloc(0);
    try {
      stream = await readPartialGzip(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        log.warn({ err, recordingId: row.id }, 'console recording: reading a stopped one failed');
      }
    }
    const { records, length } = parseRecords(stream);
    const whole = stream.subarray(0, length);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(`${path}.tmp`, await gzipAsync(whole));
    await rename(`${path}.tmp`, path);
    const last = records.at(-1)?.offsetMs ?? 0;
    await repos.recordings.finish(row.id, {
      endedAt: row.startedAt + last,
      durationMs: last,
      bytes: length,
      truncated: row.truncated,
    });
  }

  async function removeRows(rows: readonly ConsoleRecordingTable[]): Promise<void> {
    await repos.recordings.remove(rows.map((r) => r.id));
    for (const row of rows) {
      await rm(pathOf(row.file), { force: true });
      await rmdir(dirname(pathOf(row.file))).catch(() => undefined);
    }
  }

  return {
    recordedGamespace,
    mayWatch,
    recorder,

    /** Whether the console of a machine with this isolation tag would be recorded now. */
    isRecorded: async (tag: string): Promise<boolean> => (await recordedGamespace(tag)) !== null,

    /**
     * At start: recordings left open by a server that stopped (their files in this server's
     * folder) are closed as far as they were written; files without a row are removed.
     */
    async recover(): Promise<void> {
      for (const row of await repos.recordings.open()) {
        if (active.has(row.id)) continue;
        const exists = await stat(pathOf(row.file)).then(
          () => true,
          () => false,
        );
        if (!exists) continue;
        await close(row).catch((err: unknown) =>
          log.warn({ err, recordingId: row.id }, 'console recording: closing a stopped one failed'),
        );
      }
      const known = await repos.recordings.files();
      const folders = await readdir(settings.dir).catch(() => [] as string[]);
      for (const folder of folders) {
        const files = await readdir(join(settings.dir, folder)).catch(() => [] as string[]);
        for (const name of files) {
          const file = `${folder}/${name}`;
          if (!known.has(file) && !known.has(file.replace(/\.tmp$/, ''))) {
            await rm(join(settings.dir, file), { force: true });
          }
        }
        await rmdir(join(settings.dir, folder)).catch(() => undefined);
      }
    },

    /** GET gamespace/{id}/recordings. */
    async list(actor: Actor, gamespaceId: string): Promise<Recording[]> {
      if (!(await repos.gamespaces.find(gamespaceId))) throw notFound();
      if (!(await mayWatch(actor, gamespaceId))) throw forbidden();
      return (await repos.recordings.ofGamespace(gamespaceId)).map(dto);
    },

    /** GET recording/{id}/stream: the gzip of its record stream; an open one as far as written. */
    async stream(actor: Actor, id: string): Promise<RecordingStream> {
      const row = await repos.recordings.find(id);
      if (!row) throw notFound();
      if (!(await mayWatch(actor, row.gamespaceId))) throw forbidden();
      const path = pathOf(row.file);
      const fileName = fileNameOf(row);
      if (row.endedAt !== 0) {
        await stat(path).catch(() => {
          throw notFound();
        });
        return { row, fileName, gzip: () => createReadStream(path) };
      }
      return {
        row,
        fileName,
        async gzip() {
          const stream = await readPartialGzip(path).catch(() => Buffer.alloc(0));
          return gzipAsync(stream.subarray(0, parseRecords(stream).length));
        },
      };
    },

    /** The janitor: recordings begun longer ago than the retention period go, file and row. */
    async expire(): Promise<number> {
      const rows = (
        await repos.recordings.startedBefore(clock.now() - settings.retentionMs)
      ).filter((r) => !active.has(r.id));
      await removeRows(rows);
      return rows.length;
    },

    /** A deleted gamespace's recordings go with it. */
    async removeGamespace(gamespaceId: string): Promise<void> {
      await removeRows(await repos.recordings.ofGamespace(gamespaceId));
    },

    /** Waits for every session's recording to be finished (the server's close, tests). */
    async settled(): Promise<void> {
      while (ending.size > 0) await Promise.allSettled([...ending]);
    },

    /** Recordings being written by this server. */
    activeCount: (): number => active.size,
  };
}

export type ConsoleRecordings = ReturnType<typeof createConsoleRecordings>;
