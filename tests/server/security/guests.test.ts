import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_NUMBERS } from '../../../server/core/roles';
import { CSRF_HEADER } from '../../../server/http/security';
import { createAccount } from '../../../server/identity';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { apiKey, connect, type Client } from '../hubClients';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';

// An invited guest's sign-in ticket (security issue 26, finding 5). PUT /api/player/enlist
// answers the guest its ticket; the reference also made the ticket the guest's subject id, which
// every co-player reads in the player list and in the hub's GameEvent, so a co-player could sign
// in as the guest before the guest did. Here the guest's subject has an id of its own.

describe.each(testEngines())('an invited guest’s ticket on %s', (engine) => {
  let server: TestServer;
  const users: Record<string, { id: string; headers: Record<string, string> }> = {};
  const clients: Client[] = [];
  let gameId = '';

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, users[who]!.headers, method, path, body);
  const ok = async (res: Promise<Reply>): Promise<Json> => {
    const reply = await res;
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };

  async function addUser(username: string) {
    const db = server.app.store.db;
    if (username !== 'creator' && username !== 'player') {
      await createAccount(db, { username, name: username, password: SEED_PASSWORD });
      const { accessToken } = await signIn(server.url, username, SEED_PASSWORD);
      await ok(
        apiRequest(
          server.url,
          { authorization: `Bearer ${accessToken}` },
          'POST',
          '/user/register',
        ),
      );
    }
    const id = await server.userId(username);
    await db.updateTable('users').set({ gamespaceLimit: 0 }).where('id', '=', id).execute();
    users[username] = { id, headers: apiKey(await server.apiKeyFor(username)) };
  }

  /** POST /api/user/login with a ticket, as the launchpoint signs a guest in. */
  const loginWith = (ticket: string) =>
    apiRequest(server.url, { authorization: `Ticket ${ticket}` }, 'POST', '/user/login');

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    await addUser('creator');
    await addUser('player');
    await addUser('friend');
    await server.app.store.db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS.creator })
      .where('id', '=', users.creator!.id)
      .execute();
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Guest lab', audience: 'everyone' }),
    );
    gameId = (await ok(call('player', 'POST', '/gamespace', { resourceId: ws.id }))).id;
    const invite = await ok(call('player', 'POST', `/gamespace/${gameId}/invite`));
    await ok(call('friend', 'POST', `/player/${invite.code}`, {}));
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await server?.close();
  });

  it('shows a co-player the guest’s subject but never its ticket, which alone signs the guest in', async () => {
    const friendHub = await connect(server.url, users.friend!.headers);
    clients.push(friendHub);
    await friendHub.connection.invoke('Listen', gameId);

    const invite = await ok(call('player', 'POST', `/gamespace/${gameId}/invite`));
    const enlisted = await ok(
      apiRequest(server.url, {}, 'PUT', '/player/enlist', {
        code: invite.code,
        subjectName: 'Guest',
      }),
    );
    expect(enlisted.gamespaceId).toBe(gameId);
    const ticket = enlisted.token as string;

    // What a co-player reads: the player list, the game state and the hub's news of the join.
    const players = await ok(call('friend', 'GET', `/players/${gameId}`));
    const guest = players.find((p: Json) => p.subjectName === 'Guest');
    expect(guest).toBeDefined();
    const state = await ok(call('friend', 'GET', `/gamespace/${gameId}`));
    const joined = await friendHub.next(
      (e) =>
        e.name === 'GameEvent' &&
        (e.payload.model?.players ?? []).some((p: Json) => p.subjectName === 'Guest'),
    );
    expect(joined.payload.model.players.map((p: Json) => p.subjectId)).toContain(guest.subjectId);
    for (const seen of [players, state, friendHub.events]) {
      expect(JSON.stringify(seen)).not.toContain(ticket);
    }
    expect(guest.subjectId).not.toBe(ticket);

    // The subject id the co-player sees signs nobody in, by any of the ways a ticket is sent.
    expect((await loginWith(guest.subjectId)).status).toBe(401);
    const byQuery = await apiRequest(
      server.url,
      {},
      'GET',
      `/gamespace/${gameId}?ticket=${guest.subjectId}`,
    );
    expect(byQuery.status).toBe(401);

    // The guest's own ticket does, as that subject: removing the subject shuts the guest out.
    const login = await loginWith(ticket);
    expect(login.status, login.text).toBe(200);
    const cookie = login.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
    expect(cookie).toBeDefined();
    const asGuest = { cookie: cookie!.split(';')[0]!, [CSRF_HEADER]: 'XMLHttpRequest' };
    expect((await apiRequest(server.url, asGuest, 'GET', `/gamespace/${gameId}`)).status).toBe(200);
    await ok(call('player', 'DELETE', `/gamespace/${gameId}/player/${guest.subjectId}`));
    expect((await apiRequest(server.url, asGuest, 'GET', `/gamespace/${gameId}`)).status).toBe(403);
    // And it was good once.
    expect((await loginWith(ticket)).status).toBe(401);
  });
});
