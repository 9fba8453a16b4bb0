import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { newApiKey, newId, sha256Hex } from '../../../server/core/ids';
import { loggerOptions, REDACTED } from '../../../server/logging';
import { createTestDatabase, type TestDatabase } from '../databases';
import { freePort, SEED_PASSWORD } from '../harness';
import { HANDSHAKE, rawConnect, ticketFor } from '../hubClients';
import { signIn } from '../oidc';

// The server's log (server/logging.ts), read from a real server at LOG_LEVEL=debug (a line for
// every request): JSON lines with the request id, and no credential in any of them after a
// sign-in, API-key calls, tickets, hub connections and the links that carry tokens.

/** Collects what the logger writes, line by line. */
function logSink() {
  const lines: string[] = [];
  let partial = '';
  const stream = new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      const text = partial + chunk.toString();
      const parts = text.split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts.filter(Boolean));
      done();
    },
  });
  return { stream, lines };
}

describe('the server log', () => {
  const sink = logSink();
  let app: App;
  let url: string;
  let dataDir: string;
  let database: TestDatabase;
  /** Every credential the test uses: none may appear in the log. */
  const secrets = new Map<string, string>();
  const keep = (what: string, value: string) => {
    expect(value.length, what).toBeGreaterThan(8);
    secrets.set(what, value);
    return value;
  };
  const json = () => sink.lines.map((line) => JSON.parse(line) as Record<string, unknown>);

  beforeAll(async () => {
    const port = await freePort();
    url = `http://127.0.0.1:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'topoplay-logs-'));
    database = await createTestDatabase('sqlite');
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: url,
      TOPOPLAY_DATA: dataDir,
      TOPOPLAY_SPA: join(dataDir, 'no-spa'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: database.url,
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      JANITOR_ENABLED: 'false',
      RATE_LIMIT_ANONYMOUS: '0',
      RATE_LIMIT_CREDENTIALS: '0',
    });
    app = await buildApp(config, { logDestination: sink.stream });
    await app.app.listen({ port, host: '127.0.0.1' });
  });
  afterAll(async () => {
    await app?.close();
    await database?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('writes no credential after sign-ins, API keys, tickets, hub connections and links', async () => {
    keep('password', SEED_PASSWORD);
    // A sign-in through the embedded identity provider, and calls with its access token.
    const { accessToken, idToken } = await signIn(url, 'player', SEED_PASSWORD);
    keep('access token', accessToken);
    keep('ID token', idToken);
    const bearer = { authorization: `Bearer ${accessToken}` };
    expect((await fetch(`${url}/api/user`, { headers: bearer })).status).toBe(200);
    await fetch(`${url}/identity/session/end?id_token_hint=${idToken}`);

    // An API key, in its header and as an unknown one.
    const account = await app.store.db
      .selectFrom('identityAccounts')
      .select('id')
      .where('username', '=', 'creator')
      .executeTakeFirstOrThrow();
    const key = keep('API key', newApiKey());
    await app.store.db
      .insertInto('apiKeys')
      .values({
        id: newId(),
        userId: account.id,
        name: 'logs',
        hash: sha256Hex(key),
        whenCreated: Date.now(),
      })
      .execute();
    const withKey = { 'x-api-key': key };
    expect((await fetch(`${url}/api/user`, { headers: withKey })).status).toBe(200);
    const wrongKey = keep('wrong API key', newApiKey());
    expect((await fetch(`${url}/api/user`, { headers: { 'x-api-key': wrongKey } })).status).toBe(
      401,
    );

    // Tickets: the hub with skipNegotiation (?access_token=) and negotiated (?id=), a console.
    const ticket = keep('hub ticket', await ticketFor(url, withKey));
    const direct = await rawConnect(url, `?access_token=${ticket}`);
    direct.send(HANDSHAKE);
    await direct.next((m) => Object.keys(m).length === 0);
    direct.socket.close();
    const negotiated = keep('negotiate ticket', await ticketFor(url, withKey));
    const negotiation = (await (
      await fetch(`${url}/hub/negotiate?negotiateVersion=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${negotiated}` },
      })
    ).json()) as { connectionToken: string };
    const connectionToken = keep('connection token', negotiation.connectionToken);
    const viaNegotiate = await rawConnect(url, `?id=${connectionToken}`);
    viaNegotiate.socket.close();
    const consoleTicket = keep('console ticket', newApiKey());
    await fetch(`${url}/api/console/vnc/${newId()}?ticket=${consoleTicket}`);
    const ticketInQuery = keep('ticket in a query', await ticketFor(url, withKey));
    // In any case of the name; refused (GET /api/user takes no tickets), and logged.
    await fetch(`${url}/api/user?TICKET=${ticketInQuery}`);

    // Links that carry tokens or invitation codes, and a cookie.
    const links = {
      launch: `/lp?t=${keep('launch token', newApiKey())}&g=${newId()}`,
      launchCode: `/lp?c=${keep('launch code', newApiKey())}`,
      console: `/mks/?f=1&s=${newId()}&v=web&t=${keep('console link ticket', newApiKey())}`,
      oldConsole: `/c?sessionId=x&name=web&token=${keep('old console token', newApiKey())}`,
      callback: `/oidc?code=${keep('authorization code', newApiKey())}&state=x`,
      gameInvite: `/mojo/${newId()}/lab/${keep('game invitation', newApiKey())}`,
      workspaceInvite: `/topo/${newId()}/invite/${keep('workspace invitation', newApiKey())}`,
    };
    for (const link of Object.values(links)) {
      await fetch(`${url}${link}`, {
        headers: { cookie: `topomojo.mks=${keep('cookie', newApiKey())}` },
      });
    }
    const joinCode = keep('join code', newApiKey());
    await fetch(`${url}/api/player/${joinCode}`, {
      method: 'POST',
      headers: { ...withKey, 'content-type': 'application/json' },
      body: '{}',
    });
    // A log call that carries headers has them redacted too.
    const header = keep('logged header', newApiKey());
    app.app.log.info({ headers: { authorization: `Bearer ${header}` } }, 'headers');

    const lines = json();
    // The log has teeth: the requests are there, with their values replaced.
    const urls = lines.map((l) => (l.req as { url?: string } | undefined)?.url).filter(Boolean);
    expect(urls).toContain(`/hub?access_token=${REDACTED}`);
    expect(urls).toContain(`/hub?id=${REDACTED}`);
    expect(urls).toContain(`/api/player/${REDACTED}`);
    expect(urls).toContain(links.launch.replace(/t=[^&]+/, `t=${REDACTED}`));
    expect(lines.find((l) => l.msg === 'headers')?.headers).toEqual({ authorization: REDACTED });

    const leaks = [...secrets].flatMap(([what, value]) =>
      sink.lines.filter((line) => line.includes(value)).map((line) => `${what}: ${line}`),
    );
    expect(leaks).toEqual([]);
  });

  it('puts the request id on every request line, and echoes it', async () => {
    const given = 'probe-7f3a.12:ab';
    const res = await fetch(`${url}/api/health/live`, { headers: { 'x-request-id': given } });
    expect(res.headers.get('x-request-id')).toBe(given);
    const lines = json().filter((l) => l.reqId === given);
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);

    // A long id, or one with other characters, is replaced by a new one.
    for (const unsafe of ['x'.repeat(65), 'two words', '{"a":1}']) {
      const replaced = (
        await fetch(`${url}/api/health/live`, { headers: { 'x-request-id': unsafe } })
      ).headers.get('x-request-id');
      expect(replaced).toMatch(/^[0-9a-f-]{36}$/);
    }
    const refused = await fetch(`${url}/api/workspaces`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);

    const requestLines = json().filter((l) => l.req || l.res);
    expect(requestLines.length).toBeGreaterThan(10);
    expect(requestLines.filter((l) => typeof l.reqId !== 'string')).toEqual([]);
  });
});

describe('the log format', () => {
  async function logOnce(logFormat: 'json' | 'pretty' | undefined) {
    const sink = logSink();
    const app = Fastify({
      logger: await loggerOptions({ logLevel: 'info', logFormat }, sink.stream),
    });
    app.log.info({ ticket: 'x' }, 'hello from the test');
    await app.close();
    await expect.poll(() => sink.lines.length).toBeGreaterThan(0);
    return sink.lines;
  }

  /** Runs `work` with process.stdout.isTTY as given. */
  async function withTerminal<T>(isTTY: boolean, work: () => Promise<T>): Promise<T> {
    const before = Object.getOwnPropertyDescriptor(process.stdout, 'isTTY');
    Object.defineProperty(process.stdout, 'isTTY', { value: isTTY, configurable: true });
    try {
      return await work();
    } finally {
      if (before) Object.defineProperty(process.stdout, 'isTTY', before);
      else delete (process.stdout as { isTTY?: boolean }).isTTY;
    }
  }

  const isJson = (line: string) => {
    try {
      JSON.parse(line);
      return true;
    } catch {
      return false;
    }
  };

  it('writes JSON lines when stdout is not a terminal, pretty lines when it is', async () => {
    const piped = await withTerminal(false, () => logOnce(undefined));
    expect(piped.every(isJson)).toBe(true);
    expect(JSON.parse(piped[0] ?? '')).toMatchObject({ level: 30, msg: 'hello from the test' });

    const terminal = await withTerminal(true, () => logOnce(undefined));
    expect(terminal.some(isJson)).toBe(false);
    expect(terminal.join('\n')).toMatch(/INFO.*hello from the test/);
  });

  it('follows LOG_FORMAT whatever stdout is', async () => {
    const pretty = await withTerminal(false, () => logOnce('pretty'));
    expect(pretty.some(isJson)).toBe(false);
    const json = await withTerminal(true, () => logOnce('json'));
    expect(json.every(isJson)).toBe(true);
  });
});
