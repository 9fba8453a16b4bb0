import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../../server/identity';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { apiKey, ticketFor } from '../hubClients';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';

// What a signed-in user manages on its profile page (issue 29): its own API keys (the reference's
// AdminOnly key routes, answered to the user itself too) and its password (our own route, with
// the current password). Only from an interactive sign-in: a key never mints keys or sets the
// password. The whole who-may table is the authorization matrix's (tests/server/authz).

describe.each(testEngines())('profile self-service on %s', (engine) => {
  let server: TestServer;
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
  const signsIn = async (username: string, password: string) =>
    !(await signIn(server.url, username, password)).refusedPage;

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

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    for (const username of ['admin', 'player', 'creator', 'walt']) await person(username);
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('lets a user issue, list and revoke its own keys, and lists only its own', async () => {
    const self = people.player!.id;
    await ok(call('admin', 'POST', `/apikey/${people.creator!.id}`));
    const { value } = await ok(call('player', 'POST', `/apikey/${self}`));
    expect((await ok(as(apiKey(value), 'GET', '/user'))).id).toBe(self);

    const keys = await ok(call('player', 'GET', `/user/${self}/keys`));
    const owned = await server.app.store.db
      .selectFrom('apiKeys')
      .select('id')
      .where('userId', '=', self)
      .execute();
    expect(keys.map((k: { id: string }) => k.id).sort()).toEqual(owned.map((k) => k.id).sort());
    // Named after who issued it, as an administrator's are.
    expect(keys.at(-1)).toEqual({
      id: expect.any(String),
      name: 'Player',
      whenCreated: expect.any(String),
    });
    expect(JSON.stringify(keys)).not.toContain(value);

    expect((await call('player', 'DELETE', `/apikey/${keys.at(-1).id}`)).status).toBe(200);
    expect((await as(apiKey(value), 'GET', '/user')).status).toBe(401);
  });

  it("refuses to revoke another user's key, and leaves it working", async () => {
    const { value } = await ok(call('admin', 'POST', `/apikey/${people.creator!.id}`));
    const [theirs] = await ok(call('admin', 'GET', `/user/${people.creator!.id}/keys`));
    const refused = await call('player', 'DELETE', `/apikey/${theirs.id}`);
    expect(refused.status).toBe(403);
    expect((await ok(as(apiKey(value), 'GET', '/user'))).id).toBe(people.creator!.id);
    expect((await call('player', 'DELETE', '/apikey/no-such-key')).body.message).toBe(
      'ResourceNotFound',
    );
  });

  it('never lets a key or a ticket manage keys or the password', async () => {
    const self = people.player!.id;
    const { value } = await ok(call('player', 'POST', `/apikey/${self}`));
    const [key] = await ok(call('player', 'GET', `/user/${self}/keys`));
    const ticket = {
      authorization: `Ticket ${await ticketFor(server.url, people.player!.headers)}`,
    };
    for (const headers of [apiKey(value), ticket]) {
      expect([401, 403]).toContain((await as(headers, 'POST', `/apikey/${self}`)).status);
      expect([401, 403]).toContain((await as(headers, 'DELETE', `/apikey/${key.id}`)).status);
    }
    const changed = await as(apiKey(value), 'PUT', '/user/password', {
      currentPassword: SEED_PASSWORD,
      password: 'taken over by a key',
    });
    expect(changed.status).toBe(401);
    expect(await signsIn('player', SEED_PASSWORD)).toBe(true);
    // The key is still there: nothing above went through.
    expect((await ok(as(apiKey(value), 'GET', '/user'))).id).toBe(self);
  });

  it('refuses a wrong current password and a too-short new one, and changes nothing', async () => {
    const wrong = await call('walt', 'PUT', '/user/password', {
      currentPassword: 'not my password',
      password: 'a brand new one',
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toBe('InvalidOperation WrongPassword');
    const short = await call('walt', 'PUT', '/user/password', {
      currentPassword: SEED_PASSWORD,
      password: 'short',
    });
    expect(short.status).toBe(400);
    expect(await signsIn('walt', SEED_PASSWORD)).toBe(true);
    expect(await signsIn('walt', 'a brand new one')).toBe(false);
  });

  it('changes its own password with the current one; the new one signs in, the old no more', async () => {
    const self = people.walt!.id;
    expect(await ok(call('walt', 'GET', `/user/${self}/account`))).toEqual({
      username: 'walt',
      disabled: false,
    });
    const account = await ok(
      call('walt', 'PUT', '/user/password', {
        currentPassword: SEED_PASSWORD,
        password: 'walt’s new password',
      }),
    );
    expect(account).toEqual({ username: 'walt', disabled: false });
    expect(await signsIn('walt', SEED_PASSWORD)).toBe(false);
    expect(await signsIn('walt', 'walt’s new password')).toBe(true);
  });

  it('tells a user without a local sign-in that it has none, and sets nothing', async () => {
    // A user known to the server but not to the embedded provider, as with an outside provider.
    const user = await ok(call('admin', 'POST', '/user', { name: 'Outsider' }));
    const { value } = await ok(call('admin', 'POST', `/apikey/${user.id}`));
    expect(await ok(as(apiKey(value), 'GET', `/user/${user.id}/account`))).toEqual({
      username: null,
      disabled: false,
    });
    // Signed in, and then its local account removed: as a user of an outside provider is.
    await person('ghost');
    await server.app.store.db
      .deleteFrom('identityAccounts')
      .where('id', '=', people.ghost!.id)
      .execute();
    const none = await call('ghost', 'PUT', '/user/password', {
      currentPassword: SEED_PASSWORD,
      password: 'a brand new one',
    });
    expect(none.status).toBe(400);
    expect(none.body.message).toBe('InvalidOperation NoLocalAccount');
    expect(await signsIn('ghost', 'a brand new one')).toBe(false);
    // Another user's account status stays the administrators'.
    expect((await call('player', 'GET', `/user/${people.walt!.id}/account`)).status).toBe(403);
  });
});
