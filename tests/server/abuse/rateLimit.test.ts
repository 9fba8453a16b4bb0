import { once } from 'node:events';
import { connect } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { newId } from '../../../server/core/ids';
import { ANONYMOUS_WINDOW_MS, CREDENTIAL_FAILURE_WINDOW_MS } from '../../../server/http/rateLimit';
import { SEED_PASSWORD, startTestServer, type TestServer } from '../harness';
import { HANDSHAKE, rawConnect, ticketFor } from '../hubClients';
import { signIn } from '../oidc';

// Per-address limits on routes that need no sign-in and on refused API keys and tickets: 429
// with Retry-After once over, counted in Redis when REDIS_URL is set so that every server
// process shares them. Past the limit of refused credentials, valid ones from the same address
// (everyone else behind a classroom's NAT) are served all the same.

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

  it('closes the connection of a WebSocket upgrade it refuses', async () => {
    // Over the limit already (the test before): an upgrade to the hub is refused, and its
    // socket must not stay open for the client to hold.
    const { port } = new URL(server.url);
    const socket = connect(Number(port), '127.0.0.1');
    await once(socket, 'connect');
    let answer = '';
    socket.on('data', (data: Buffer) => (answer += data.toString('latin1')));
    const ended = once(socket, 'close');
    socket.write(
      'GET /hub HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n' +
        'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    await ended;
    expect(answer).toMatch(/^HTTP\/1\.1 429 /);
  });
});

describe('refused API keys and tickets', () => {
  const LIMIT = 3;
  let server: TestServer;
  let bearer: Record<string, string>;
  let adminKey: string;
  /** A gamespace the administrator launched for the player, with its grader key. */
  let launch: { id: string; graderKey: string; launchTicket: string };
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_CREDENTIALS: String(LIMIT) } });
    bearer = {
      authorization: `Bearer ${(await signIn(server.url, 'player', SEED_PASSWORD)).accessToken}`,
    };
    adminKey = await server.apiKeyFor('admin');
    const admin = { 'x-api-key': adminKey, 'content-type': 'application/json' };
    const workspace = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({ name: 'Limits' }),
    });
    const { id: resourceId } = (await workspace.json()) as { id: string };
    const graderKey = `grader-${newId()}`;
    const launched = await fetch(`${server.url}/api/gamespace`, {
      method: 'POST',
      headers: admin,
      body: JSON.stringify({
        resourceId,
        graderKey,
        players: [{ subjectId: await server.userId('player'), subjectName: 'Player' }],
      }),
    });
    const state = (await launched.json()) as { id: string; launchpointUrl: string };
    launch = {
      id: state.id,
      graderKey,
      launchTicket: new URL(state.launchpointUrl).searchParams.get('t')!,
    };
  });
  afterAll(async () => {
    await server?.close();
  });

  const withKey = (key: string) =>
    fetch(`${server.url}/api/user`, { headers: { 'x-api-key': key } });
  const withTicket = (ticket: string) =>
    fetch(`${server.url}/api/user/login?ticket=${ticket}`, { method: 'POST' });
  const expectThrottled = (res: Response) => {
    expect(res.status).toBe(429);
    expect(retryAfter(res)).toBeGreaterThanOrEqual(1);
    expect(retryAfter(res)).toBeLessThanOrEqual(CREDENTIAL_FAILURE_WINDOW_MS / 1000);
  };

  /** Another client at this address guesses keys until it is held back, within the limit. */
  async function guessUntilThrottled(): Promise<void> {
    let answered = await withKey(`guess-${newId()}`);
    for (let i = 0; i < LIMIT && answered.status === 401; i++) {
      answered = await withKey(`guess-${newId()}`);
    }
    expectThrottled(answered);
  }

  it('counts 401s to requests that carried one, then answers 429 to further refused ones', async () => {
    const apiKey = await server.apiKeyFor('player');
    // A good key is no failure; a request without a credential is not counted either.
    expect((await withKey(apiKey)).status).toBe(200);
    expect((await fetch(`${server.url}/api/user`)).status).toBe(401);
    expect((await withKey('guess-1')).status).toBe(401);
    expect((await withTicket('guess-2')).status).toBe(401);
    expect((await withKey('guess-3')).status).toBe(401);

    for (const refused of [
      await withKey('guess-4'),
      await withTicket('guess-5'),
      await fetch(`${server.url}/hub/negotiate?negotiateVersion=1`, {
        method: 'POST',
        headers: { authorization: 'Bearer guess-6' },
      }),
    ]) {
      expectThrottled(refused);
      expect(await refused.json()).toEqual({ message: 'TooManyRequests' });
    }
    await expect(rawConnect(server.url, '?access_token=guess-7')).rejects.toThrow('status 429');
    // Bearer tokens are signed: nothing to guess, so they are not held back.
    expect((await fetch(`${server.url}/api/user`, { headers: bearer })).status).toBe(200);
  });

  it('serves valid administrator and grader keys from an address over the limit', async () => {
    await guessUntilThrottled();
    const users = await fetch(`${server.url}/api/users`, { headers: { 'x-api-key': adminKey } });
    expect(users.status).toBe(200);
    const graded = await fetch(`${server.url}/api/gamespace/${launch.id}`, {
      headers: { 'x-api-key': launch.graderKey },
    });
    expect(graded.status).toBe(200);
    // The guesser is still held back.
    expectThrottled(await withKey(`guess-${newId()}`));
  });

  it('lets a valid ticket into the hub and signs a launch link in from an address over the limit', async () => {
    const hubTicket = await ticketFor(server.url, bearer);
    const negotiateTicket = await ticketFor(server.url, bearer);
    await guessUntilThrottled();

    const hub = await rawConnect(server.url, `?access_token=${hubTicket}`);
    hub.send(HANDSHAKE);
    expect(await hub.next(() => true)).toEqual({});
    hub.socket.close();
    await hub.closed;
    const negotiated = await fetch(`${server.url}/hub/negotiate?negotiateVersion=1`, {
      method: 'POST',
      headers: { authorization: `Bearer ${negotiateTicket}` },
    });
    expect(negotiated.status).toBe(200);

    const signedIn = await fetch(`${server.url}/api/user/login`, {
      method: 'POST',
      headers: { authorization: `Ticket ${launch.launchTicket}` },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers.getSetCookie().join()).toContain('topomojo.mks=');
    // Spent now, the launch ticket is refused like any guess.
    expectThrottled(await withTicket(launch.launchTicket));
  });
});

describe('refused console tickets', () => {
  const LIMIT = 3;
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { RATE_LIMIT_CREDENTIALS: String(LIMIT) } });
  });
  afterAll(async () => {
    await server?.close();
  });

  /** How a console socket with this ticket ends: its close code and reason. */
  const consoleClose = (ticket: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = new WebSocket(
        `${server.url.replace('http', 'ws')}/api/console/vnc/${newId()}?ticket=${ticket}`,
      );
      socket.once('close', (code, reason) => resolve(`${code} ${reason.toString()}`));
      socket.once('error', reject);
    });

  it("counts them with the address's other refused credentials", async () => {
    for (let i = 0; i < LIMIT; i++) {
      expect(await consoleClose(newId())).toBe('1008 Invalid ticket');
    }
    // The guesses at console tickets count: the next refused key is held back at once.
    const refused = await fetch(`${server.url}/api/user`, { headers: { 'x-api-key': 'guess' } });
    expect(refused.status).toBe(429);
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
    // A valid key is served by either server all the same.
    for (const s of [a, b]) {
      const key = await s.apiKeyFor('player');
      expect((await fetch(`${s.url}/api/user`, { headers: { 'x-api-key': key } })).status).toBe(
        200,
      );
    }
  });
});
