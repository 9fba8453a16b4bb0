import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';
import { connect, ticketFor, until } from '../hubClients';

// Local accounts managed by an administrator (issue 17; our own routes, not the reference's):
// giving a user added through POST /api/user a sign-in, changing a password, disabling an
// account. Who else may call them is the authorization matrix's (tests/server/authz).

describe.each(testEngines())('local accounts on %s', (engine) => {
  let server: TestServer;
  let admin: Record<string, string>;
  let player: Record<string, string>;

  const ok = async (reply: Promise<Reply>): Promise<Json> => {
    const r = await reply;
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const call = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers, method, path, body);
  const bearer = async (username: string, password: string) => {
    const { accessToken } = await signIn(server.url, username, password);
    return { authorization: `Bearer ${accessToken}` };
  };
  /** Whether the provider lets `username` in with `password`. */
  const signsIn = async (username: string, password: string) =>
    !(await signIn(server.url, username, password)).refusedPage;

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    admin = await bearer('admin', SEED_PASSWORD);
    await ok(call(admin, 'POST', '/user/register'));
    player = await bearer('player', SEED_PASSWORD);
    await ok(call(player, 'POST', '/user/register'));
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('gives a new user a local account whose password signs in as that user', async () => {
    const user = await ok(call(admin, 'POST', '/user', { name: 'Dana Example' }));
    expect(await ok(call(admin, 'GET', `/user/${user.id}/account`))).toEqual({
      username: null,
      disabled: false,
    });
    const account = await ok(
      call(admin, 'PUT', `/user/${user.id}/password`, {
        password: 'first password',
        username: 'Dana',
      }),
    );
    expect(account).toEqual({ username: 'dana', disabled: false });

    const dana = await bearer('dana', 'first password');
    expect((await ok(call(dana, 'GET', '/user'))).id).toBe(user.id);

    await ok(call(admin, 'PUT', `/user/${user.id}/password`, { password: 'second password' }));
    expect(await signsIn('dana', 'first password')).toBe(false);
    expect(await signsIn('dana', 'second password')).toBe(true);
  });

  it('refuses a username that another account has, and a short password', async () => {
    const user = await ok(call(admin, 'POST', '/user', { name: 'Someone' }));
    const taken = await call(admin, 'PUT', `/user/${user.id}/password`, {
      password: 'long enough',
      username: 'player',
    });
    expect(taken.status).toBe(400);
    expect(taken.body.message).toMatch(/^ResourceAlreadyExists/);
    const short = await call(admin, 'PUT', `/user/${user.id}/password`, { password: 'short' });
    expect(short.status).toBe(400);
    const missing = await call(admin, 'PUT', '/user/nobody-at-all/password', {
      password: 'long enough',
    });
    expect(missing.body.message).toBe('ResourceNotFound');
  });

  it('keeps a disabled account out until it is enabled again', async () => {
    const user = await ok(call(admin, 'POST', '/user', { name: 'Erin' }));
    await ok(call(admin, 'PUT', `/user/${user.id}/password`, { password: 'erin password' }));
    expect(await signsIn('erin', 'erin password')).toBe(true);

    expect(await ok(call(admin, 'PUT', `/user/${user.id}/disabled`, { disabled: true }))).toEqual({
      username: 'erin',
      disabled: true,
    });
    const refused = await signIn(server.url, 'erin', 'erin password');
    expect(refused.refusedPage).toBeDefined();

    await ok(call(admin, 'PUT', `/user/${user.id}/disabled`, { disabled: false }));
    expect(await signsIn('erin', 'erin password')).toBe(true);
  });

  it('refuses the tokens a disabled account already holds at once, until it is enabled', async () => {
    const user = await ok(call(admin, 'POST', '/user', { name: 'Gale' }));
    await ok(call(admin, 'PUT', `/user/${user.id}/password`, { password: 'gale password' }));
    const gale = await bearer('gale', 'gale password');
    await ok(call(gale, 'POST', '/user/register'));
    const cookie = (await call(gale, 'POST', '/user/login')).headers.get('set-cookie');
    const console = { cookie: String(cookie).split(';')[0]! };
    // An API key is a credential of its own that administrators manage: it is not a sign-in.
    const { value } = await ok(call(admin, 'POST', `/apikey/${user.id}`));
    const key = { 'x-api-key': value as string };
    const hub = await connect(server.url, gale);
    const ticket = await ticketFor(server.url, gale);

    await ok(call(admin, 'PUT', `/user/${user.id}/disabled`, { disabled: true }));
    const refused = await call(gale, 'GET', '/user');
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe('UserDisabled');
    expect((await call({ authorization: `Ticket ${ticket}` }, 'POST', '/user/login')).status).toBe(
      400,
    );
    expect((await call(console, 'GET', '/user/ping')).status).toBe(400);
    await until(() => hub.connection.state === 'Disconnected');
    expect((await ok(call(key, 'GET', '/user'))).id).toBe(user.id);

    await ok(call(admin, 'PUT', `/user/${user.id}/disabled`, { disabled: false }));
    expect((await ok(call(gale, 'GET', '/user'))).id).toBe(user.id);
    expect((await call(console, 'GET', '/user/ping')).status).toBe(200);
  });

  it('answers only administrators', async () => {
    const user = await ok(call(admin, 'POST', '/user', { name: 'Frank' }));
    await ok(call(admin, 'PUT', `/user/${user.id}/password`, { password: 'frank password' }));
    expect((await call(player, 'GET', `/user/${user.id}/account`)).status).toBe(403);
    const changed = await call(player, 'PUT', `/user/${user.id}/password`, {
      password: 'stolen password',
    });
    expect(changed.status).toBe(403);
    const disabled = await call(player, 'PUT', `/user/${user.id}/disabled`, { disabled: true });
    expect(disabled.status).toBe(403);
    expect(await signsIn('frank', 'frank password')).toBe(true);
  });
});
