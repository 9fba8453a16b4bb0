import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { apiRequest, type Json, type Reply } from './api';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect } from './hubClients';

// A gamespace's event log over HTTP (GET /api/gamespace/{id}/events): administrators and
// observers of the workspace's audience read it, anyone else gets 403; deploys, console opens
// and closes, submissions with their score, extensions and the end are recorded where they
// happen; the log goes with its gamespace.

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [],
  variants: [
    {
      text: '',
      iso: null,
      sections: [
        {
          name: 'Only',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [
            { text: 'The flag?', answer: 'forty-two', weight: 50, grader: 'match' },
            { text: 'The colour?', answer: 'blue', weight: 50, grader: 'match' },
          ],
        },
      ],
    },
  ],
};

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
      if (step === 0 && buffered.length >= 12) {
        buffered = buffered.subarray(12);
        socket.send(Buffer.from('RFB 003.008\n', 'latin1'));
        step = 1;
      }
      if (step === 1 && buffered.length >= 2) {
        buffered = buffered.subarray(2);
        socket.send(Buffer.of(1));
        step = 2;
      }
      if (step === 2 && buffered.length >= 4) {
        buffered = buffered.subarray(4);
        socket.send(Buffer.of(1));
        step = 3;
      }
      if (step === 3 && buffered.length >= 24) resolve();
    });
  });
  socket.removeAllListeners('close');
  return socket;
}

describe.each(testEngines())('the gamespace event log on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let workspaceId = '';
  /** The player's gamespace, launched with its machine. */
  let game: Json;
  let vmId = '';
  let playerId = '';

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const eventsOf = async (id: string): Promise<Json[]> =>
    ok(call('admin', 'GET', `/gamespace/${id}/events`));

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    playerId = await server.userId('player');
    await db.updateTable('users').set({ gamespaceLimit: 0 }).where('id', '=', playerId).execute();
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Lab', audience: 'everyone' }),
    );
    workspaceId = ws.id;
    const stock = (await ok(call('creator', 'GET', '/templates?term=linux-server'))) as Json[];
    const parent = stock.find((t) => t.name === 'linux-server');
    await ok(call('creator', 'POST', '/template', { templateId: parent.id, workspaceId }));
    await ok(call('creator', 'PUT', `/challenge/${workspaceId}`, CHALLENGE));
    game = await ok(
      call('player', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
    );
    expect(game.vms).toHaveLength(1);
    vmId = game.vms[0].id;
    // From here the workspace's audience is "alpha": the observer's scope reaches it, the
    // creator's (an observer too, of no scope) does not. Set before either calls, so no kept
    // caller has the old ones.
    await db.updateTable('workspaces').set({ audience: 'alpha' }).where('id', '=', ws.id).execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
  }, 90_000);
  afterAll(() => server?.close());

  it('lets administrators and observers of the audience read it, and refuses everyone else', async () => {
    const path = `/gamespace/${game.id}/events`;
    expect((await call('admin', 'GET', path)).status).toBe(200);
    expect((await call('observer', 'GET', path)).status).toBe(200);
    // An observer whose scope the audience does not reach, and the gamespace's own player.
    expect(await call('creator', 'GET', path)).toMatchObject({ status: 403, text: '' });
    expect(await call('player', 'GET', path)).toMatchObject({ status: 403, text: '' });
    // A player of another gamespace.
    const other = await ok(
      call('admin', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: false }),
    );
    expect((await call('player', 'GET', `/gamespace/${other.id}/events`)).status).toBe(403);
    expect((await call('admin', 'GET', `/gamespace/${other.id}/events`)).status).toBe(200);
    // As the gamespace's other routes answer: an unknown id, a caller without credentials.
    expect(await call('admin', 'GET', '/gamespace/nope/events')).toMatchObject({
      status: 400,
      body: { message: 'ResourceNotFound' },
    });
    expect((await apiRequest(server.url, {}, 'GET', path)).status).toBe(401);
  });

  it('records the deploy of the launch, with its machine and who launched it', async () => {
    const events = await eventsOf(game.id);
    expect(events[0]).toMatchObject({
      gamespaceId: game.id,
      kind: 'deploy',
      actorId: playerId,
      actorName: 'Player',
      machineId: vmId,
      machineName: 'linux-server',
    });
    expect(Date.parse(events[0].at)).toBeGreaterThan(0);
  });

  it('records a console opened by the player and closed again', async () => {
    const display = await ok(call('player', 'GET', `/vm-console/${vmId}`));
    const socket = await openConsole(display.url);
    const consoleEvents = async () =>
      (await eventsOf(game.id)).filter((e) => e.kind.startsWith('console.'));
    await vi.waitFor(async () => expect(await consoleEvents()).toHaveLength(1));
    socket.close();
    await vi.waitFor(async () => expect(await consoleEvents()).toHaveLength(2));
    const facts = { actorId: playerId, actorName: 'Player', machineId: vmId };
    expect(await consoleEvents()).toMatchObject([
      { kind: 'console.open', machineName: 'linux-server', ...facts },
      { kind: 'console.close', machineName: 'linux-server', ...facts },
    ]);
  });

  it('records submissions with their score, an extension and the end', async () => {
    const grade = (...answers: string[]) =>
      ok(
        call('player', 'POST', '/gamespace/grade', {
          id: game.id,
          sectionIndex: 0,
          questions: answers.map((answer) => ({ answer })),
        }),
      );
    await grade('forty-two', 'red');
    const until = new Date(Date.now() + 30 * 60_000).toISOString();
    await ok(call('player', 'PUT', '/gamespace', { id: game.id, expirationTime: until }));
    await grade('forty-two', 'blue');
    const at = async () =>
      (await eventsOf(game.id)).filter((e) =>
        ['submission', 'extension', 'complete'].includes(e.kind),
      );
    await vi.waitFor(async () => expect(await at()).toHaveLength(4));
    expect(await at()).toMatchObject([
      {
        kind: 'submission',
        actorId: playerId,
        detail: 'Only: 1 of 2 correct, 50 of 100 points',
        score: 50,
      },
      { kind: 'extension', actorId: playerId },
      {
        kind: 'submission',
        actorId: playerId,
        detail: 'Only: 2 of 2 correct, 100 of 100 points',
        score: 100,
      },
      { kind: 'complete', detail: 'Full score' },
    ]);
    // The observer of the audience reads the same log.
    expect(await ok(call('observer', 'GET', `/gamespace/${game.id}/events`))).toEqual(
      await eventsOf(game.id),
    );
  });

  it('records the end of a game whose time ran out, as the janitor ends it', async () => {
    const late = await ok(
      call('admin', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: false }),
    );
    await server.app.store.db
      .updateTable('gamespaces')
      .set({ expirationTime: Date.now() - 60_000, cleanupGraceMinutes: 0 })
      .where('id', '=', late.id)
      .execute();
    await ok(call('admin', 'POST', '/admin/janitor'));
    await vi.waitFor(async () =>
      expect(await eventsOf(late.id)).toMatchObject([{ kind: 'complete', detail: 'Time ran out' }]),
    );
    expect((await eventsOf(late.id))[0]).not.toHaveProperty('actorId');
  });

  it('deletes the log with its gamespace', async () => {
    // The administrator's gamespace of the workspace (the one an earlier test registered).
    const doomed = await ok(
      call('admin', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: false }),
    );
    await ok(call('admin', 'POST', `/gamespace/${doomed.id}/start`));
    await ok(call('admin', 'POST', `/gamespace/${doomed.id}/complete`));
    await vi.waitFor(async () =>
      expect((await eventsOf(doomed.id)).map((e) => e.kind)).toEqual(['deploy', 'complete']),
    );
    await ok(call('admin', 'DELETE', `/gamespace/${doomed.id}`));
    const left = await server.app.store.db
      .selectFrom('gameEvents')
      .select('id')
      .where('gamespaceId', '=', doomed.id)
      .execute();
    expect(left).toEqual([]);
  });

  it('tells the observers of the audience live on the workspace observe channel', async () => {
    const channel = `observe:${workspaceId}`;
    const watcher = await connect(server.url, headers.observer!);
    const admin = await connect(server.url, headers.admin!);
    const outsider = await connect(server.url, headers.creator!);
    const player = await connect(server.url, headers.player!);
    try {
      await watcher.connection.invoke('Listen', channel);
      await admin.connection.invoke('Listen', channel);
      // An observer the audience does not reach, and the player of a gamespace there.
      await expect(outsider.connection.invoke('Listen', channel)).rejects.toThrow(
        'ActionForbidden',
      );
      await expect(player.connection.invoke('Listen', channel)).rejects.toThrow('ActionForbidden');
      // A gamespace of the workspace launched with its machine: its deploy is told.
      const launched = await ok(
        call('admin', 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }),
      );
      const adminId = await server.userId('admin');
      for (const client of [watcher, admin]) {
        const told = await client.next(
          (e) =>
            e.name === 'ObserveEvent' &&
            e.payload.action === 'EVENT.RECORDED' &&
            e.payload.model.gamespaceId === launched.id,
        );
        expect(told.payload).toMatchObject({
          actor: { id: adminId },
          model: { kind: 'deploy', machineName: 'linux-server', actorId: adminId },
        });
        expect(Date.parse(told.payload.model.at)).toBeGreaterThan(0);
      }
      expect(outsider.events.filter((e) => e.name === 'ObserveEvent')).toEqual([]);
      expect(player.events.filter((e) => e.name === 'ObserveEvent')).toEqual([]);
    } finally {
      await Promise.all([watcher, admin, outsider, player].map((c) => c.stop()));
    }
  });
});
