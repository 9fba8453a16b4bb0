import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, type App } from '../../server/app';
import { loadConfig } from '../../server/config';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { createAccount } from '../../server/identity';
import { createTestDatabase, testEngines, type TestDatabase } from './databases';
import { SEED_PASSWORD } from './harness';
import { apiKey } from './hubClients';
import { signIn } from './oidc';

// An actor's gamespace limit under concurrent launches (wire reference §4.2,
// IsBelowGamespaceLimit): launches of different workspaces by one actor at the same moment
// start at most `gamespaceLimit` gamespaces, the rest are refused with
// ClientGamespaceLimitReached, and another actor's launches meanwhile are neither refused nor
// held up. On one server and, with REDIS_URL, on two servers sharing the database and Redis.

// Response bodies are checked field by field below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

const REDIS_URL = process.env.REDIS_URL ?? '';
const LIMIT = 2;
const LAUNCHES = 5;
/** This suite's ports (two servers at most per engine). */
const PORTS = { sqlite: [6700, 6701], postgres: [6702, 6703] } as const;

interface Reply {
  status: number;
  body: Json;
}

async function call(
  url: string,
  headers: Record<string, string>,
  method: string,
  path: string,
  body?: unknown,
): Promise<Reply> {
  const res = await fetch(`${url}/api${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/**
 * Holds every deploy until `expected` launches reached the servers, so that all the launches
 * fired together are under way at once whatever the engine (a launch whose check does not hold
 * its start would otherwise often finish before the next one is read).
 */
const launches = {
  seen: 0,
  expected: 0,
  waiting: [] as Array<() => void>,
  arrived() {
    this.seen++;
    if (this.seen >= this.expected) for (const go of this.waiting.splice(0)) go();
  },
  all(): Promise<void> {
    if (this.seen >= this.expected) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  },
};

interface Servers {
  urls: string[];
  /** The first server's app: its store reads and writes the shared database. */
  app: App;
  close(): Promise<void>;
}

/** `count` servers on one database (and, for two, one Redis prefix), seeded by the first. */
async function startServers(engine: 'sqlite' | 'postgres', count: number): Promise<Servers> {
  const database: TestDatabase = await createTestDatabase(engine);
  const prefix = `topoplay-test-${newId().slice(0, 12)}:`;
  const dirs: string[] = [];
  const apps: App[] = [];
  const ports = PORTS[engine].slice(0, count);
  for (const port of ports) {
    const dir = mkdtempSync(join(tmpdir(), 'topoplay-test-'));
    dirs.push(dir);
    const config = loadConfig({
      PORT: String(port),
      HOST: '127.0.0.1',
      // One deployment behind one address: the same token issuer.
      TOPOPLAY_URL: `http://127.0.0.1:${ports[0]}`,
      TOPOPLAY_DATA: dir,
      TOPOPLAY_SPA: join(dir, 'no-spa'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: database.url,
      ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
      ...(count > 1 ? { REDIS_URL, REDIS_PREFIX: prefix } : {}),
      LOG_LEVEL: 'warn',
      JANITOR_ENABLED: 'false',
      RATE_LIMIT_ANONYMOUS: '0',
      RATE_LIMIT_CREDENTIALS: '0',
      SIM_SPEED: '0',
    });
    // One after the other: the first start seeds the shared database.
    const app = await buildApp(config, { logger: false });
    await app.app.listen({ port, host: '127.0.0.1' });
    app.app.server.on('request', (req) => {
      const url = req.url ?? '';
      const starts = url === '/api/gamespace' || /^\/api\/gamespace\/[^/]+\/start$/.test(url);
      if (req.method === 'POST' && starts) launches.arrived();
    });
    const deployBatch = app.driver.deployBatch.bind(app.driver);
    app.driver.deployBatch = async (...args) => {
      await launches.all();
      return deployBatch(...args);
    };
    apps.push(app);
  }
  return {
    urls: ports.map((p) => `http://127.0.0.1:${p}`),
    app: apps[0]!,
    async close() {
      for (const app of apps) await app.close();
      await database.cleanup();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function limitSuite(engine: 'sqlite' | 'postgres', serverCount: number) {
  let servers: Servers;
  const headers: Record<string, Record<string, string>> = {};
  const workspaces: string[] = [];

  async function keyFor(username: string): Promise<Record<string, string>> {
    const db = servers.app.store.db;
    const { id } = await db
      .selectFrom('identityAccounts')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    const key = newApiKey();
    await db
      .insertInto('apiKeys')
      .values({ id: newId(), userId: id, name: 'test', hash: sha256Hex(key), whenCreated: 0 })
      .execute();
    return apiKey(key);
  }

  /** A user account with its user row, the given gamespace limit and an API key. */
  async function addUser(username: string, gamespaceLimit: number) {
    const db = servers.app.store.db;
    const url = servers.urls[0]!;
    const { id } = await createAccount(db, { username, name: username, password: SEED_PASSWORD });
    const { accessToken } = await signIn(url, username, SEED_PASSWORD);
    const registered = await call(
      url,
      { authorization: `Bearer ${accessToken}` },
      'POST',
      '/user/register',
    );
    expect(registered.status).toBe(200);
    await db.updateTable('users').set({ gamespaceLimit }).where('id', '=', id).execute();
    ids[username] = id;
    headers[username] = await keyFor(username);
  }

  /** Launches and starts a workspace, through the servers in turn. */
  const launch = (who: string, workspaceId: string, i: number) =>
    call(servers.urls[i % servers.urls.length]!, headers[who]!, 'POST', '/gamespace', {
      resourceId: workspaceId,
      startGamespace: true,
    });

  const ids: Record<string, string> = {};
  /** The user's gamespaces that started and did not end (what the limit counts). */
  const startedOf = (who: string) =>
    servers.app.store.db
      .selectFrom('gamespaces')
      .select(['id', 'workspaceId'])
      .where('managerId', '=', ids[who]!)
      .where('startTime', '>', 0)
      .where('endTime', '<=', 0)
      .execute();
  const running = async (who: string) => (await startedOf(who)).length;

  beforeAll(async () => {
    servers = await startServers(engine, serverCount);
    headers.creator = await keyFor('creator');
    await addUser('limited', LIMIT);
    await addUser('neighbour', LIMIT);
    await addUser('registrant', LIMIT);
    for (let i = 0; i < LAUNCHES; i++) {
      const ws = await call(servers.urls[0]!, headers.creator, 'POST', '/workspace', {
        name: `Lab ${i}`,
        audience: 'everyone',
      });
      expect(ws.status).toBe(200);
      workspaces.push(ws.body.id);
      await servers.app.store.db
        .insertInto('templates')
        .values({
          id: newId(),
          name: 'kali',
          description: '',
          audience: '',
          iso: '',
          networks: 'lan',
          guestinfo: '',
          isHidden: 0,
          isPublished: 0,
          isLinked: 0,
          detail: null,
          parentId: null,
          replicas: 1,
          variant: 0,
          workspaceId: ws.body.id,
          whenCreated: Date.now(),
        })
        .execute();
    }
  }, 90_000);

  afterAll(async () => {
    await servers?.close();
  });

  it('starts exactly the limit of launches fired together, refusing the rest', async () => {
    Object.assign(launches, { seen: 0, expected: LAUNCHES + LIMIT });
    const limited = workspaces.map((ws, i) => launch('limited', ws, i));
    // Another actor launching at the same moment is neither refused nor held up by them.
    const neighbour = workspaces.slice(0, LIMIT).map((ws, i) => launch('neighbour', ws, i + 1));
    const replies = await Promise.all(limited);
    const started = replies.filter((r) => r.status === 200);
    const refused = replies.filter((r) => r.status !== 200);
    expect(started.map((r) => r.body.isActive)).toEqual(Array(LIMIT).fill(true));
    expect(refused).toEqual(
      Array(LAUNCHES - LIMIT).fill({
        status: 400,
        body: { message: 'ClientGamespaceLimitReached' },
      }),
    );
    expect(await running('limited')).toBe(LIMIT);

    const others = await Promise.all(neighbour);
    expect(others.map((r) => [r.status, r.body.isActive])).toEqual(Array(LIMIT).fill([200, true]));
    expect(await running('neighbour')).toBe(LIMIT);
  });

  it('refuses the next launch at the limit, and lets one through once a game ended', async () => {
    const started = await startedOf('limited');
    // Workspaces without a game of the actor (a launch of one with a game reuses that game).
    const idle = workspaces.filter((ws) => !started.some((g) => g.workspaceId === ws));
    const refused = await Promise.all([
      launch('limited', idle[0]!, 0),
      launch('limited', idle[1]!, 1),
    ]);
    expect(refused).toEqual(
      Array(2).fill({ status: 400, body: { message: 'ClientGamespaceLimitReached' } }),
    );

    const complete = await call(
      servers.urls[0]!,
      headers.limited!,
      'POST',
      `/gamespace/${started[0]!.id}/complete`,
    );
    expect(complete.status).toBe(200);
    const after = await Promise.all([
      launch('limited', idle[0]!, 0),
      launch('limited', idle[0]!, 1),
    ]);
    // Both ask for the same workspace: one starts it, the other gets it or finds it locked.
    expect(after.some((r) => r.status === 200 && r.body.isActive)).toBe(true);
    expect(await running('limited')).toBe(LIMIT);
  });

  it('holds the limit when gamespaces registered without a start are started together', async () => {
    const registered = [];
    for (const [i, ws] of workspaces.entries()) {
      const reply = await call(
        servers.urls[i % servers.urls.length]!,
        headers.registrant!,
        'POST',
        '/gamespace',
        { resourceId: ws },
      );
      expect([reply.status, reply.body.isActive]).toEqual([200, false]);
      registered.push(reply.body.id as string);
    }
    Object.assign(launches, { seen: 0, expected: LAUNCHES });
    const replies = await Promise.all(
      registered.map((id, i) =>
        call(
          servers.urls[i % servers.urls.length]!,
          headers.registrant!,
          'POST',
          `/gamespace/${id}/start`,
        ),
      ),
    );
    expect(replies.filter((r) => r.status === 200).map((r) => r.body.isActive)).toEqual(
      Array(LIMIT).fill(true),
    );
    expect(replies.filter((r) => r.status !== 200)).toEqual(
      Array(LAUNCHES - LIMIT).fill({
        status: 400,
        body: { message: 'ClientGamespaceLimitReached' },
      }),
    );
    expect(await running('registrant')).toBe(LIMIT);
  });
}

describe.each(testEngines())('gamespace limit under concurrent launches on %s', (engine) => {
  limitSuite(engine, 1);
});

describe.skipIf(!REDIS_URL).each(testEngines())(
  'gamespace limit across two servers sharing %s and Redis (skipped without REDIS_URL)',
  (engine) => {
    limitSuite(engine, 2);
  },
);
