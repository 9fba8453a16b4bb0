import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { KEY } from '../../server/hypervisor/sim/console/keys';
import { apiRequest, type Json, type Reply } from './api';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect } from './hubClients';

// View-only consoles through the real server and the sim driver: an observer's console ticket
// says view only and the console route drops their keys and pointer, so what they type never
// reaches the machine while the player's does; an administrator watches the same way until they
// take control (?control=true), which an observer is refused; the player is told who is on their
// machine's console, live on their gamespace's channel. What reached the machine is read back
// through its shell: `topoplay-copy <words>` puts the words on its clipboard, which
// POST vm/{id}/clipboard/copy reads.

/** Opens a console as noVNC does (RFB 3.8, security None, ClientInit) and waits for ServerInit. */
async function openConsole(url: string): Promise<WebSocket> {
  const socket = new WebSocket(url, ['binary']);
  let buffered = Buffer.alloc(0);
  let step = 0;
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason.toString()}`)));
    socket.on('message', (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      const steps: Array<[number, Buffer]> = [
        [12, Buffer.from('RFB 003.008\n', 'latin1')],
        [2, Buffer.of(1)],
        [4, Buffer.of(1)],
      ];
      while (step < 3 && buffered.length >= steps[step]![0]) {
        buffered = buffered.subarray(steps[step]![0]);
        socket.send(steps[step]![1]);
        step += 1;
      }
      if (step === 3 && buffered.length >= 24) resolve();
    });
  });
  socket.removeAllListeners('close');
  return socket;
}

const keyEvent = (keysym: number, down: boolean) => {
  const b = Buffer.alloc(8);
  b.writeUInt8(4, 0);
  b.writeUInt8(down ? 1 : 0, 1);
  b.writeUInt32BE(keysym, 4);
  return b;
};

/** Types a line (and Enter) and clicks, in one frame; resolves once the server has it. */
async function typeLine(socket: WebSocket, line: string, enter = true) {
  const keys = [...line].map((c) => c.charCodeAt(0)).concat(enter ? [KEY.enter] : []);
  const pointer = Buffer.from([5, 1, 0, 10, 0, 10, 5, 0, 0, 10, 0, 10]);
  socket.send(
    Buffer.concat([...keys.flatMap((k) => [keyEvent(k, true), keyEvent(k, false)]), pointer]),
  );
  // The pong comes after the frames before the ping were handled.
  socket.ping();
  await new Promise((resolve) => socket.once('pong', resolve));
}

describe('view-only consoles', () => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let game: Json;
  let vmId = '';
  const sockets: WebSocket[] = [];

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const copied = async () =>
    (await ok(call('admin', 'POST', `/vm/${vmId}/clipboard/copy`))).text as string;
  const consoleOf = async (who: string, query = '') => {
    const display = await ok(call(who, 'GET', `/vm-console/${vmId}${query}`));
    const socket = await openConsole(display.url);
    sockets.push(socket);
    return { display, socket };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { SIM_SPEED: '0' } });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    const playerId = await server.userId('player');
    await db.updateTable('users').set({ gamespaceLimit: 0 }).where('id', '=', playerId).execute();
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Lab', audience: 'everyone' }),
    );
    const stock = (await ok(call('creator', 'GET', '/templates?term=linux-server'))) as Json[];
    const parent = stock.find((t) => t.name === 'linux-server');
    await ok(call('creator', 'POST', '/template', { templateId: parent.id, workspaceId: ws.id }));
    game = await ok(
      call('player', 'POST', '/gamespace', { resourceId: ws.id, startGamespace: true }),
    );
    vmId = game.vms[0].id;
    // From here the workspace's audience is "alpha", which the observer's scope reaches.
    await db.updateTable('workspaces').set({ audience: 'alpha' }).where('id', '=', ws.id).execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
  }, 90_000);
  afterAll(async () => {
    for (const socket of sockets) socket.terminate();
    await server?.close();
  });

  it('hands the player a console with control and the observer one to watch', async () => {
    expect(await ok(call('player', 'GET', `/vm-console/${vmId}`))).toMatchObject({
      viewOnly: false,
      mayTakeControl: false,
    });
    expect(await ok(call('observer', 'GET', `/vm-console/${vmId}`))).toMatchObject({
      viewOnly: true,
      mayTakeControl: false,
    });
    // An administrator watches a gamespace's machine until they take control.
    expect(await ok(call('admin', 'GET', `/vm-console/${vmId}`))).toMatchObject({
      viewOnly: true,
      mayTakeControl: true,
    });
    expect(await ok(call('admin', 'GET', `/vm-console/${vmId}?control=true`))).toMatchObject({
      viewOnly: false,
      mayTakeControl: false,
    });
  });

  it('refuses an observer control, paste and files', async () => {
    expect(await call('observer', 'GET', `/vm-console/${vmId}?control=true`)).toMatchObject({
      status: 403,
      text: '',
    });
    expect((await call('observer', 'POST', `/vm/${vmId}/clipboard/paste`)).status).toBe(403);
    expect(await ok(call('observer', 'GET', `/vm/${vmId}/clipboard`))).toMatchObject({
      paste: false,
    });
    expect(await ok(call('observer', 'GET', `/vm/${vmId}/files`))).toMatchObject({
      available: false,
    });
    expect((await call('player', 'POST', `/vm/${vmId}/clipboard/paste`)).status).toBe(200);
    expect(await ok(call('player', 'GET', `/vm/${vmId}/clipboard`))).toMatchObject({
      paste: true,
    });
  });

  it("never lets an observer's keys reach the machine, while the player's do", async () => {
    const observer = await consoleOf('observer');
    // Left without Enter: had it reached the machine, the player's line would follow it.
    await typeLine(observer.socket, 'topoplay-copy watched', false);
    const player = await consoleOf('player');
    await typeLine(player.socket, 'topoplay-copy played');
    await vi.waitFor(async () => expect(await copied()).toBe('played'));
    // The admin watching by default types nothing either.
    const watching = await consoleOf('admin');
    await typeLine(watching.socket, 'topoplay-copy watching', false);
    await typeLine(player.socket, 'topoplay-copy again');
    await vi.waitFor(async () => expect(await copied()).toBe('again'));
  });

  it('lets an administrator who took control type', async () => {
    const admin = await consoleOf('admin', '?control=true');
    await typeLine(admin.socket, 'topoplay-copy taken');
    await vi.waitFor(async () => expect(await copied()).toBe('taken'));
  });

  it('tells the player who is on their console, live and with the ticket', async () => {
    // The consoles of the tests before are closed first.
    for (const socket of sockets.splice(0)) socket.close();
    await vi.waitFor(async () =>
      expect((await ok(call('player', 'GET', `/vm-console/${vmId}`))).viewers).toEqual([]),
    );
    const hub = await connect(server.url, headers.player!);
    try {
      await hub.connection.invoke('Listen', game.id);
      const observer = await consoleOf('observer');
      const observerId = await server.userId('observer');
      const told = await hub.next(
        (e) =>
          e.name === 'ConsoleEvent' &&
          e.payload.action === 'CONSOLE.VIEWERS' &&
          e.payload.actor.id === observerId,
      );
      expect(told.payload.model.id).toBe(vmId);
      expect(told.payload.model.viewers).toContainEqual({
        id: observerId,
        name: 'Observer',
        role: 'observer',
        control: false,
      });
      const display = await ok(call('player', 'GET', `/vm-console/${vmId}`));
      expect(display.viewers).toContainEqual(
        expect.objectContaining({ id: observerId, role: 'observer', control: false }),
      );
      // Closed: the list goes without them.
      observer.socket.close();
      await hub.next(
        (e) =>
          e.name === 'ConsoleEvent' &&
          e.payload.model.id === vmId &&
          !e.payload.model.viewers.some((v: Json) => v.id === observerId),
      );
    } finally {
      await hub.stop();
    }
  });
});
