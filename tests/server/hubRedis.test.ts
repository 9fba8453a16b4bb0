import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRedisCache } from '../../server/core/redisCache';
import { newId } from '../../server/core/ids';
import { createTestDatabase, type TestDatabase } from './databases';
import { freePort, SEED_PASSWORD } from './harness';
import { connect, HANDSHAKE, rawConnect, ticketFor, until, type Client } from './hubClients';
import { signIn } from './oidc';

// Several server processes sharing Redis (REDIS_URL; CI sets it, these suites are skipped
// without it). Each run uses its own key prefix and deletes its keys afterwards.

const REDIS_URL = process.env.REDIS_URL ?? '';
const runPrefix = () => `topoplay-test-${newId().slice(0, 12)}:`;

async function deleteKeys(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    return keys.length;
  } finally {
    redis.disconnect();
  }
}

describe.skipIf(!REDIS_URL)('Redis cache (skipped without REDIS_URL)', () => {
  const prefix = runPrefix();
  const onError = (error: unknown) => {
    throw error;
  };
  const a = createRedisCache({ url: REDIS_URL, prefix, onError });
  const b = createRedisCache({ url: REDIS_URL, prefix, onError });
  // Entries expire on Redis's clock, which a test cannot move: it reads and sets what is left of
  // an entry's lifetime (PTTL, PEXPIRE) through a connection of its own, which slides nothing.
  const redis = REDIS_URL ? new Redis(REDIS_URL) : null;
  const stored = (key: string) => `${prefix}cache:${key}`;
  const lifeLeft = (key: string) => redis!.pttl(stored(key));
  afterAll(async () => {
    await a.close();
    await b.close();
    redis?.disconnect();
    await deleteKeys(prefix);
  });

  it('shares values between server processes and expires them', async () => {
    await a.set('tkt:1', 'user#Name', 150);
    expect(await b.get('tkt:1')).toBe('user#Name');
    expect(await lifeLeft('tkt:1')).toBeGreaterThan(0);
    expect(await lifeLeft('tkt:1')).toBeLessThanOrEqual(150);
    await expect.poll(() => b.get('tkt:1')).toBeNull();
  });

  it('extends a sliding entry on every read', async () => {
    await a.set('launch:1', 'v', 60_000, { sliding: true });
    for (let i = 0; i < 4; i++) {
      // As if most of its lifetime had passed: a read gives it the whole of it again.
      await redis!.pexpire(stored('launch:1'), 5_000);
      expect(await (i % 2 ? a : b).get('launch:1')).toBe('v');
      expect(await lifeLeft('launch:1')).toBeGreaterThan(5_000);
    }
    // Read, then unread for its lifetime: it expires.
    await a.set('launch:2', 'v', 300, { sliding: true });
    expect(await b.get('launch:2')).toBe('v');
    expect(await lifeLeft('launch:2')).toBeGreaterThan(0);
    expect(await lifeLeft('launch:2')).toBeLessThanOrEqual(300);
    await expect.poll(() => redis!.exists(stored('launch:2'))).toBe(0);
    expect(await a.get('launch:2')).toBeNull();
  });

  it('gives a value to exactly one of many concurrent takes', async () => {
    await a.set('tkt:2', 'once', 5_000);
    const taken = await Promise.all([...Array(10)].map((_, i) => (i % 2 ? a : b).take('tkt:2')));
    expect(taken.filter((v) => v === 'once')).toHaveLength(1);
    expect(await a.get('tkt:2')).toBeNull();
  });

  it('stores only when absent, deletes, and keeps values containing colons intact', async () => {
    expect(await a.setIfAbsent('lock:1', 'a:b:c', 5_000)).toBe(true);
    expect(await b.setIfAbsent('lock:1', 'other', 5_000)).toBe(false);
    expect(await b.get('lock:1')).toBe('a:b:c');
    await b.delete('lock:1');
    expect(await a.get('lock:1')).toBeNull();
    expect(await a.setIfAbsent('lock:1', 'again', 5_000)).toBe(true);
  });
});

interface ServerProcess {
  url: string;
  child: ChildProcess;
  output: string[];
  stop(): Promise<void>;
}

/** `node --import tsx tests/server/hubProcess.ts` with the environment; resolves once listening. */
async function startProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'hubProcess.ts')],
    {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const output: string[] = [];
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no READY: ${output.join('')}`)), 90_000);
    child.stdout?.on('data', (d: Buffer) => {
      output.push(d.toString());
      if (d.toString().includes('READY')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => reject(new Error(`exited ${code}: ${output.join('')}`)));
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: `http://127.0.0.1:${env.PORT}`,
    child,
    output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

describe.skipIf(!REDIS_URL)(
  'hub across two server processes sharing Redis and a database (skipped without REDIS_URL)',
  () => {
    const prefix = runPrefix();
    const dirs: string[] = [];
    let database: TestDatabase;
    let a: ServerProcess;
    let b: ServerProcess;
    let adminBearer: Record<string, string> = {};
    let creatorBearer: Record<string, string> = {};
    let workspaceId = '';
    const clients: Client[] = [];

    beforeAll(async () => {
      // PostgreSQL when TEST_DATABASE_URL is set, else one SQLite file both processes open.
      database = await createTestDatabase(process.env.TEST_DATABASE_URL ? 'postgres' : 'sqlite');
      const [portA, portB] = [await freePort(), await freePort()];
      // Both processes stand for one deployment behind one address: the same token issuer.
      const common = {
        HOST: '127.0.0.1',
        TOPOPLAY_URL: `http://127.0.0.1:${portA}`,
        TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
        DATABASE_URL: database.url,
        ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
        REDIS_URL,
        REDIS_PREFIX: prefix,
        LOG_LEVEL: 'warn',
        STATE_CACHE_MS: '10000',
      };
      const dataDir = () => {
        const dir = mkdtempSync(join(tmpdir(), 'topoplay-test-'));
        dirs.push(dir);
        return { TOPOPLAY_DATA: dir, TOPOPLAY_SPA: join(dir, 'no-spa') };
      };
      // One after the other: the first start seeds the shared database.
      a = await startProcess({ ...common, ...dataDir(), PORT: String(portA) });
      b = await startProcess({ ...common, ...dataDir(), PORT: String(portB) });
      adminBearer = {
        authorization: `Bearer ${(await signIn(a.url, 'admin', SEED_PASSWORD)).accessToken}`,
      };
      creatorBearer = {
        authorization: `Bearer ${(await signIn(a.url, 'creator', SEED_PASSWORD)).accessToken}`,
      };
      const res = await fetch(`${b.url}/api/workspace`, {
        method: 'POST',
        headers: { ...creatorBearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Shared lab' }),
      });
      workspaceId = ((await res.json()) as { id: string }).id;
      // Two process starts of up to 90 s each under load (tsx compiles the server in each).
    }, 240_000);

    afterAll(async () => {
      await Promise.all(clients.map((c) => c.stop().catch(() => {})));
      await Promise.all([a?.stop(), b?.stop()]);
      await database?.cleanup();
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
      await deleteKeys(prefix);
    });

    const open = async (
      url: string,
      headers: Record<string, string>,
      ticketUrl = url,
      options: { batchedPresence?: boolean } = {},
    ) => {
      const client = await connect(url, headers, { ticketUrl, ...options });
      clients.push(client);
      return client;
    };
    const live = async (url: string) =>
      (await (await fetch(`${url}/api/admin/live`, { headers: adminBearer })).json()) as Array<
        Record<string, string>
      >;

    it('accepts on B a ticket issued by A, and a connection negotiated with A', async () => {
      const client = await open(b.url, adminBearer, a.url);
      expect(client.connection.state).toBe('Connected');
      await expect(client.connection.invoke('Listen', workspaceId)).resolves.toBeUndefined();

      const negotiated = (await (
        await fetch(`${a.url}/hub/negotiate?negotiateVersion=1`, {
          method: 'POST',
          headers: { authorization: `Bearer ${await ticketFor(a.url, creatorBearer)}` },
        })
      ).json()) as { connectionToken: string };
      const raw = await rawConnect(b.url, `?id=${negotiated.connectionToken}`);
      raw.send(HANDSHAKE);
      expect(await raw.next(() => true)).toEqual({});
      raw.socket.close();
      // Spent on A, refused on B.
      const ticket = await ticketFor(a.url, creatorBearer);
      (await rawConnect(a.url, `?access_token=${ticket}`)).socket.close();
      await expect(rawConnect(b.url, `?access_token=${ticket}`)).rejects.toThrow('status 401');
    });

    it('delivers presence and events from one process to clients on the other', async () => {
      const room = workspaceId;
      const onA = await open(a.url, creatorBearer);
      const onB = await open(b.url, adminBearer);
      await onA.connection.invoke('Listen', room);
      await onB.connection.invoke('Listen', room);
      // Published on B (the admin arrived), received on A.
      expect(
        (await onA.next((e) => e.payload.action === 'PRESENCE.ARRIVED')).payload.actor.name,
      ).toBe('Administrator');
      await onA.connection.invoke('Greet', room);
      await onB.next((e) => e.payload.action === 'PRESENCE.GREETED');
      await onA.connection.invoke('Edited', room, [{ text: 'x' }]);
      expect(
        (await onB.next((e) => e.payload.action === 'DOCUMENT.UPDATED')).payload.model,
      ).toEqual([{ text: 'x' }]);
      await onB.connection.invoke('TemplateMessage', 'TEMPLATE.ADDED', {
        id: 't',
        workspaceId: room,
      });
      expect((await onA.next((e) => e.name === 'TemplateEvent')).payload.action).toBe(
        'TEMPLATE.ADDED',
      );

      // An announcement posted to A reaches everyone on both.
      const announced = await fetch(`${a.url}/api/admin/announce`, {
        method: 'POST',
        headers: { ...adminBearer, 'content-type': 'text/plain' },
        body: 'from A',
      });
      expect(await announced.json()).toBe(true);
      for (const c of [onA, onB]) {
        expect((await c.next((e) => e.payload.model === 'from A')).name).toBe('GlobalEvent');
      }

      await onB.stop();
      expect(
        (await onA.next((e) => e.payload.action === 'PRESENCE.DEPARTED')).payload.actor.name,
      ).toBe('Administrator');
      // The sender is left out everywhere.
      expect(onA.events.filter((e) => e.payload.action === 'DOCUMENT.UPDATED')).toEqual([]);
    });

    it('tells batched-form clients of the people on the other process, and greets for them', async () => {
      const created = await fetch(`${a.url}/api/workspace`, {
        method: 'POST',
        headers: { ...creatorBearer, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Presence across processes' }),
      });
      const room = ((await created.json()) as { id: string }).id;
      const batched = { batchedPresence: true };
      const presence = (c: Client) =>
        c.events.filter((e) => e.name === 'PresenceEvent').map((e) => e.payload);
      const names = (people: Array<{ name: string }>) => people.map((p) => p.name);

      const onA = await open(a.url, creatorBearer, a.url, batched);
      await onA.connection.invoke('Listen', room);
      const onB = await open(b.url, adminBearer, b.url, batched);
      await onB.connection.invoke('Listen', room);
      // B's own list (nobody there) before the completion; A's, through Redis, after it.
      await until(() => presence(onB).length === 2);
      expect(presence(onB).map((p) => [p.action, names(p.model.actors)])).toEqual([
        ['PRESENCE.PRESENT', []],
        ['PRESENCE.PRESENT', ['Creator']],
      ]);
      const arrival = await onA.next((e) => e.payload.action === 'PRESENCE.CHANGED');
      expect(arrival.payload.model).toEqual({
        channelId: room,
        arrived: [expect.objectContaining({ name: 'Administrator' })],
        departed: [],
      });

      // A reference-form newcomer (the creator's other tab, on B) is greeted on behalf of
      // everyone, who are all in the batched form: by B for the admin, by A for the creator.
      const reference = await open(b.url, creatorBearer);
      await reference.connection.invoke('Listen', room);
      await until(() => presence(reference).length === 2);
      expect(presence(reference).map((p) => `${p.action} ${p.actor.name}`)).toEqual([
        'PRESENCE.GREETED Administrator',
        'PRESENCE.GREETED Creator',
      ]);
      await reference.stop();

      await onB.stop();
      const departure = await onA.next(
        (e) => e.payload.action === 'PRESENCE.CHANGED' && e.payload.model.departed.length,
      );
      expect(names(departure.payload.model.departed)).toEqual(['Administrator']);
    });

    it("serves on B a game state that A changed, without waiting for B's kept copy to run out", async () => {
      const json = async (url: string, method: string, path: string, body?: unknown) => {
        const res = await fetch(`${url}/api${path}`, {
          method,
          headers:
            body === undefined
              ? creatorBearer
              : { ...creatorBearer, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        const text = await res.text();
        expect(res.status, `${method} ${path}: ${text}`).toBe(200);
        return (text ? JSON.parse(text) : null) as { id: string; expirationTime: string };
      };
      const game = await json(a.url, 'POST', '/gamespace', {
        resourceId: workspaceId,
        startGamespace: true,
      });
      const kept = await json(b.url, 'GET', `/gamespace/${game.id}`);
      const later = new Date(Date.parse(kept.expirationTime) + 10 * 60_000).toISOString();
      await json(a.url, 'PUT', '/gamespace', { id: game.id, expirationTime: later });
      // B keeps states for 10 s here: seeing the change sooner means A's message dropped it.
      await expect
        .poll(
          async () =>
            Date.parse((await json(b.url, 'GET', `/gamespace/${game.id}`)).expirationTime),
          { timeout: 3_000, interval: 25 },
        )
        .toBe(Date.parse(later));
      await json(a.url, 'POST', `/gamespace/${game.id}/complete`);
    });

    it('lists the connections of both processes in /api/admin/live, until a process stops', async () => {
      const room = newId();
      const onA = await open(a.url, adminBearer);
      const onB = await open(b.url, adminBearer);
      await onA.connection.invoke('Listen', room);
      await onB.connection.invoke('Listen', room);
      for (const url of [a.url, b.url]) {
        const rows = (await live(url)).filter((r) => r.room === room);
        expect(rows).toHaveLength(2);
        expect(new Set(rows.map((r) => r.id)).size).toBe(2);
      }
      await b.stop();
      expect((await live(a.url)).filter((r) => r.room === room)).toHaveLength(1);
      // A client on A learns that the one on B is gone.
      await onA.next((e) => e.payload.action === 'PRESENCE.DEPARTED');
    });

    it('leaves no hub keys in Redis once every process has stopped', async () => {
      await Promise.all(clients.map((c) => c.stop()));
      await a.stop();
      const redis = new Redis(REDIS_URL);
      try {
        expect(await redis.keys(`${prefix}hub:*`)).toEqual([]);
      } finally {
        redis.disconnect();
      }
    });
  },
);
