import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testEngines } from '../databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { apiKey } from '../hubClients';
import { signIn } from '../oidc';
import { apiRequest, type Json, type Reply } from '../api';

// The last-administrator rule (security issue 26, finding 4): somebody must still be able to sign
// in and administer users. Administrators whose local sign-in is disabled, or who have no way to
// sign in at all (an API key only, with the embedded identity provider), do not count; and no
// administrator may disable its own account.

const LAST_ADMINISTRATOR = { message: 'InvalidOperation LastAdministrator' };
const CANNOT_DISABLE_SELF = { message: 'InvalidOperation CannotDisableSelf' };

describe.each(testEngines())('administrators who can sign in on %s', (engine) => {
  let server: TestServer;
  let admin: { id: string; headers: Record<string, string> };
  /** A second administrator with a local sign-in of its own. */
  let second: { id: string; headers: Record<string, string> };
  /** An administrator with an API key and no local account: it cannot sign in. */
  let keyOnly: { id: string; headers: Record<string, string> };

  const call = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers, method, path, body);
  const ok = async (reply: Promise<Reply>): Promise<Json> => {
    const r = await reply;
    expect(r.status, r.text).toBe(200);
    return r.body;
  };
  const bearer = async (username: string, password: string) => {
    const { accessToken } = await signIn(server.url, username, password);
    return { authorization: `Bearer ${accessToken}` };
  };
  const setDisabled = (by: Record<string, string>, id: string, disabled: boolean) =>
    call(by, 'PUT', `/user/${id}/disabled`, { disabled });

  beforeAll(async () => {
    server = await startTestServer({ engine, env: { SIM_SPEED: '0' } });
    const adminHeaders = await bearer('admin', SEED_PASSWORD);
    admin = {
      id: (await ok(call(adminHeaders, 'POST', '/user/register'))).id,
      headers: adminHeaders,
    };

    const added = await ok(
      call(admin.headers, 'POST', '/user', { name: 'Second', role: 'administrator' }),
    );
    await ok(
      call(admin.headers, 'PUT', `/user/${added.id}/password`, {
        password: 'second password',
        username: 'second',
      }),
    );
    const secondHeaders = await bearer('second', 'second password');
    await ok(call(secondHeaders, 'POST', '/user/register'));
    second = { id: added.id, headers: secondHeaders };

    const service = await ok(
      call(admin.headers, 'POST', '/user', { name: 'Key only', role: 'administrator' }),
    );
    const { value } = await ok(call(admin.headers, 'POST', `/apikey/${service.id}`));
    keyOnly = { id: service.id, headers: apiKey(value as string) };
  }, 60_000);

  afterAll(async () => {
    await server?.close();
  });

  it('keeps the one administrator left able to sign in from demoting or deleting itself, and tells why', async () => {
    // Another administrator may disable the second one: the first can still sign in.
    await ok(setDisabled(admin.headers, second.id, true));

    const demoted = await call(admin.headers, 'POST', '/user', { id: admin.id, role: 'user' });
    expect(demoted.status).toBe(400);
    expect(demoted.body).toEqual(LAST_ADMINISTRATOR);
    const disabledRole = await call(admin.headers, 'POST', '/user', {
      id: admin.id,
      role: 'disabled',
    });
    expect(disabledRole.status).toBe(400);
    const deleted = await call(admin.headers, 'DELETE', `/user/${admin.id}`);
    expect(deleted.status).toBe(400);
    expect(deleted.body).toEqual(LAST_ADMINISTRATOR);
    expect(await ok(call(admin.headers, 'GET', '/user'))).toMatchObject({
      id: admin.id,
      isAdmin: true,
    });

    // Able to sign in again, the second one counts: the first may step down, and is put back.
    await ok(setDisabled(admin.headers, second.id, false));
    expect(
      await ok(call(admin.headers, 'POST', '/user', { id: admin.id, role: 'user' })),
    ).toMatchObject({ isAdmin: false });
    await ok(call(second.headers, 'POST', '/user', { id: admin.id, role: 'administrator' }));
    expect((await ok(call(admin.headers, 'GET', '/user'))).isAdmin).toBe(true);
  });

  it('refuses an administrator disabling its own account, however many others there are', async () => {
    const own = await setDisabled(admin.headers, admin.id, true);
    expect(own.status).toBe(400);
    expect(own.body).toEqual(CANNOT_DISABLE_SELF);
    // Nor by its role, which blocks as much.
    const ownRole = await call(admin.headers, 'POST', '/user', { id: admin.id, role: 'disabled' });
    expect(ownRole.status).toBe(400);
    expect(ownRole.body).toEqual(CANNOT_DISABLE_SELF);

    expect(await ok(call(admin.headers, 'GET', `/user/${admin.id}/account`))).toEqual({
      username: 'admin',
      disabled: false,
    });
    expect((await ok(call(admin.headers, 'GET', '/user'))).role).toBe('administrator');
    // Enabling oneself changes nothing and is no harm.
    await ok(setDisabled(admin.headers, admin.id, false));
  });

  it('keeps an administrator without a sign-in from disabling the last one who has one', async () => {
    await ok(setDisabled(admin.headers, second.id, true));
    const refused = await setDisabled(keyOnly.headers, admin.id, true);
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual(LAST_ADMINISTRATOR);
    const demoted = await call(keyOnly.headers, 'POST', '/user', { id: admin.id, role: 'user' });
    expect(demoted.body).toEqual(LAST_ADMINISTRATOR);
    expect(await ok(call(admin.headers, 'GET', '/user'))).toMatchObject({ isAdmin: true });

    // An administrator that cannot sign in may itself be demoted or deleted.
    await ok(call(admin.headers, 'POST', '/user', { id: keyOnly.id, role: 'user' }));
    await ok(setDisabled(admin.headers, second.id, false));
  });
});
