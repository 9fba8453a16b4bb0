import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../server/core/ids';
import { ANONYMOUS_WINDOW_MS, CREDENTIAL_FAILURE_WINDOW_MS } from '../../../server/http/rateLimit';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { signIn } from '../oidc';

// Per-address limits on routes that need no sign-in and on refused API keys and tickets: 429
// with Retry-After once over, counted in Redis when REDIS_URL is set so that every server
// process shares them.

const retryAfter = (res: Response) => Number(res.headers.get('retry-after'));

describe('anonymous routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_ANONYMOUS: '8' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 429 with Retry-After past the limit, on every route that needs no sign-in', async () => {
    // Signed in first: the sign-in's own requests to /identity count too.
    const { accessToken } = await signIn(server.url, 'player', SEED_PASSWORD);
    const version = () => fetch(`${server.url}/api/health/version`);
    let answered = await version();
    for (let i = 0; i < 10 && answered.status === 200; i++) answered = await version();
    expect(answered.status).toBe(429);
    expect(retryAfter(answered)).toBeGreaterThanOrEqual(1);
    expect(retryAfter(answered)).toBeLessThanOrEqual(ANONYMOUS_WINDOW_MS / 1000);
    expect(await answered.json()).toEqual({ message: 'TooManyRequests' });

    const others = await Promise.all([
      fetch(`${server.url}/api/player/enlist`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: 'nope' }),
      }),
      fetch(`${server.url}/hub/negotiate?negotiateVersion=1`, { method: 'POST' }),
      fetch(`${server.url}/identity/.well-known/openid-configuration`),
    ]);
    expect(others.map((r) => r.status)).toEqual([429, 429, 429]);
    expect(others.every((r) => retryAfter(r) >= 1)).toBe(true);

    // Signed-in calls are not anonymous ones.
    const user = await fetch(`${server.url}/api/user`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(user.status).toBe(200);
  });
});

describe('refused API keys and tickets', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_CREDENTIALS: '3' } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('counts 401s to requests that carried one, then answers 429 to requests carrying one', async () => {
    const { accessToken } = await signIn(server.url, 'player', SEED_PASSWORD);
    const apiKey = await server.apiKeyFor('player');
    const withKey = (key: string) =>
      fetch(`${server.url}/api/user`, { headers: { 'x-api-key': key } });
    const withTicket = (ticket: string) =>
      fetch(`${server.url}/api/user/login?ticket=${ticket}`, { method: 'POST' });

    // A good key is no failure; a request without a credential is not counted either.
    expect((await withKey(apiKey)).status).toBe(200);
    expect((await fetch(`${server.url}/api/user`)).status).toBe(401);
    expect((await withKey('guess-1')).status).toBe(401);
    expect((await withTicket('guess-2')).status).toBe(401);
    expect((await withKey('guess-3')).status).toBe(401);

    for (const refused of [
      await withKey('guess-4'),
      await withTicket('guess-5'),
      await withKey(apiKey),
    ]) {
      expect(refused.status).toBe(429);
      expect(retryAfter(refused)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(refused)).toBeLessThanOrEqual(CREDENTIAL_FAILURE_WINDOW_MS / 1000);
    }
    // Bearer tokens are signed: nothing to guess, so they are not held back.
    const user = await fetch(`${server.url}/api/user`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(user.status).toBe(200);
  });
});

// Two server processes (two apps here) sharing one Redis share their counters.
const REDIS_URL = process.env.REDIS_URL ?? '';

describe.skipIf(!REDIS_URL)('limits shared through Redis (skipped without REDIS_URL)', () => {
  const prefix = `topoplay-test-${newId().slice(0, 12)}:`;
  const servers: TestServer[] = [];
  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      servers.push(
        await startTestServer({
          env: {
            REDIS_URL,
            REDIS_PREFIX: prefix,
            RATE_LIMIT_ANONYMOUS: '4',
            RATE_LIMIT_CREDENTIALS: '2',
          },
        }),
      );
    }
  });
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts an address’s requests on every server', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const version = (s: TestServer) => fetch(`${s.url}/api/health/version`);
    const statuses = [];
    for (const s of [a, b, a, b, a, b]) statuses.push((await version(s)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);

    const guess = (s: TestServer) =>
      fetch(`${s.url}/api/user`, { headers: { 'x-api-key': `guess-${newId()}` } });
    const guesses = [];
    for (const s of [a, b, a, b]) guesses.push((await guess(s)).status);
    expect(guesses).toEqual([401, 401, 429, 429]);
  });
});
