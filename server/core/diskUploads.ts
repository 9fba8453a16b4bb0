import { mkdir, open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Clock } from '../clock';
import { FORMAT_OF_EXTENSION, refused } from './diskImageCheck';
import { notFound } from './errors';
import { newToken } from './ids';
import { STAGING_PREFIX } from './staging';

// The uploads of disk images (diskImages.ts), in chunks: each upload has a staging folder
// `{images}/.upload-disk-{token}/` holding what was declared (`meta.json`) and what arrived
// (`data`). A chunk is written at the offset the upload has reached and nowhere else, so an
// upload cut off resumes from the bytes received; what arrived before a failure stays. One
// chunk (or the completion) at a time per upload, in this process.

/** The most a chunk may carry; the SPA sends CHUNK_BYTES (src/api/diskImages.ts). */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;
/** An upload left without a chunk for this long is removed (it may resume until then). */
export const DISK_UPLOAD_TTL_MS = 24 * 3_600_000;

const UPLOAD_PREFIX = `${STAGING_PREFIX}disk-`;
/** A plain file name: a letter or digit first, then letters, digits, '.', '-' and '_'. */
export const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface DiskUpload {
  id: string;
  /** The name of the image it becomes (always .qcow2). */
  name: string;
  size: number;
  received: number;
}

export interface UploadMeta {
  /** The image it becomes. */
  name: string;
  size: number;
  /** The file's own name: its extension says its format. */
  source: string;
}

/** An upload held for its completion: what it is and where its files are. */
export interface HeldUpload {
  meta: UploadMeta;
  folder: string;
  data: string;
  received: number;
}

export const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;

/** The image an upload of this name becomes, or a refusal naming what is wrong with it. */
export function importedName(name: unknown): { name: string; source: string } {
  if (typeof name !== 'string' || !NAME_RULE.test(name) || name.includes('..')) {
    throw refused(
      `${JSON.stringify(String(name).slice(0, 120))} is not a safe file name: use letters, ` +
        "digits, '.', '-' and '_', starting with a letter or digit.",
    );
  }
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
  if (!Object.hasOwn(FORMAT_OF_EXTENSION, ext)) {
    throw refused(`${name} is not a disk image this server imports: qcow2, raw, vmdk, vdi or ova.`);
  }
  return { name: `${name.slice(0, dot)}.qcow2`, source: name };
}

export interface DiskUploadsOptions {
  imagesDir: string;
  /** The largest upload (UPLOAD_MAX_BYTES). */
  maxBytes: number;
  clock: Clock;
  /** Refuses when `needed` bytes would leave too little free space. */
  assertRoom(needed: number, what: string): Promise<void>;
}

export function createDiskUploads(options: DiskUploadsOptions) {
  const { imagesDir, maxBytes, clock, assertRoom } = options;
  /** Uploads with a chunk or the completion under way in this process. */
  const busy = new Set<string>();
  const folderOf = (id: string) => join(imagesDir, `${STAGING_PREFIX}${id}`);
  const dataOf = (id: string) => join(folderOf(id), 'data');

  async function metaOf(id: unknown): Promise<{ id: string; meta: UploadMeta }> {
    if (typeof id !== 'string' || !/^disk-[0-9a-f]{32}$/.test(id)) throw notFound();
    try {
      const meta = JSON.parse(
        await readFile(join(folderOf(id), 'meta.json'), 'utf8'),
      ) as UploadMeta;
      return { id, meta };
    } catch {
      throw notFound();
    }
  }

  const receivedOf = async (id: string) => (await stat(dataOf(id)).catch(() => ({ size: 0 }))).size;

  async function exclusively<T>(id: string, work: () => Promise<T>): Promise<T> {
    if (busy.has(id)) {
      throw refused('Another chunk of this upload is being written: wait for it to finish.');
    }
    busy.add(id);
    try {
      return await work();
    } finally {
      busy.delete(id);
    }
  }

  const described = async (id: string, meta: UploadMeta): Promise<DiskUpload> => ({
    id,
    name: meta.name,
    size: meta.size,
    received: await receivedOf(id),
  });

  /** Removes uploads without a chunk for `staleMs`; returns how many. */
  async function removeStale(staleMs = DISK_UPLOAD_TTL_MS): Promise<number> {
    let removed = 0;
    const entries = await readdir(imagesDir).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!entry.startsWith(UPLOAD_PREFIX)) continue;
      if (busy.has(entry.slice(STAGING_PREFIX.length))) continue;
      const changed = await stat(join(imagesDir, entry, 'data'))
        .catch(() => stat(join(imagesDir, entry)))
        .catch(() => null);
      if (changed && clock.now() - changed.mtimeMs < staleMs) continue;
      await rm(join(imagesDir, entry), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  return {
    /** A new upload of `size` bytes that becomes the image `name`. */
    async start(request: { name?: unknown; size?: unknown }): Promise<DiskUpload> {
      const { name, source } = importedName(request.name);
      const size = request.size;
      if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
        throw refused('The upload must declare its size in bytes.');
      }
      if (size > maxBytes)
        throw refused(`The file is larger than the limit of ${bytes(maxBytes)}.`);
      await mkdir(imagesDir, { recursive: true });
      // Uploads given up long ago make room first.
      await removeStale();
      if (await stat(join(imagesDir, name)).catch(() => null)) {
        throw refused(`There is already an image named ${name}: delete it or rename the file.`);
      }
      // The upload and its converted copy are on the disk together for a while.
      await assertRoom(size * 2, 'this image and its converted copy');
      const id = `disk-${newToken()}`;
      await mkdir(folderOf(id));
      const meta: UploadMeta = { name, size, source };
      await writeFile(join(folderOf(id), 'meta.json'), JSON.stringify(meta));
      await writeFile(dataOf(id), '');
      return { id, name, size, received: 0 };
    },

    /** How much has arrived: where the next chunk starts. */
    async status(id: unknown): Promise<DiskUpload> {
      const found = await metaOf(id);
      return described(found.id, found.meta);
    },

    /** The bytes from `offset` on, which must be the bytes received so far. */
    async writeChunk(id: unknown, offset: number, body: Readable): Promise<DiskUpload> {
      const found = await metaOf(id);
      return exclusively(found.id, async () => {
        const { meta } = found;
        const received = await receivedOf(found.id);
        if (offset !== received) {
          throw refused(
            `The chunk starts at byte ${offset}, but the upload has ${received} bytes: ` +
              `send the next chunk from offset ${received}.`,
          );
        }
        const limit = Math.min(meta.size - offset, MAX_CHUNK_BYTES);
        let seen = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            seen += chunk.length;
            if (seen > limit) {
              return done(
                refused(
                  `The chunk is larger than ${bytes(limit)}: the upload declared ` +
                    `${bytes(meta.size)} and a chunk carries at most ${bytes(MAX_CHUNK_BYTES)}.`,
                ),
              );
            }
            done(null, chunk);
          },
        });
        const file = await open(dataOf(found.id), 'r+');
        await pipeline(body, counter, file.createWriteStream({ start: offset }));
        return described(found.id, meta);
      });
    },

    /**
     * Runs `work` on the upload with no chunk written meanwhile; the upload is removed after it,
     * whatever its outcome.
     */
    async finish<T>(id: unknown, work: (upload: HeldUpload) => Promise<T>): Promise<T> {
      const found = await metaOf(id);
      return exclusively(found.id, async () => {
        const folder = folderOf(found.id);
        try {
          const received = await receivedOf(found.id);
          return await work({ meta: found.meta, folder, data: dataOf(found.id), received });
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
      });
    },

    /** An upload given up; false when there is none. */
    async abandon(id: unknown): Promise<boolean> {
      const found = await metaOf(id).catch(() => null);
      if (!found) return false;
      if (busy.has(found.id)) throw refused('The upload is busy: try again when it is idle.');
      await rm(folderOf(found.id), { recursive: true, force: true });
      return true;
    },

    removeStale,
  };
}
