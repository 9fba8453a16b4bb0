import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../server/app';
import { TICKET_TTL_MS } from '../../server/auth/authenticate';
import { ROLE_NUMBERS } from '../../server/core/roles';
import { CREDENTIALS_FILE } from '../../server/plugins/seed';
import { CSRF_HEADER } from '../../server/http/security';
import { testEngines } from './databases';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (res: Response): Promise<any> => res.json();

describe.each(testEngines())('authentication and users on %s', (engine) => {
  let server: TestServer;
  let adminToken = '';
  let playerToken = '';
  let creatorToken = '';

  beforeAll(async () => {
    server = await startTestServer({ engine });
    const tokens = await Promise.all(
      ['admin', 'player', 'creator'].map(
        async (u) => (await signIn(server.url, u, SEED_PASSWORD)).accessToken,
      ),
    );
    adminToken = tokens[0] ?? '';
    playerToken = tokens[1] ?? '';
    creatorToken = tokens[2] ?? '';
  });
  afterAll(async () => server?.close());
  afterEach(() => {
    vi.useRealTimers();
  });

  const api = (path: string, init: RequestInit = {}) => fetch(`${server.url}/api${path}`, init);
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  it('serves the SPA settings generated from the configuration', async () => {
    const res = await fetch(`${server.url}/assets/settings.json`);
    expect(res.status).toBe(200);
    const settings = await json(res);
    expect(settings).toMatchObject({
      appname: 'Topoplay',
      apphost: '',
      mkshost: '',
      oidc: {
        authority: `${server.url}/identity`,
        client_id: 'topoplay-ui',
        redirect_uri: `${server.url}/oidc`,
        silent_redirect_uri: `${server.url}/oidc-silent`,
        response_type: 'code',
      },
    });
    expect(typeof settings.oidc.autoLogin).toBe('boolean');
    expect(typeof settings.oidc.useLocalStorage).toBe('boolean');
  });

  it('seeds one account per role on first start and writes the credentials file for the owner only', async () => {
    const file = join(server.dataDir, CREDENTIALS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const text = readFileSync(file, 'utf8');
    for (const username of ['admin', 'creator', 'observer', 'player'])
      expect(text).toContain(username);
    expect(text).toContain(SEED_PASSWORD);
    const roles = await server.app.store.db
      .selectFrom('users')
      .select(['name', 'role'])
      .orderBy('name')
      .execute();
    expect(roles).toEqual([
      { name: 'Administrator', role: ROLE_NUMBERS.administrator },
      { name: 'Creator', role: ROLE_NUMBERS.creator },
      { name: 'Observer', role: ROLE_NUMBERS.observer },
      { name: 'Player', role: ROLE_NUMBERS.user },
    ]);
  });

  it('does not seed again when the database already has users', async () => {
    const again = await buildApp(server.app.config, { logger: false });
    try {
      expect(again.seeded).toBeNull();
    } finally {
      await again.close();
    }
  });

  it('refuses a wrong password with a clear message', async () => {
    const result = await signIn(server.url, 'admin', 'not-the-password');
    expect(result.accessToken).toBe('');
    expect(result.refusedPage).toContain('Invalid username or password.');
  });

  it('answers 401 with WWW-Authenticate when no credential is given', async () => {
    const res = await api('/user');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/Bearer/);
  });

  it('answers 401 for a token that is not signed by the authority', async () => {
    const [h, p] = adminToken.split('.');
    const res = await api('/user', { headers: bearer(`${h}.${p}.invalidsignature`) });
    expect(res.status).toBe(401);
  });

  it('resolves the bearer token to the stored user with the effective role', async () => {
    const res = await api('/user', { headers: bearer(adminToken) });
    expect(res.status).toBe(200);
    const user = await json(res);
    expect(user).toMatchObject({
      id: await server.userId('admin'),
      name: 'Administrator',
      role: 'administrator',
      isAdmin: true,
      isObserver: true,
      isCreator: true,
      isBuilder: true,
    });
    const player = await json(await api('/user', { headers: bearer(playerToken) }));
    expect(player).toMatchObject({ role: 'user', isAdmin: false, isObserver: false });
  });

  it('registers the caller, returns the user and sets the console cookie', async () => {
    const res = await api('/user/register', {
      method: 'POST',
      headers: { ...bearer(playerToken), 'content-type': 'application/json' },
      body: JSON.stringify({ sub: 'ignored', name: 'ignored' }),
    });
    expect(res.status).toBe(200);
    const user = await json(res);
    expect(user).toMatchObject({ name: 'Player', role: 'user', appRole: 'user' });
    expect(user.whenCreated).toMatch(/^\d{4}-\d\d-\d\dT.*\+00:00$/);
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
  });

  const csrf = { [CSRF_HEADER]: 'XMLHttpRequest' };

  async function consoleCookie(token: string) {
    const res = await api('/user/register', { method: 'POST', headers: bearer(token) });
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('topomojo.mks='));
    return (cookie ?? '').split(';')[0] ?? '';
  }

  it('accepts the console cookie only where the reference does', async () => {
    const cookie = await consoleCookie(playerToken);
    expect((await api('/user/ping', { headers: { cookie } })).status).toBe(200);
    // A change made with the cookie carries the CSRF header (a bare cross-site POST cannot).
    expect((await api('/user/login', { method: 'POST', headers: { cookie } })).status).toBe(403);
    const login = await api('/user/login', { method: 'POST', headers: { cookie, ...csrf } });
    expect(login.status).toBe(200);
    // The default policy takes bearer tokens and API keys, not the cookie.
    expect((await api('/user', { headers: { cookie } })).status).toBe(401);
    expect((await api('/user/ping', { headers: { cookie: 'topomojo.mks=forged' } })).status).toBe(
      401,
    );
  });

  it('clears the cookie on logout', async () => {
    const cookie = await consoleCookie(playerToken);
    const res = await api('/user/logout', { method: 'POST', headers: { cookie, ...csrf } });
    expect(res.status).toBe(200);
    expect(res.headers.getSetCookie().join()).toMatch(/topomojo\.mks=;.*Max-Age=0/);
  });

  it('issues one-time tickets that work once', async () => {
    const res = await api('/user/ticket', { headers: bearer(playerToken) });
    expect(res.status).toBe(200);
    const { ticket } = await json(res);
    expect(ticket).toMatch(/^[0-9a-f]{32}$/);
    const first = await api(`/user/login?ticket=${ticket}`, { method: 'POST' });
    expect(first.status).toBe(200);
    expect(first.headers.getSetCookie().join()).toContain('topomojo.mks=');
    expect((await api(`/user/login?ticket=${ticket}`, { method: 'POST' })).status).toBe(401);
  });

  it('accepts a ticket from the access_token key and the Ticket and Bearer schemes', async () => {
    const ticket = async () =>
      (await json(await api('/user/ticket', { headers: bearer(playerToken) }))).ticket;
    expect(
      (await api(`/user/login?access_token=${await ticket()}`, { method: 'POST' })).status,
    ).toBe(200);
    expect(
      (
        await api('/user/login', {
          method: 'POST',
          headers: { authorization: `Ticket ${await ticket()}` },
        })
      ).status,
    ).toBe(200);
    expect(
      (
        await api('/user/login', {
          method: 'POST',
          headers: { authorization: `Bearer ${await ticket()}` },
        })
      ).status,
    ).toBe(200);
    // Tickets are not accepted by the default policy.
    expect(
      (await api('/user', { headers: { authorization: `Ticket ${await ticket()}` } })).status,
    ).toBe(401);
  });

  it('expires tickets after 30 seconds', async () => {
    const { ticket } = await json(await api('/user/ticket', { headers: bearer(playerToken) }));
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + TICKET_TTL_MS + 1_000 });
    expect((await api(`/user/login?ticket=${ticket}`, { method: 'POST' })).status).toBe(401);
  });

  it('authenticates a user API key from x-api-key or the ApiKey scheme', async () => {
    const key = await server.apiKeyFor('creator');
    const viaHeader = await api('/user', { headers: { 'x-api-key': key } });
    expect(viaHeader.status).toBe(200);
    expect(await json(viaHeader)).toMatchObject({ name: 'Creator', role: 'creator' });
    expect((await api('/user', { headers: { authorization: `ApiKey ${key} test` } })).status).toBe(
      200,
    );
    expect((await api('/user', { headers: { 'x-api-key': `${key}x` } })).status).toBe(401);
    const ticket = await json(await api('/user/ticket', { headers: { 'x-api-key': key } }));
    expect(ticket.ticket).toMatch(/^[0-9a-f]{32}$/);
  });

  it('answers a disabled user with 400 UserDisabled', async () => {
    const key = await server.apiKeyFor('observer');
    await server.app.store.db
      .updateTable('users')
      .set({ role: ROLE_NUMBERS.disabled })
      .where('id', '=', await server.userId('observer'))
      .execute();
    try {
      const res = await api('/user', { headers: { 'x-api-key': key } });
      expect(res.status).toBe(400);
      expect(await json(res)).toEqual({ message: 'UserDisabled' });
    } finally {
      await server.app.store.db
        .updateTable('users')
        .set({ role: ROLE_NUMBERS.observer })
        .where('id', '=', await server.userId('observer'))
        .execute();
    }
  });

  it('reports the version', async () => {
    const res = await api('/version', { headers: bearer(playerToken) });
    expect(await json(res)).toEqual({ commit: expect.any(String) });
    expect((await api('/version')).status).toBe(401);
  });

  describe('workspaces', () => {
    const post = (token: string, body: unknown) =>
      api('/workspace', {
        method: 'POST',
        headers: { ...bearer(token), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });

    it('lets a creator create a workspace it manages', async () => {
      const res = await post(creatorToken, { name: 'Workspace Title' });
      expect(res.status).toBe(200);
      const ws = await json(res);
      expect(ws).toMatchObject({
        name: 'Workspace Title',
        author: 'Creator',
        templates: [],
        workers: [
          { subjectName: 'Creator', permission: 'manager', canManage: true, canEdit: true },
        ],
      });
      expect(ws.id).toMatch(/^[0-9a-f]{32}$/);
      const again = await api(`/workspace/${ws.id}`, { headers: bearer(creatorToken) });
      expect(again.status).toBe(200);
      expect((await json(again)).name).toBe('Workspace Title');
    });

    it('reads property names case-insensitively', async () => {
      const ws = await json(await post(creatorToken, { Name: 'Pascal' }));
      expect(ws.name).toBe('Pascal');
    });

    it('refuses a user over the workspace limit with 403 and an empty body', async () => {
      const res = await post(playerToken, { name: 'Nope' });
      expect(res.status).toBe(403);
      expect(await res.text()).toBe('');
    });

    it('requires a name', async () => {
      const res = await post(creatorToken, { description: 'no name' });
      expect(res.status).toBe(400);
      expect((await json(res)).errors.name).toBeDefined();
    });

    it('hides a workspace from someone who does not work on it (403, empty body)', async () => {
      const ws = await json(await post(creatorToken, { name: 'Private' }));
      const res = await api(`/workspace/${ws.id}`, { headers: bearer(playerToken) });
      expect(res.status).toBe(403);
      expect(await res.text()).toBe('');
      // Admins pass every check.
      expect((await api(`/workspace/${ws.id}`, { headers: bearer(adminToken) })).status).toBe(200);
    });

    it('answers an unknown id with 400 ResourceNotFound', async () => {
      const res = await api('/workspace/0123456789abcdef0123456789abcdef', {
        headers: bearer(creatorToken),
      });
      expect(res.status).toBe(400);
      const body = await json(res);
      expect(body.message).toBe('ResourceNotFound');
      expect(body.errors).toEqual({ id: ['ResourceNotFound'] });
    });
  });
});
