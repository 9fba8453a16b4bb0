import { HubConnectionState } from '@microsoft/signalr';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sha256Hex } from '../../../server/core/ids';
import { createAccount } from '../../../server/identity';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { apiKey, connect, type Client } from '../hubClients';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';

// Users and API keys over real HTTP (wire reference §1.7, §5; issue 13): issuing, using and
// deleting keys, the users search the Moodle plugin reads its gamespace limit from, adding and
// changing users (the registrar flag included), deleting them, and the hub closing the
// connections of users who are disabled or deleted.

/** The server closes the connection: within a few seconds, not at the client's next timeout. */
const closedAtOnce = (client: Client) =>
  vi.waitFor(() => expect(client.connection.state).toBe(HubConnectionState.Disconnected), {
    timeout: 5_000,
    interval: 20,
  });

describe.each(testEngines())('users and API keys on %s', (engine) => {
  let server: TestServer;
  const clients: Client[] = [];
  /** Signed-in accounts: their id and bearer headers. */
  const people: Record<string, { id: string; headers: Record<string, string> }> = {};

  const call = (who: string, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, people[who]!.headers, method, path, body);
  const as = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers, method, path, body);
  const ok = async (reply: Promise<Reply>): Promise<Json> => {
    const r = await reply;
    expect(r.status, r.text).toBe(200);
    return r.body;
  };

  /** Signs in (creating the account unless it is a seeded one) and registers. */
  async function person(username: string) {
    if (!['admin', 'creator', 'observer', 'player'].includes(username)) {
      await createAccount(server.app.store.db, {
        username,
        name: username,
        password: SEED_PASSWORD,
      });
    }
    const { accessToken } = await signIn(server.url, username, SEED_PASSWORD);
    const headers = { authorization: `Bearer ${accessToken}` };
    const registered = await ok(apiRequest(server.url, headers, 'POST', '/user/register'));
    people[username] = { id: registered.id, headers };
  }

  /** A user added by the admin through POST /api/user, with an API key issued to it. */
  async function serviceAccount(fields: Record<string, unknown>) {
    const user = await ok(call('admin', 'POST', '/user', fields));
    const { value } = await ok(call('admin', 'POST', `/apikey/${user.id}`));
    return { user, headers: apiKey(value as string) };
  }

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    for (const username of ['admin', 'creator', 'player']) await person(username);
  }, 60_000);

  afterAll(async () => {
    for (const c of clients) await c.stop();
    await server?.close();
  });

  it('keeps the last administrator: no deleting or demoting it, by itself either', async () => {
    const admins = await ok(call('admin', 'GET', '/users?filter=administrator'));
    expect(admins.map((u: Json) => u.id)).toEqual([people.admin!.id]);
    const deleted = await call('admin', 'DELETE', `/user/${people.admin!.id}`);
    expect(deleted.status).toBe(400);
    expect(deleted.body.message).toMatch(/^InvalidOperation/);
    const demoted = await call('admin', 'POST', '/user', { id: people.admin!.id, role: 'user' });
    expect(demoted.status).toBe(400);
    expect((await ok(call('admin', 'GET', '/user'))).isAdmin).toBe(true);
  });

  it('issues an API key once, lists it without its value, and a deleted key stops at once', async () => {
    const playerId = people.player!.id;
    const { value } = await ok(call('admin', 'POST', `/apikey/${playerId}`));
    // 24 random bytes in base64 with '/' and '+' as '_': 32 characters.
    expect(value).toMatch(/^[A-Za-z0-9_]{32}$/);
    const stored = await server.app.store.db
      .selectFrom('apiKeys')
      .selectAll()
      .where('userId', '=', playerId)
      .execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.hash).toBe(sha256Hex(value));
    expect(JSON.stringify(stored)).not.toContain(value);

    const keys = await ok(call('admin', 'GET', `/user/${playerId}/keys`));
    expect(keys).toEqual([
      { id: stored[0]!.id, name: 'Administrator', whenCreated: expect.any(String) },
    ]);
    expect(JSON.stringify(keys)).not.toContain(value);

    const me = await ok(as(apiKey(value), 'GET', '/user'));
    expect(me.id).toBe(playerId);
    await ok(as(apiKey(value), 'GET', '/gamespaces'));

    const removed = await call('admin', 'DELETE', `/apikey/${stored[0]!.id}`);
    expect(removed.status).toBe(200);
    expect(removed.text).toBe('');
    expect((await as(apiKey(value), 'GET', '/user')).status).toBe(401);
    expect(await ok(call('admin', 'GET', `/user/${playerId}/keys`))).toEqual([]);
    expect((await call('admin', 'DELETE', `/apikey/${stored[0]!.id}`)).body).toEqual({
      message: 'ResourceNotFound',
    });
  });

  it("leaves other users' API keys to administrators, and a key never manages keys", async () => {
    const self = people.player!.id;
    const creator = people.creator!.id;
    // Another user's keys: administrators only, as in the reference.
    for (const [method, path] of [
      ['POST', `/apikey/${creator}`],
      ['GET', `/user/${creator}/keys`],
    ] as const) {
      const refused = await call('player', method, path);
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.text).toBe('');
    }
    // The player's own keys, but not with a key of its own (tests/server/users/profile.test.ts).
    const { value } = await ok(call('admin', 'POST', `/apikey/${self}`));
    for (const [method, path] of [
      ['POST', `/apikey/${self}`],
      ['GET', `/user/${self}/keys`],
    ] as const) {
      const refused = await as(apiKey(value), method, path);
      expect(refused.status, `${method} ${path} with a key`).toBe(403);
    }
    expect((await call('admin', 'POST', '/apikey/nobody')).body.message).toBe('ResourceNotFound');
    expect((await call('admin', 'GET', '/user/nobody/keys')).body.message).toBe('ResourceNotFound');
  });

  it('answers the Moodle plugin its service account by name, [0] first', async () => {
    // A name that contains the account's and sorts before it.
    await ok(call('admin', 'POST', '/user', { name: 'a moodle-svc clone', gamespaceLimit: 1 }));
    const { user, headers } = await serviceAccount({
      name: 'moodle-svc',
      role: 'administrator',
      gamespaceLimit: 7,
      serviceAccountClientId: 'moodle',
    });
    expect(user).toMatchObject({ name: 'moodle-svc', isAdmin: true, gamespaceLimit: 7 });
    // As the plugin sends it: its API key in x-api-key, the name as the term.
    const res = await fetch(`${server.url}/api/users?term=moodle-svc`, {
      headers: { ...headers, accept: 'application/json' },
    });
    expect(res.status).toBe(200);
    const found = (await res.json()) as Json[];
    expect(found.map((u) => u.name)).toEqual(['moodle-svc', 'a moodle-svc clone']);
    expect(found[0].gamespaceLimit).toBe(7);
  });

  it('searches users by term, roles, scope and service accounts, skip and take', async () => {
    for (const [name, role, scope] of [
      ['lab ann', 'creator', 'red blue'],
      ['lab ben', 'observer', 'blue'],
      ['lab cid', 'user', 'green'],
      ['lab dee', 'builder', ''],
    ] as const) {
      await ok(call('admin', 'POST', '/user', { name, role, scope }));
    }
    const names = async (query: string) =>
      ((await ok(call('admin', 'GET', `/users${query}`))) as Json[]).map((u) => u.name);
    expect(await names('?term=lab')).toEqual(['lab ann', 'lab ben', 'lab cid', 'lab dee']);
    expect(await names('?term=LAB&skip=1&take=2')).toEqual(['lab ben', 'lab cid']);
    expect(await names('?Term=lab&filter=creator')).toEqual(['lab ann']);
    expect(await names('?term=lab&filter=observer&filter=builder')).toEqual(['lab ben', 'lab dee']);
    expect(await names('?term=lab&scope=blue')).toEqual(['lab ann', 'lab ben']);
    expect(await names('?isServiceAccount=true')).toEqual(['moodle-svc']);
    expect(await names('?isserviceaccount=true')).toEqual(['moodle-svc']);
    const byId = await ok(call('admin', 'GET', `/users?term=${people.player!.id.slice(0, 8)}`));
    expect(byId.map((u: Json) => u.id)).toEqual([people.player!.id]);
    expect(await ok(call('admin', 'GET', '/user/scopes'))).toEqual(
      expect.arrayContaining(['blue', 'green', 'red']),
    );
    for (const bad of ['?take=1001', '?filter=wizard', '?skip=-1', '?isServiceAccount=maybe']) {
      expect((await call('admin', 'GET', `/users${bad}`)).status, bad).toBe(400);
    }
    for (const path of ['/users', '/user/scopes']) {
      expect((await call('creator', 'GET', path)).status).toBe(403);
    }
  });

  it('adds and changes users through POST /api/user, fields left out kept', async () => {
    const added = await ok(
      call('admin', 'POST', '/user', { name: 'Dana', scope: 'red', workspaceLimit: 3 }),
    );
    expect(added).toMatchObject({
      name: 'Dana',
      scope: 'red',
      workspaceLimit: 3,
      role: 'user',
      appRole: 'user',
      isRegistrar: false,
    });
    expect(added.id).toMatch(/^[0-9a-f]{32}$/);
    const changed = await ok(
      call('admin', 'POST', '/user', { id: added.id, role: 2, gamespaceLimit: 5 }),
    );
    expect(changed).toMatchObject({
      name: 'Dana',
      scope: 'red',
      workspaceLimit: 3,
      gamespaceLimit: 5,
      role: 'creator',
      isCreator: true,
    });
    expect(await ok(call('admin', 'GET', `/user/${added.id}`))).toEqual(changed);

    const refusals: Array<[Record<string, unknown>, string]> = [
      [{ scope: 'no name' }, 'name'],
      [{ id: added.id, role: 'wizard' }, 'role'],
      [{ id: added.id, role: true }, 'role'],
      [{ id: added.id, workspaceLimit: -1 }, 'workspaceLimit'],
      [{ id: added.id, name: 'x'.repeat(65) }, 'name'],
    ];
    for (const [body, field] of refusals) {
      const refused = await call('admin', 'POST', '/user', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.text).toContain(field);
    }
    const taken = await call('admin', 'POST', '/user', {
      id: added.id,
      serviceAccountClientId: 'moodle',
    });
    expect(taken.body).toEqual({ message: 'ResourceAlreadyExists' });
    expect((await call('creator', 'POST', '/user', { id: added.id, role: 'user' })).status).toBe(
      403,
    );
  });

  it('shows a user to itself and to admins only', async () => {
    const own = await ok(call('player', 'GET', `/user/${people.player!.id}`));
    expect(own).toEqual(await ok(call('player', 'GET', '/user')));
    const seen = await ok(call('admin', 'GET', `/user/${people.player!.id}`));
    expect(seen).toMatchObject({ id: people.player!.id, name: 'Player', role: 'user' });
    expect((await call('player', 'GET', `/user/${people.creator!.id}`)).status).toBe(403);
    expect((await call('admin', 'GET', '/user/nobody')).body).toEqual({
      message: 'ResourceNotFound',
    });
  });

  it('lets an account set as registrar through POST /api/user register other people', async () => {
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Registrar lab', audience: 'everyone' }),
    );
    const gameboard = await serviceAccount({ name: 'gameboard', gamespaceLimit: 10 });
    const registration = {
      resourceId: ws.id,
      players: [{ subjectId: people.player!.id, subjectName: 'Player' }],
    };
    const refused = await as(gameboard.headers, 'POST', '/gamespace', registration);
    expect(refused.status).toBe(403);

    const flagged = await ok(
      call('admin', 'POST', '/user', { id: gameboard.user.id, isRegistrar: true }),
    );
    expect(flagged.isRegistrar).toBe(true);
    const game = await ok(as(gameboard.headers, 'POST', '/gamespace', registration));
    const players = await ok(call('player', 'GET', `/user/${people.player!.id}/gamespaces`));
    expect(players.map((g: Json) => g.id)).toContain(game.id);

    const unflagged = await ok(
      call('admin', 'POST', '/user', { id: gameboard.user.id, isRegistrar: false }),
    );
    expect(unflagged.isRegistrar).toBe(false);
    expect((await as(gameboard.headers, 'POST', '/gamespace', registration)).status).toBe(403);
  });

  it('lists a user’s workspaces and gamespaces to itself and admins, and says who may author', async () => {
    const ws = await ok(call('creator', 'POST', '/workspace', { name: 'Creator lab' }));
    const mine = await ok(call('creator', 'GET', `/user/${people.creator!.id}/workspaces`));
    expect(mine.map((w: Json) => w.id)).toContain(ws.id);
    expect(mine[0]).toHaveProperty('slug');
    expect(await ok(call('admin', 'GET', `/user/${people.creator!.id}/workspaces`))).toEqual(mine);
    for (const path of ['workspaces', 'gamespaces']) {
      expect((await call('player', 'GET', `/user/${people.creator!.id}/${path}`)).status).toBe(403);
    }
    // A creator may; a plain user under the default limit of 0 who works on nothing may not.
    expect(await ok(call('player', 'GET', `/user/${people.creator!.id}/worker`))).toBe(true);
    expect(await ok(call('creator', 'GET', `/user/${people.player!.id}/worker`))).toBe(false);
    await server.app.store.db
      .insertInto('workers')
      .values({
        workspaceId: ws.id,
        subjectId: people.player!.id,
        subjectName: 'Player',
        permission: 1,
      })
      .execute();
    expect(await ok(call('player', 'GET', `/user/${people.player!.id}/worker`))).toBe(true);
  });

  it('closes a disabled user’s hub connections at once, and refuses its calls', async () => {
    await person('dis');
    const client = await connect(server.url, people.dis!.headers);
    clients.push(client);
    const disabled = await ok(
      call('admin', 'POST', '/user', { id: people.dis!.id, role: 'disabled' }),
    );
    expect(disabled.role).toBe('disabled');
    await closedAtOnce(client);
    expect((await call('dis', 'GET', '/user')).body).toEqual({ message: 'UserDisabled' });
  });

  it('deletes a user with its keys and favorites, keeps its worker and player rows, closes its hub connections', async () => {
    await person('leaver');
    const id = people.leaver!.id;
    const db = server.app.store.db;
    const ws = await ok(
      call('creator', 'POST', '/workspace', { name: 'Shared', audience: 'everyone' }),
    );
    await db
      .insertInto('workers')
      .values({ workspaceId: ws.id, subjectId: id, subjectName: 'leaver', permission: 1 })
      .execute();
    const game = await ok(call('leaver', 'POST', '/gamespace', { resourceId: ws.id }));
    await ok(call('leaver', 'PUT', `/workspace-favorite/${ws.id}`));
    const { value } = await ok(call('admin', 'POST', `/apikey/${id}`));
    const client = await connect(server.url, people.leaver!.headers);
    clients.push(client);

    // Nobody else but an admin: a player may not delete the creator.
    expect((await call('player', 'DELETE', `/user/${people.creator!.id}`)).status).toBe(403);
    const deleted = await call('leaver', 'DELETE', `/user/${id}`);
    expect(deleted.status, deleted.text).toBe(200);
    await closedAtOnce(client);

    expect(await db.selectFrom('users').select('id').where('id', '=', id).execute()).toEqual([]);
    expect(await db.selectFrom('apiKeys').select('id').where('userId', '=', id).execute()).toEqual(
      [],
    );
    expect((await as(apiKey(value), 'GET', '/user')).status).toBe(401);
    expect(
      await db.selectFrom('workspaceFavorites').select('id').where('userId', '=', id).execute(),
    ).toEqual([]);
    const workers = await db
      .selectFrom('workers')
      .selectAll()
      .where('subjectId', '=', id)
      .execute();
    expect(workers).toHaveLength(1);
    const players = await db
      .selectFrom('players')
      .selectAll()
      .where('subjectId', '=', id)
      .execute();
    expect(players.map((p) => p.gamespaceId)).toEqual([game.id]);
    expect((await call('admin', 'DELETE', `/user/${id}`)).body).toEqual({
      message: 'ResourceNotFound',
    });
  });

  it('lets an administrator delete itself while another administrator remains', async () => {
    const second = await serviceAccount({ name: 'second admin', role: 'administrator' });
    const deleted = await as(second.headers, 'DELETE', `/user/${second.user.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((await as(second.headers, 'GET', '/user')).status).toBe(401);
  });
});
