import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { parseRecords } from '../../server/console/recordings';
import { emptyReader, finishRecords, readRecords } from '../../src/domain/recordingStream';
import type { Json } from './api';
import { testEngines } from './databases';
import { apiKey } from './hubClients';
import { labServer } from './security/lab';

// Console recording (issue 33, "Recording and replay", the server's half): a session of a
// workspace that records consoles is recorded through the real console route, every byte the
// viewer received with its time; the per-session cap truncates it; observers outside the
// workspace's audience and the players get 403; retention and deleting the gamespace remove the
// file and the row. The real server with the sim driver's console, viewers over `ws`.

/** A console socket that keeps every byte it receives, and reads RFB messages off them. */
function viewer(url: string) {
  const socket = new WebSocket(url, ['binary']);
  const received: Buffer[] = [];
  let buffered = Buffer.alloc(0);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  socket.on('message', (data: Buffer) => {
    received.push(Buffer.from(data));
    buffered = Buffer.concat([buffered, data]);
  });
  socket.on('error', () => undefined);
  const read = async (n: number): Promise<Buffer> => {
    while (buffered.length < n) {
      if (socket.readyState >= WebSocket.CLOSING) throw new Error('closed while reading');
      await Promise.race([once(socket, 'message'), closed]);
    }
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    return out;
  };
  let bytesPerPixel = 4;
  let size = { width: 0, height: 0 };
  return {
    socket,
    closed,
    received: () => Buffer.concat(received),
    /** Security None, shared, ServerInit with its name. */
    async handshake() {
      await read(12);
      socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
      const count = (await read(1))[0]!;
      await read(count);
      socket.send(Buffer.of(1));
      await read(4);
      socket.send(Buffer.of(1));
      const init = await read(24);
      size = { width: init.readUInt16BE(0), height: init.readUInt16BE(2) };
      bytesPerPixel = init[4]! / 8;
      await read(init.readUInt32BE(20));
    },
    /** Asks for the whole screen and reads the one FramebufferUpdate (Raw) it gets. */
    async frame() {
      const request = Buffer.alloc(10);
      request.writeUInt8(3, 0);
      request.writeUInt16BE(size.width, 6);
      request.writeUInt16BE(size.height, 8);
      socket.send(request);
      const head = await read(4);
      expect(head[0]).toBe(0);
      for (let i = head.readUInt16BE(2); i > 0; i--) {
        const rect = await read(12);
        expect(rect.readInt32BE(8)).toBe(0);
        await read(rect.readUInt16BE(4) * rect.readUInt16BE(6) * bytesPerPixel);
      }
    },
    async close() {
      socket.close();
      await closed;
    },
  };
}

type Lab = Awaited<ReturnType<typeof labServer>>;

/** The workspace of the lab's gamespace, changed by its author. */
async function setWorkspace(lab: Lab, changes: Json) {
  const game = (await lab.call('player', 'GET', `/gamespace/${lab.gameId}`)).body as Json;
  const ws = (await lab.call('creator', 'GET', `/workspace/${game.workspaceId}`)).body as Json;
  const saved = await lab.call('creator', 'PUT', '/workspace', {
    id: ws.id,
    name: ws.name,
    ...changes,
  });
  expect(saved.status, saved.text).toBe(200);
  return (await lab.call('creator', 'GET', `/workspace/${ws.id}`)).body as Json;
}

/** The gamespace's recordings as an administrator lists them, once none is open. */
async function finishedRecordings(lab: Lab): Promise<Json[]> {
  let list: Json[] = [];
  await expect
    .poll(async () => {
      const reply = await lab.call('admin', 'GET', `/gamespace/${lab.gameId}/recordings`);
      expect(reply.status, reply.text).toBe(200);
      list = reply.body as Json[];
      return list.length > 0 && list.every((r) => r.endedAt !== null);
    })
    .toBe(true);
  return list;
}

async function streamOf(lab: Lab, id: string, who = 'admin') {
  const res = await fetch(`${lab.server.url}/api/recording/${id}/stream`, {
    headers: { ...lab.keys[who]!, 'accept-encoding': 'identity' },
  });
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe.each(testEngines())('console recording on %s', (engine) => {
  let lab: Lab;

  beforeAll(async () => {
    lab = await labServer({ RECORDING_MAX_BYTES: '8MiB' }, { engine });
  }, 60_000);

  afterAll(async () => {
    await lab?.server.close();
  });

  it('records nothing while the workspace does not record', async () => {
    const ticket = await lab.call('player', 'GET', `/vm-console/${lab.vmId}`);
    expect(ticket.body.recorded).toBe(false);
    const v = viewer(ticket.body.url);
    await v.handshake();
    await v.close();
    const reply = await lab.call('admin', 'GET', `/gamespace/${lab.gameId}/recordings`);
    expect(reply.body).toEqual([]);
  });

  it('records every byte the viewer received, with non-decreasing offsets', async () => {
    const ws = await setWorkspace(lab, { recordConsoles: true });
    expect(ws.recordConsoles).toBe(true);
    const ticket = await lab.call('player', 'GET', `/vm-console/${lab.vmId}`);
    expect(ticket.body.recorded).toBe(true);
    const v = viewer(ticket.body.url);
    await v.handshake();
    await v.frame();
    await v.frame();
    await v.close();

    const [recording] = await finishedRecordings(lab);
    expect(recording).toMatchObject({
      gamespaceId: lab.gameId,
      machineId: lab.vmId,
      userName: 'Player',
      truncated: false,
    });
    expect(recording.machineName).not.toContain('#');

    const gz = await fetch(`${lab.server.url}/api/recording/${recording.id}/stream`, {
      headers: lab.keys.admin!,
    });
    expect(gz.status).toBe(200);
    expect(gz.headers.get('content-type')).toBe('application/octet-stream');
    const stream = Buffer.from(await gz.arrayBuffer());
    const plain = await streamOf(lab, recording.id);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(plain.bytes.equals(stream)).toBe(true);
    expect(stream.length).toBe(recording.bytes);

    const { records, length } = parseRecords(stream);
    expect(length).toBe(stream.length);
    expect(records.every((r) => r.channel === 0)).toBe(true);
    const offsets = records.map((r) => r.offsetMs);
    expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
    expect(offsets.at(-1)!).toBeLessThanOrEqual(recording.durationMs);
    const screen = Buffer.concat(records.map((r) => r.bytes));
    expect(screen.subarray(0, 12).toString('latin1')).toMatch(/^RFB 003\.00\d\n$/);
    expect(screen.equals(v.received())).toBe(true);
    // The replay view's reader takes it as it is.
    const read = readRecords(emptyReader(), new Uint8Array(stream));
    if (!read.ok) throw new Error(read.error);
    expect(finishRecords(read.reader)).toEqual({ ok: true });
    expect(Buffer.concat(read.screen.map((r) => r.bytes)).equals(screen)).toBe(true);

    // Stored as sent: gzip, in the gamespace's folder of the data folder.
    const folder = join(lab.server.dataDir, 'recordings', lab.gameId);
    expect(readdirSync(folder)).toEqual([`${recording.id}.rec.gz`]);

    const download = await fetch(
      `${lab.server.url}/api/recording/${recording.id}/stream?download=1`,
      { headers: lab.keys.admin! },
    );
    expect(download.headers.get('content-disposition')).toMatch(
      /^attachment; filename="[A-Za-z0-9._-]+-\d{8}T\d{6}Z\.rec"$/,
    );
    expect(Buffer.from(await download.arrayBuffer()).equals(stream)).toBe(true);
  }, 60_000);

  it('follows the audience rule: observers of the audience and admins', async () => {
    const [recording] = await finishedRecordings(lab);
    await setWorkspace(lab, { audience: 'alpha' });
    const db = lab.server.app.store.db;
    const observerId = await lab.server.userId('observer');
    const setScope = (scope: string) =>
      db.updateTable('users').set({ scope }).where('id', '=', observerId).execute();
    lab.keys.observer ??= apiKey(await lab.server.apiKeyFor('observer'));

    await setScope('beta');
    for (const who of ['observer', 'player']) {
      const list = await lab.call(who, 'GET', `/gamespace/${lab.gameId}/recordings`);
      expect(list.status, who).toBe(403);
      expect((await streamOf(lab, recording.id, who)).status, who).toBe(403);
    }
    await setScope('alpha');
    const list = await lab.call('observer', 'GET', `/gamespace/${lab.gameId}/recordings`);
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect((await streamOf(lab, recording.id, 'observer')).status).toBe(200);
    await setWorkspace(lab, { audience: 'everyone' });
  });

  it('removes recordings past their retention', async () => {
    const [recording] = await finishedRecordings(lab);
    const db = lab.server.app.store.db;
    const file = join(lab.server.dataDir, 'recordings', lab.gameId, `${recording.id}.rec.gz`);
    expect(existsSync(file)).toBe(true);
    // 29 days old: kept.
    await db
      .updateTable('consoleRecordings')
      .set({ startedAt: Date.now() - 29 * 86_400_000 })
      .execute();
    expect((await lab.call('admin', 'POST', '/admin/janitor', {})).status).toBe(200);
    expect(existsSync(file)).toBe(true);
    await db
      .updateTable('consoleRecordings')
      .set({ startedAt: Date.now() - 31 * 86_400_000 })
      .execute();
    expect((await lab.call('admin', 'POST', '/admin/janitor', {})).status).toBe(200);
    expect(existsSync(file)).toBe(false);
    const reply = await lab.call('admin', 'GET', `/gamespace/${lab.gameId}/recordings`);
    expect(reply.body).toEqual([]);
  });
});

describe('console recording cap, stop and gamespace deletion', () => {
  let lab: Lab;
  const CAP = 64 * 1024;

  beforeAll(async () => {
    lab = await labServer({ RECORDING_MAX_BYTES: String(CAP), RECORD_CONSOLES: 'true' });
  }, 60_000);

  afterAll(async () => {
    await lab?.server.close();
  });

  it('records a workspace that has not chosen when the server records by default', async () => {
    const ws = await setWorkspace(lab, {});
    expect(ws.recordConsoles).toBeNull();
    const ticket = await lab.call('player', 'GET', `/vm-console/${lab.vmId}`);
    expect(ticket.body.recorded).toBe(true);
  });

  it('stops at the cap, marked truncated, the stream a prefix of what the viewer got', async () => {
    const v = viewer(await lab.consoleUrl('player'));
    await v.handshake();
    await v.frame();
    await v.close();
    const [recording] = await finishedRecordings(lab);
    expect(recording.truncated).toBe(true);
    expect(recording.bytes).toBeLessThanOrEqual(CAP);
    const { bytes } = await streamOf(lab, recording.id);
    expect(bytes.length).toBe(recording.bytes);
    const screen = Buffer.concat(parseRecords(bytes).records.map((r) => r.bytes));
    expect(screen.length).toBeGreaterThan(0);
    expect(v.received().subarray(0, screen.length).equals(screen)).toBe(true);
    expect(v.received().length).toBeGreaterThan(screen.length);
  });

  it('closes a recording left open by a stopped server as far as it was written', async () => {
    const db = () => lab.server.app.store.db;
    await db().deleteFrom('consoleRecordings').execute();
    const v = viewer(await lab.consoleUrl('player'));
    await v.handshake();
    // The row is there while the session is open, its first records flushed within a second.
    await expect
      .poll(async () => (await db().selectFrom('consoleRecordings').selectAll().execute()).length)
      .toBe(1);
    const row = await db().selectFrom('consoleRecordings').selectAll().executeTakeFirstOrThrow();
    expect(row.endedAt).toBe(0);
    const file = join(lab.server.dataDir, 'recordings', row.gamespaceId, `${row.id}.rec.gz`);
    const partial = () =>
      gunzipSync(readFileSync(file), { finishFlush: constants.Z_SYNC_FLUSH }).length;
    await expect.poll(() => (existsSync(file) ? partial() : 0)).toBeGreaterThan(0);
    // While open, the stream is served as far as written, in whole records.
    const open = await streamOf(lab, row.id);
    expect(open.status).toBe(200);
    expect(parseRecords(open.bytes).length).toBe(open.bytes.length);
    expect(open.bytes.subarray(9, 21).toString('latin1')).toMatch(/^RFB 003\.00\d\n$/);

    // What a server killed now leaves: the file as flushed so far (no gzip trailer), cut in the
    // middle of its last record, and the row open.
    const flushed = readFileSync(file);
    await lab.server.restart();
    const whole = gunzipSync(flushed, { finishFlush: constants.Z_SYNC_FLUSH });
    const cut = whole.subarray(0, whole.length - 3);
    writeFileSync(file, gzipSync(cut, { finishFlush: constants.Z_SYNC_FLUSH }));
    await db()
      .updateTable('consoleRecordings')
      .set({ endedAt: 0, bytes: 0, durationMs: 0 })
      .execute();
    await lab.server.restart();

    const [recovered] = await finishedRecordings(lab);
    expect(recovered.id).toBe(row.id);
    const expected = cut.subarray(0, parseRecords(cut).length);
    expect(recovered.bytes).toBe(expected.length);
    const { bytes } = await streamOf(lab, row.id);
    expect(bytes.equals(expected)).toBe(true);
    expect(gunzipSync(readFileSync(file)).equals(expected)).toBe(true);
  });

  it('removes the files and rows of a deleted gamespace', async () => {
    const list = (await lab.call('admin', 'GET', `/gamespace/${lab.gameId}/recordings`))
      .body as Json[];
    expect(list.length).toBeGreaterThan(0);
    const folder = join(lab.server.dataDir, 'recordings', lab.gameId);
    expect(readdirSync(folder).length).toBeGreaterThan(0);
    const removed = await lab.call('admin', 'DELETE', `/gamespace/${lab.gameId}`);
    expect(removed.status, removed.text).toBe(200);
    expect(existsSync(folder)).toBe(false);
    const rows = await lab.server.app.store.db
      .selectFrom('consoleRecordings')
      .selectAll()
      .where('gamespaceId', '=', lab.gameId)
      .execute();
    expect(rows).toEqual([]);
  });
});
