import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { apiRequest, type Json, type Reply } from './api';
import { testEngines } from './databases';
import { startTestServer, type TestServer } from './harness';
import { apiKey, connect, type Client } from './hubClients';

// Help requests over HTTP and the hub: a player of a running gamespace raises a hand, observers
// of the workspace's audience and administrators see the queue, claim and answer; the player may
// cancel. Every change reaches the workspace's observe channel and the gamespace's own channel as
// ObserveEvent HELP.UPDATED, and no one else; each is in the gamespace's event log.

describe.each(testEngines())('help requests on %s', (engine) => {
  let server: TestServer;
  const headers: Record<string, Record<string, string>> = {};
  let workspaceId = '';
  /** The player's gamespace. */
  let game: Json;
  /** The creator's own gamespace of the same workspace: a player of another gamespace. */
  let otherGame: Json;

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers[who]!, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const raise = (who: string, id: string, message: unknown) =>
    call(who, 'POST', `/gamespace/${id}/help`, { message });
  /** Closes whatever request of the game is open, so that a test starts with none. */
  const closeOpen = async (id: string) => {
    const open = ((await ok(call('admin', 'GET', `/gamespace/${id}/help`))) as Json[]).filter(
      (r) => r.status === 'open',
    );
    for (const r of open) await ok(call('player', 'POST', `/help/${r.id}/cancel`));
  };

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    const db = server.app.store.db;
    for (const who of ['admin', 'creator', 'observer', 'player']) {
      headers[who] = apiKey(await server.apiKeyFor(who));
    }
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Lab', audience: 'everyone' }),
    );
    workspaceId = ws.id;
    const launch = (who: string) =>
      ok(call(who, 'POST', '/gamespace', { resourceId: workspaceId, startGamespace: true }));
    game = await launch('player');
    otherGame = await launch('creator');
    // The audience is "alpha": the observer's scope reaches it, the creator's (an observer of
    // no scope) does not.
    await db.updateTable('workspaces').set({ audience: 'alpha' }).where('id', '=', ws.id).execute();
    await db
      .updateTable('users')
      .set({ scope: 'alpha', role: ROLE_NUMBERS.observer })
      .where('id', '=', await server.userId('observer'))
      .execute();
  }, 90_000);
  afterAll(() => server?.close());

  it('refuses an empty or too long message with a 400 that says why', async () => {
    for (const message of ['', '   ', undefined]) {
      expect(await raise('player', game.id, message)).toMatchObject({
        status: 400,
        body: { message: 'The message must not be empty.' },
      });
    }
    expect(await raise('player', game.id, 'x'.repeat(501))).toMatchObject({
      status: 400,
      body: { message: 'The message must be at most 500 characters.' },
    });
    expect(await ok(call('admin', 'GET', `/gamespace/${game.id}/help`))).toEqual([]);
  });

  it('keeps one open request per gamespace: raising again answers the open one', async () => {
    const first = await ok(raise('player', game.id, '  The router will not boot.  '));
    expect(first).toMatchObject({
      gamespaceId: game.id,
      workspaceId,
      playerName: 'Player',
      message: 'The router will not boot.',
      status: 'open',
    });
    expect(first.claimedById).toBeUndefined();
    const again = await ok(raise('player', game.id, 'Still stuck'));
    expect(again).toEqual(first);
    expect(await ok(call('player', 'GET', `/gamespace/${game.id}/help`))).toEqual([first]);
    await closeOpen(game.id);
    const next = await ok(raise('player', game.id, 'Another question'));
    expect(next.id).not.toBe(first.id);
    await closeOpen(game.id);
  });

  it('refuses a player of another gamespace, an observer outside the audience, the anonymous', async () => {
    // The creator plays their own gamespace of the workspace, and observes without its audience.
    expect(await raise('creator', game.id, 'help')).toMatchObject({ status: 403, text: '' });
    const mine = await ok(raise('player', game.id, 'Which subnet?'));
    for (const [method, path] of [
      ['GET', `/gamespace/${game.id}/help`],
      ['GET', `/help?workspaceId=${workspaceId}`],
      ['POST', `/help/${mine.id}/claim`],
      ['POST', `/help/${mine.id}/cancel`],
    ] as const) {
      expect(await call('creator', method, path), `${method} ${path}`).toMatchObject({
        status: 403,
      });
    }
    expect(await call('creator', 'POST', `/help/${mine.id}/answer`, { text: 'no' })).toMatchObject({
      status: 403,
    });
    // The creator's queue of every workspace it observes holds none of this one.
    expect(await ok(call('creator', 'GET', '/help'))).toEqual([]);
    // Players neither see the queue nor claim or answer, even their own.
    expect((await call('player', 'GET', `/help?workspaceId=${workspaceId}`)).status).toBe(403);
    expect((await call('player', 'GET', '/help')).status).toBe(403);
    expect((await call('player', 'POST', `/help/${mine.id}/claim`)).status).toBe(403);
    // Observers do not cancel a player's request.
    expect((await call('observer', 'POST', `/help/${mine.id}/cancel`)).status).toBe(403);
    expect((await apiRequest(server.url, {}, 'GET', `/gamespace/${game.id}/help`)).status).toBe(
      401,
    );
    expect(await call('admin', 'POST', '/help/nope/claim')).toMatchObject({
      status: 400,
      body: { message: 'ResourceNotFound' },
    });
    expect(await ok(call('player', 'GET', `/gamespace/${game.id}/help`))).toContainEqual(mine);
    await closeOpen(game.id);
  });

  it('lists the queue open first, oldest first, with who claimed and who answered', async () => {
    const a = await ok(raise('player', game.id, 'First'));
    const b = await ok(raise('creator', otherGame.id, 'Second'));
    const queue = async (who: string, query = `?workspaceId=${workspaceId}`) =>
      ((await ok(call(who, 'GET', `/help${query}`))) as Json[]).filter((r) =>
        [a.id, b.id].includes(r.id),
      );
    expect((await queue('observer')).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await queue('admin', '')).map((r) => r.id)).toEqual([a.id, b.id]);
    expect((await queue('observer', '')).map((r) => r.id)).toEqual([a.id, b.id]);

    const claimed = await ok(call('observer', 'POST', `/help/${a.id}/claim`));
    expect(claimed).toMatchObject({ status: 'open', claimedByName: 'Observer' });
    // Claiming one another observer claimed takes it over.
    const taken = await ok(call('admin', 'POST', `/help/${a.id}/claim`));
    expect(taken).toMatchObject({ status: 'open', claimedByName: 'Administrator' });
    // The answer must say something, and not too much.
    expect(await call('observer', 'POST', `/help/${a.id}/answer`, { text: ' ' })).toMatchObject({
      status: 400,
      body: { message: 'The answer must not be empty.' },
    });
    expect(
      await call('observer', 'POST', `/help/${a.id}/answer`, { text: 'y'.repeat(2001) }),
    ).toMatchObject({
      status: 400,
      body: { message: 'The answer must be at most 2000 characters.' },
    });
    const answered = await ok(
      call('observer', 'POST', `/help/${a.id}/answer`, { text: 'Check the second NIC.' }),
    );
    expect(answered).toMatchObject({
      status: 'answered',
      answer: 'Check the second NIC.',
      answeredByName: 'Observer',
      claimedByName: 'Observer',
    });
    expect(Date.parse(answered.closedAt)).toBeGreaterThanOrEqual(Date.parse(answered.raisedAt));
    // Closed: no second answer, claim or cancel.
    for (const path of ['claim', 'cancel']) {
      expect(await call('admin', 'POST', `/help/${a.id}/${path}`)).toMatchObject({
        status: 400,
        body: { message: 'InvalidOperation The help request is closed.' },
      });
    }
    // The open one comes first now.
    expect((await queue('observer')).map((r) => r.id)).toEqual([b.id, a.id]);
    expect(await ok(call('player', 'GET', `/gamespace/${game.id}/help`))).toContainEqual(answered);
    await closeOpen(otherGame.id).catch(() => {});
    await ok(call('creator', 'POST', `/help/${b.id}/cancel`));
  });

  it("tells observers the running gamespaces' workspaces they observe, for their channels", async () => {
    expect(await ok(call('observer', 'GET', '/help/workspaces'))).toContain(workspaceId);
    expect(await ok(call('admin', 'GET', '/help/workspaces'))).toContain(workspaceId);
    // An observer the audience does not reach, and a player.
    expect(await ok(call('creator', 'GET', '/help/workspaces'))).not.toContain(workspaceId);
    expect((await call('player', 'GET', '/help/workspaces')).status).toBe(403);
  });

  it("shows an observer their workspaces' closed requests, however many others closed since", async () => {
    const r = await ok(raise('player', game.id, 'Seen later?'));
    await ok(call('observer', 'POST', `/help/${r.id}/answer`, { text: 'Yes.' }));
    const now = Date.now();
    const elsewhere = Array.from({ length: 60 }, (_, i) => ({
      id: `elsewhere-${i}`,
      gamespaceId: `gone-${i}`,
      workspaceId: 'a-workspace-elsewhere',
      gamespaceName: '',
      playerId: 'someone',
      playerName: 'Someone',
      message: 'Elsewhere',
      status: 'answered' as const,
      raisedAt: now,
      claimedById: '',
      claimedByName: '',
      claimedAt: 0,
      answer: 'No.',
      answeredById: '',
      answeredByName: '',
      closedAt: now + 60_000 + i,
    }));
    await server.app.store.db.insertInto('helpRequests').values(elsewhere).execute();
    const mine = (await ok(call('observer', 'GET', '/help'))) as Json[];
    expect(mine.map((x) => x.id)).toContain(r.id);
    expect(mine.some((x) => x.workspaceId !== workspaceId)).toBe(false);
    // Administrators see everyone's: every open one and the 50 closed last.
    const all = (await ok(call('admin', 'GET', '/help'))) as Json[];
    expect(all.filter((x) => x.workspaceId === 'a-workspace-elsewhere')).toHaveLength(50);
  });

  it('records each change in the event log, with no more than the start of the text', async () => {
    const long = `Where is the flag? ${'a'.repeat(200)}`;
    const r = await ok(raise('player', game.id, long));
    await ok(call('observer', 'POST', `/help/${r.id}/claim`));
    await ok(call('observer', 'POST', `/help/${r.id}/answer`, { text: 'Look in /root.' }));
    const c = await ok(raise('player', game.id, 'Never mind'));
    await ok(call('player', 'POST', `/help/${c.id}/cancel`));
    await vi.waitFor(async () => {
      const events = ((await ok(call('admin', 'GET', `/gamespace/${game.id}/events`))) as Json[])
        .filter((e) => e.kind.startsWith('help.'))
        .slice(-5);
      expect(events.map((e) => [e.kind, e.actorName])).toEqual([
        ['help.raise', 'Player'],
        ['help.claim', 'Observer'],
        ['help.answer', 'Observer'],
        ['help.raise', 'Player'],
        ['help.cancel', 'Player'],
      ]);
      expect(events[0].detail.length).toBeLessThanOrEqual(40);
      expect(long.startsWith(events[0].detail.slice(0, -1))).toBe(true);
    });
  });

  it('tells the observe channel and the gamespace channel live, and nobody else', async () => {
    const clients: Client[] = [];
    const open = async (who: string) => {
      const c = await connect(server.url, headers[who]!);
      clients.push(c);
      return c;
    };
    try {
      const watcher = await open('observer');
      const admin = await open('admin');
      const player = await open('player');
      // A player of another gamespace on its own channel, and an observer outside the audience.
      const other = await open('creator');
      await watcher.connection.invoke('Listen', `observe:${workspaceId}`);
      await admin.connection.invoke('Listen', `observe:${workspaceId}`);
      await player.connection.invoke('Listen', game.id);
      await other.connection.invoke('Listen', otherGame.id);
      await expect(other.connection.invoke('Listen', `observe:${workspaceId}`)).rejects.toThrow(
        'ActionForbidden',
      );

      const raised = await ok(raise('player', game.id, 'Live, please'));
      const heard = (c: Client, status: string, claimedByName?: string) =>
        c.next(
          (e) =>
            e.name === 'ObserveEvent' &&
            e.payload.action === 'HELP.UPDATED' &&
            e.payload.model.id === raised.id &&
            e.payload.model.status === status &&
            e.payload.model.claimedByName === claimedByName,
        );
      for (const c of [watcher, admin, player]) {
        const told = await heard(c, 'open');
        expect(told.payload).toMatchObject({
          actor: { name: 'Player' },
          model: { message: 'Live, please', gamespaceId: game.id },
        });
      }
      await ok(call('observer', 'POST', `/help/${raised.id}/claim`));
      for (const c of [watcher, admin, player]) {
        expect((await heard(c, 'open', 'Observer')).payload.actor.name).toBe('Observer');
      }
      await ok(call('observer', 'POST', `/help/${raised.id}/answer`, { text: 'Here you go.' }));
      for (const c of [watcher, admin, player]) {
        const told = await heard(c, 'answered', 'Observer');
        expect(told.payload.model.answer).toBe('Here you go.');
      }
      const help = (c: Client) =>
        c.events.filter((e) => e.name === 'ObserveEvent' && e.payload.action === 'HELP.UPDATED');
      expect(help(other)).toEqual([]);
      // The player hears their gamespace's request, never the observers' EVENT.RECORDED feed.
      expect(
        player.events.filter((e) => e.name === 'ObserveEvent').map((e) => e.payload.action),
      ).toEqual(['HELP.UPDATED', 'HELP.UPDATED', 'HELP.UPDATED']);
    } finally {
      await Promise.all(clients.map((c) => c.stop()));
    }
  });

  it('refuses a raise in a gamespace that is not running', async () => {
    await ok(call('player', 'POST', `/gamespace/${game.id}/complete`));
    expect(await raise('player', game.id, 'Too late')).toMatchObject({
      status: 400,
      body: { message: 'GamespaceIsExpired' },
    });
  });

  it('goes with its gamespace', async () => {
    const r = await ok(raise('creator', otherGame.id, 'Bye'));
    await ok(call('admin', 'DELETE', `/gamespace/${otherGame.id}`));
    const left = await server.app.store.db
      .selectFrom('helpRequests')
      .select('id')
      .where('id', '=', r.id)
      .execute();
    expect(left).toEqual([]);
  });
});
