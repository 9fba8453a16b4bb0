import { createHash, randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import {
  calculateJwkThumbprint,
  createLocalJWKSet,
  decodeProtectedHeader,
  jwtVerify,
  type JWK,
} from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { openStore, type Store } from '../store/db';
import { createAccount, registerIdentity } from './index';
import { freePort } from '../../tests/server/ports';

const CLIENT_ID = 'topoplay-spa';
const SPA_ORIGIN = 'http://localhost:5173';
const REDIRECT_URI = `${SPA_ORIGIN}/oidc/callback`;
const POST_LOGOUT_URI = `${SPA_ORIGIN}/`;
const AUDIENCE = 'topoplay-api';

interface Running {
  store: Store;
  issuer: string;
  origin: string;
  jwks: { keys: JWK[] };
  logged: Array<{ level: string; obj: unknown; msg?: string }>;
  close(): Promise<void>;
}

async function start(url: string, schema?: string): Promise<Running> {
  const store = await openStore({ url, schema });
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const issuer = `${origin}/identity`;
  const logged: Running['logged'] = [];
  const app = Fastify();
  const { jwks } = await registerIdentity(app, {
    issuer,
    db: store.db,
    apiAudience: AUDIENCE,
    appName: 'Topoplay <Test>',
    clients: [
      {
        clientId: CLIENT_ID,
        redirectUris: [REDIRECT_URI],
        postLogoutRedirectUris: [POST_LOGOUT_URI],
      },
    ],
    logger: {
      warn: (obj, msg) => logged.push({ level: 'warn', obj, msg }),
      error: (obj, msg) => logged.push({ level: 'error', obj, msg }),
    },
  });
  await app.listen({ port, host: '127.0.0.1' });
  return {
    store,
    issuer,
    origin,
    jwks,
    logged,
    close: async () => {
      await app.close();
      await store.close();
    },
  };
}

/** A browser's cookie handling, enough for one host: names, paths and deletions. */
class CookieJar {
  private cookies = new Map<string, { value: string; path: string }>();

  store(response: Response): void {
    for (const header of response.headers.getSetCookie()) {
      const [pair = '', ...attributes] = header.split(';').map((s) => s.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const attr = (key: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
      const expires = attr('expires');
      const path = attr('path') ?? '/';
      const key = `${name} ${path}`;
      if (!value || (expires && Date.parse(expires) <= Date.now())) this.cookies.delete(key);
      else this.cookies.set(key, { value, path });
    }
  }

  get(name: string): string | undefined {
    return [...this.cookies.entries()].find(([key]) => key.split(' ')[0] === name)?.[1].value;
  }

  set(name: string, value: string, path = '/'): void {
    this.cookies.set(`${name} ${path}`, { value, path });
  }

  header(url: string): string {
    const { pathname } = new URL(url);
    return [...this.cookies.entries()]
      .filter(([, c]) => pathname === c.path || pathname.startsWith(c.path.replace(/\/?$/, '/')))
      .map(([key, c]) => `${key.split(' ')[0]}=${c.value}`)
      .join('; ');
  }
}

class Browser {
  readonly jar = new CookieJar();

  constructor(private readonly origin: string) {}

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const absolute = new URL(url, this.origin).href;
    const headers = new Headers(init.headers);
    const cookie = this.jar.header(absolute);
    if (cookie) headers.set('cookie', cookie);
    const response = await fetch(absolute, { ...init, headers, redirect: 'manual' });
    this.jar.store(response);
    return response;
  }

  /** Follows redirects on this origin; stops at the first response that is not one, or leaves. */
  async follow(response: Response): Promise<Response> {
    let current = response;
    while (current.status >= 300 && current.status < 400) {
      const location = new URL(current.headers.get('location')!, current.url || this.origin);
      if (location.origin !== this.origin) return current;
      current = await this.fetch(location.href);
    }
    return current;
  }

  postForm(url: string, form: Record<string, string>, headers: Record<string, string> = {}) {
    return this.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form).toString(),
    });
  }
}

function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

function authorizeUrl(issuer: string, params: Record<string, string | undefined>): string {
  const url = new URL(`${issuer}/auth`);
  const defaults = {
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    response_type: 'code',
    scope: 'openid profile',
    state: 'state-1',
    nonce: 'nonce-1',
  };
  for (const [key, value] of Object.entries({ ...defaults, ...params })) {
    if (value !== undefined) url.searchParams.set(key, value);
  }
  return url.href;
}

const formAction = (html: string) => /<form method="post" action="([^"]+)"/.exec(html)?.[1];

/** Authorizes through the login page; returns the redirect to the client and the PKCE verifier. */
async function signIn(
  server: Running,
  browser: Browser,
  credentials: { username: string; password: string },
  params: Record<string, string> = {},
): Promise<{ redirect: URL; verifier: string }> {
  const { verifier, challenge } = pkce();
  const loginPage = await browser.follow(
    await browser.fetch(
      authorizeUrl(server.issuer, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
        ...params,
      }),
    ),
  );
  const done = await browser.follow(
    await browser.postForm(formAction(await loginPage.text())!, credentials),
  );
  expect(done.status).toBe(303);
  return { redirect: new URL(done.headers.get('location')!), verifier };
}

describe.each(testEngines())('embedded identity provider on %s', (engine) => {
  let database: TestDatabase | undefined;
  let server: Running;
  let accountId: string;

  beforeAll(async () => {
    // SQLite runs in memory here; the restart test below uses a file.
    if (engine === 'postgres') database = await createTestDatabase(engine);
    server = await start(database?.url ?? ':memory:', database?.schema);
    ({ id: accountId } = await createAccount(server.store.db, {
      username: 'alice',
      name: 'Alice Example',
      password: 'correct horse battery staple',
    }));
  });

  afterAll(async () => {
    await server?.close();
    await database?.cleanup();
  });

  it('advertises its endpoints under the /identity prefix', async () => {
    const response = await fetch(`${server.issuer}/.well-known/openid-configuration`, {
      headers: { origin: SPA_ORIGIN },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBeTruthy();
    const discovery = (await response.json()) as Record<string, unknown>;
    expect(discovery).toMatchObject({
      issuer: server.issuer,
      authorization_endpoint: `${server.issuer}/auth`,
      token_endpoint: `${server.issuer}/token`,
      jwks_uri: `${server.issuer}/jwks`,
      userinfo_endpoint: `${server.issuer}/me`,
      end_session_endpoint: `${server.issuer}/session/end`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'profile']));
  });

  it('publishes only public signing keys, the same ones registerIdentity returned', async () => {
    const published = (await (await fetch(`${server.issuer}/jwks`)).json()) as { keys: JWK[] };
    expect(published.keys.map((k) => k.kid)).toEqual(server.jwks.keys.map((k) => k.kid));
    for (const key of [...published.keys, ...server.jwks.keys]) {
      expect(key).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(key).not.toHaveProperty('d');
      expect(key).not.toHaveProperty('p');
      expect(key.kid).toBe(await calculateJwkThumbprint(key));
    }
  });

  it('signs a user in with authorization code and PKCE and issues tokens the API can verify', async () => {
    const browser = new Browser(server.origin);
    const { verifier, challenge } = pkce();

    const authorize = await browser.fetch(
      authorizeUrl(server.issuer, { code_challenge: challenge, code_challenge_method: 'S256' }),
    );
    expect(authorize.status).toBe(303);
    expect(authorize.headers.get('location')).toMatch(/^\/identity\/interaction\/[\w-]+$/);

    const loginPage = await browser.follow(authorize);
    expect(loginPage.status).toBe(200);
    expect(loginPage.headers.get('content-type')).toMatch(/^text\/html/);
    expect(loginPage.headers.get('cache-control')).toBe('no-store');
    expect(loginPage.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    const html = await loginPage.text();
    expect(html).toContain('Topoplay &lt;Test&gt;');
    expect(html).not.toContain('Topoplay <Test>');
    expect(html).toContain('<h1>Sign in</h1>');
    expect(html).toContain('<label for="username">Username</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toMatch(/<input id="username"/);
    expect(html).toMatch(/<input id="password"[^>]*type="password"/);
    expect(html).toMatch(/<button type="submit">Sign in<\/button>/);
    const action = formAction(html)!;
    expect(action).toMatch(/^\/identity\/interaction\/[\w-]+\/login$/);

    const wrong = await browser.postForm(action, {
      username: 'alice',
      password: 'wrong password',
    });
    expect([200, 401]).toContain(wrong.status);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain('Invalid username or password.');
    expect(wrongHtml).toContain('value="alice"');
    expect(wrongHtml).not.toContain('wrong password');

    const right = await browser.postForm(formAction(wrongHtml)!, {
      username: 'alice',
      password: 'correct horse battery staple',
    });
    expect(right.status).toBe(303);
    const callback = await browser.follow(right);
    expect(callback.status).toBe(303);
    const redirect = new URL(callback.headers.get('location')!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('state')).toBe('state-1');
    expect(redirect.searchParams.get('iss')).toBe(server.issuer);
    const code = redirect.searchParams.get('code');
    expect(code).toBeTruthy();

    const token = await browser.postForm(
      `${server.issuer}/token`,
      {
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: verifier,
      },
      { origin: SPA_ORIGIN },
    );
    expect(token.status).toBe(200);
    expect(token.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    const tokens = (await token.json()) as Record<string, string>;
    expect(tokens.token_type).toBe('Bearer');

    const keys = createLocalJWKSet(server.jwks);
    const access = await jwtVerify(tokens.access_token!, keys, {
      issuer: server.issuer,
      audience: AUDIENCE,
    });
    expect(access.protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(access.payload).toMatchObject({ sub: accountId, name: 'Alice Example' });
    expect(String(access.payload.scope).split(' ')).toEqual(
      expect.arrayContaining(['openid', 'profile']),
    );

    const id = await jwtVerify(tokens.id_token!, keys, {
      issuer: server.issuer,
      audience: CLIENT_ID,
    });
    expect(id.payload).toMatchObject({
      sub: accountId,
      name: 'Alice Example',
      preferred_username: 'alice',
      nonce: 'nonce-1',
    });

    // userinfo accepts the API access token (a browser client reads the profile there).
    const userinfo = await fetch(`${server.issuer}/me`, {
      headers: { authorization: `Bearer ${tokens.access_token}`, origin: SPA_ORIGIN },
    });
    expect(userinfo.status).toBe(200);
    expect(userinfo.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(await userinfo.json()).toEqual({
      sub: accountId,
      name: 'Alice Example',
      preferred_username: 'alice',
    });
    const noToken = await fetch(`${server.issuer}/me`);
    expect(noToken.status).toBe(401);
    const idTokenAsAccess = await fetch(`${server.issuer}/me`, {
      headers: { authorization: `Bearer ${tokens.id_token}` },
    });
    expect(idTokenAsAccess.status).toBe(401);

    // The refresh token renews the access token (rotating the refresh token).
    expect(tokens.refresh_token).toBeTruthy();
    const refreshed = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: CLIENT_ID,
    });
    expect(refreshed.status).toBe(200);
    const renewed = (await refreshed.json()) as Record<string, string>;
    const renewedAccess = await jwtVerify(renewed.access_token!, keys, {
      issuer: server.issuer,
      audience: AUDIENCE,
    });
    expect(renewedAccess.payload).toMatchObject({ sub: accountId, name: 'Alice Example' });
    expect(renewed.refresh_token).not.toBe(tokens.refresh_token);

    // The code is single-use, and replaying it revokes everything issued from it.
    const replay = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    });
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as { error: string }).error).toBe('invalid_grant');

    const revoked = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: renewed.refresh_token!,
      client_id: CLIENT_ID,
    });
    expect(revoked.status).toBe(400);

    // A second authorization in the same browser session needs no login and no consent.
    const again = pkce();
    const silent = await browser.follow(
      await browser.fetch(
        authorizeUrl(server.issuer, {
          code_challenge: again.challenge,
          code_challenge_method: 'S256',
          prompt: 'none',
        }),
      ),
    );
    expect(silent.status).toBe(303);
    const secondCode = new URL(silent.headers.get('location')!).searchParams.get('code');
    expect(secondCode).toBeTruthy();
    const second = (await (
      await browser.postForm(`${server.issuer}/token`, {
        grant_type: 'authorization_code',
        code: secondCode!,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: again.verifier,
      })
    ).json()) as Record<string, string>;
    expect(second.refresh_token).toBeTruthy();

    // Sign-out: the end-session page submits itself and returns to the application.
    const endSession = await browser.fetch(
      `${server.issuer}/session/end?${new URLSearchParams({
        id_token_hint: tokens.id_token!,
        post_logout_redirect_uri: POST_LOGOUT_URI,
        state: 'bye',
      })}`,
    );
    expect(endSession.status).toBe(200);
    const logoutHtml = await endSession.text();
    expect(logoutHtml).toContain('id="op.logoutForm"');
    expect(logoutHtml).toContain('<script>');
    const confirmAction = /action="([^"]+)"/.exec(logoutHtml)![1]!;
    expect(new URL(confirmAction).pathname).toBe('/identity/session/end/confirm');
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(logoutHtml)![1]!;
    const confirmed = await browser.postForm(confirmAction, { xsrf, logout: 'yes' });
    expect(confirmed.status).toBe(303);
    const back = new URL(confirmed.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(POST_LOGOUT_URI);
    expect(back.searchParams.get('state')).toBe('bye');

    // After sign-out the session is gone: a silent authorization needs a login.
    const afterLogout = await browser.follow(
      await browser.fetch(
        authorizeUrl(server.issuer, {
          code_challenge: again.challenge,
          code_challenge_method: 'S256',
          prompt: 'none',
        }),
      ),
    );
    expect(new URL(afterLogout.headers.get('location')!).searchParams.get('error')).toBe(
      'login_required',
    );
    // ...and the refresh tokens of that session (without offline_access) ended with it.
    const stale = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token!,
      client_id: CLIENT_ID,
    });
    expect(stale.status).toBe(400);

    expect(server.logged.filter((entry) => entry.level === 'error')).toEqual([]);
  });

  it('refuses an unknown client with an error page that shows no internals', async () => {
    const { challenge } = pkce();
    const response = await fetch(
      authorizeUrl(server.issuer, {
        client_id: 'intruder',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(response.status).toBe(400);
    const html = await response.text();
    expect(html).toContain('invalid_client');
    expect(html).not.toMatch(/at .*\.js|node_modules|stack/i);
  });

  it('refuses response types other than code', async () => {
    const { challenge } = pkce();
    const response = await fetch(
      authorizeUrl(server.issuer, {
        response_type: 'id_token token',
        code_challenge: challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual' },
    );
    expect(response.status).toBeGreaterThanOrEqual(300);
    const location = response.headers.get('location');
    if (location) {
      const error =
        new URL(location).searchParams.get('error') ??
        new URLSearchParams(new URL(location).hash.slice(1)).get('error');
      expect(error).toBe('unsupported_response_type');
    } else {
      expect(response.status).toBe(400);
    }
  });

  it('refuses an authorization request without PKCE, or with the plain method', async () => {
    const without = await fetch(authorizeUrl(server.issuer, {}), { redirect: 'manual' });
    expect(without.status).toBe(303);
    const withoutError = new URL(without.headers.get('location')!);
    expect(withoutError.searchParams.get('error')).toBe('invalid_request');
    expect(withoutError.searchParams.get('code')).toBeNull();

    const plain = await fetch(
      authorizeUrl(server.issuer, {
        code_challenge: randomBytes(32).toString('base64url'),
        code_challenge_method: 'plain',
      }),
      { redirect: 'manual' },
    );
    expect(new URL(plain.headers.get('location')!).searchParams.get('error')).toBe(
      'invalid_request',
    );
  });

  it('refuses a token request whose code_verifier does not match', async () => {
    const browser = new Browser(server.origin);
    const { redirect } = await signIn(server, browser, {
      username: 'Alice',
      password: 'correct horse battery staple',
    });
    const token = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: pkce().verifier,
    });
    expect(token.status).toBe(400);
    expect(((await token.json()) as { error: string }).error).toBe('invalid_grant');
  });

  it('grants consent by itself when a client asks for it with prompt=consent', async () => {
    const browser = new Browser(server.origin);
    const credentials = { username: 'alice', password: 'correct horse battery staple' };
    await signIn(server, browser, credentials);
    const { verifier, challenge } = pkce();
    const authorize = await browser.fetch(
      authorizeUrl(server.issuer, {
        code_challenge: challenge,
        code_challenge_method: 'S256',
        scope: 'openid profile offline_access',
        prompt: 'consent',
      }),
    );
    // The consent interaction happens, and answers without showing a page.
    expect(authorize.headers.get('location')).toMatch(/^\/identity\/interaction\//);
    const done = await browser.follow(authorize);
    expect(done.status).toBe(303);
    const code = new URL(done.headers.get('location')!).searchParams.get('code');
    expect(code).toBeTruthy();
    const token = await browser.postForm(`${server.issuer}/token`, {
      grant_type: 'authorization_code',
      code: code!,
      redirect_uri: REDIRECT_URI,
      client_id: CLIENT_ID,
      code_verifier: verifier,
    });
    expect(token.status).toBe(200);
    const tokens = (await token.json()) as Record<string, string>;
    expect(tokens.refresh_token).toBeTruthy();
    const access = await jwtVerify(tokens.access_token!, createLocalJWKSet(server.jwks), {
      issuer: server.issuer,
      audience: AUDIENCE,
    });
    expect(access.payload.sub).toBeTruthy();
  });

  it('returns access_denied to the client when the user cancels the sign-in', async () => {
    const browser = new Browser(server.origin);
    const loginPage = await browser.follow(
      await browser.fetch(
        authorizeUrl(server.issuer, {
          code_challenge: pkce().challenge,
          code_challenge_method: 'S256',
        }),
      ),
    );
    const abort = /<a class="secondary" href="([^"]+)"/.exec(await loginPage.text())![1]!;
    const done = await browser.follow(await browser.fetch(abort));
    const redirect = new URL(done.headers.get('location')!);
    expect(`${redirect.origin}${redirect.pathname}`).toBe(REDIRECT_URI);
    expect(redirect.searchParams.get('error')).toBe('access_denied');
  });

  it('answers the token endpoint only to the origins of the clients', async () => {
    const browser = new Browser(server.origin);
    const { redirect, verifier } = await signIn(server, browser, {
      username: 'alice',
      password: 'correct horse battery staple',
    });
    const foreign = await browser.postForm(
      `${server.issuer}/token`,
      {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: verifier,
      },
      { origin: 'http://evil.example' },
    );
    expect(foreign.status).toBe(400);
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();

    const preflight = await fetch(`${server.issuer}/me`, {
      method: 'OPTIONS',
      headers: { origin: SPA_ORIGIN, 'access-control-request-method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(SPA_ORIGIN);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    const foreignPreflight = await fetch(`${server.issuer}/me`, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(foreignPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('sets cookies without Secure over plain http, even when a client claims https', async () => {
    const response = await fetch(
      authorizeUrl(server.issuer, {
        code_challenge: pkce().challenge,
        code_challenge_method: 'S256',
      }),
      { redirect: 'manual', headers: { 'x-forwarded-proto': 'https' } },
    );
    const cookies = response.headers.getSetCookie();
    expect(cookies.length).toBeGreaterThan(0);
    for (const cookie of cookies) {
      expect(cookie).toMatch(/httponly/i);
      expect(cookie).toMatch(/samesite=lax/i);
      expect(cookie).not.toMatch(/;\s*secure/i);
    }
  });

  it('shows an error page for an interaction this browser did not start', async () => {
    const response = await fetch(`${server.issuer}/interaction/not-a-real-uid`);
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('expired');
  });

  it('reuses the signing key, cookie keys and sessions stored by an earlier start', async () => {
    // SQLite: a file of its own. PostgreSQL: the suite's schema (a second schema in the same
    // database would trip Kysely's migrator, which looks for its tables in every schema).
    const persistent =
      engine === 'sqlite'
        ? await createTestDatabase(engine)
        : { ...database!, cleanup: async () => {} };
    const running: Running[] = [];
    try {
      const first = await start(persistent.url, persistent.schema);
      running.push(first);
      const firstKid = first.jwks.keys[0]!.kid;
      await createAccount(first.store.db, {
        username: `bob-${engine}`,
        name: 'Bob',
        password: 'pw-bob-123',
      });
      const browser = new Browser(first.origin);
      await signIn(first, browser, { username: `bob-${engine}`, password: 'pw-bob-123' });
      await running.pop()!.close();

      const second = await start(persistent.url, persistent.schema);
      running.push(second);
      expect(second.jwks.keys.map((k) => k.kid)).toEqual([firstKid]);

      // The session cookie signed by the first process is honoured by the second.
      const moved = new Browser(second.origin);
      for (const name of ['_session', '_session.sig']) {
        const value = browser.jar.get(name);
        expect(value).toBeTruthy();
        moved.jar.set(name, value!);
      }
      const again = pkce();
      const silent = await moved.follow(
        await moved.fetch(
          authorizeUrl(second.issuer, {
            code_challenge: again.challenge,
            code_challenge_method: 'S256',
            prompt: 'none',
          }),
        ),
      );
      const code = new URL(silent.headers.get('location')!).searchParams.get('code');
      expect(code).toBeTruthy();
      const token = await moved.postForm(`${second.issuer}/token`, {
        grant_type: 'authorization_code',
        code: code!,
        redirect_uri: REDIRECT_URI,
        client_id: CLIENT_ID,
        code_verifier: again.verifier,
      });
      const { access_token: accessToken } = (await token.json()) as { access_token: string };
      expect(decodeProtectedHeader(accessToken).kid).toBe(firstKid);
    } finally {
      for (const server of running) await server.close();
      await persistent.cleanup();
    }
  });
});
