import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { healthRoutes, READY_TIMEOUT_MS, type ReadinessSources } from '../../../server/http/health';
import { newId } from '../../../server/core/ids';
import { testEngines } from '../databases';
import { freePort, startTestServer, type TestServer } from '../harness';
import { redisRelay } from '../redisRelay';

// The probes (server/http/health.ts) of a real server: liveness checks nothing but the process;
// readiness names each check and answers 503 when one fails, and never hangs on a dependency
// that does not answer.

const REDIS_URL = process.env.REDIS_URL ?? '';

async function probe(url: string, method = 'GET') {
  const res = await fetch(url, { method });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe.each(testEngines())('health probes on %s', (engine) => {
  let server: TestServer;
  const ready = () => probe(`${server.url}/api/health/ready`);

  beforeAll(async () => {
    server = await startTestServer({ engine });
  });
  afterAll(async () => server?.close());

  it('answers liveness without a credential, GET and HEAD', async () => {
    const live = await probe(`${server.url}/api/health/live`);
    expect(live.status).toBe(200);
    expect(live.body).toEqual({ status: 'ok' });
    expect(live.headers.get('cache-control')).toBe('no-store');
    expect((await probe(`${server.url}/api/health/live`, 'HEAD')).status).toBe(200);
  });

  it('is ready with the database migrated and the driver up, and names only its checks', async () => {
    const reply = await ready();
    expect(reply.status).toBe(200);
    // Nothing but the checks' names and outcomes: no versions, addresses or errors.
    expect(reply.body).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', hypervisor: 'ok' },
    });
    expect((await probe(`${server.url}/api/health/ready`, 'HEAD')).status).toBe(200);
  });

  it('is not ready while a migration of this build is missing from the database', async () => {
    const table = 'kysely_migration' as never;
    const row = (await server.app.store.db
      .selectFrom(table)
      .selectAll()
      .orderBy('name' as never, 'desc')
      .executeTakeFirstOrThrow()) as Record<string, unknown>;
    await server.app.store.db
      .deleteFrom(table)
      .where('name' as never, '=', row.name as never)
      .execute();
    try {
      await expect.poll(ready, { timeout: 5_000 }).toMatchObject({
        status: 503,
        body: {
          status: 'unavailable',
          checks: { database: 'ok', migrations: 'failed', hypervisor: 'ok' },
        },
      });
    } finally {
      await server.app.store.db
        .insertInto(table)
        .values(row as never)
        .execute();
    }
    await expect.poll(async () => (await ready()).status, { timeout: 5_000 }).toBe(200);
  });

  it('is not ready once the hypervisor driver is closed, while still alive', async () => {
    await server.app.driver.close();
    await expect.poll(ready, { timeout: 5_000 }).toMatchObject({
      status: 503,
      body: { checks: { database: 'ok', migrations: 'ok', hypervisor: 'failed' } },
    });
    expect((await probe(`${server.url}/api/health/live`)).status).toBe(200);
  });
});

describe.skipIf(!REDIS_URL)('readiness with Redis (skipped without REDIS_URL)', () => {
  const prefix = `topoplay-test-${newId().slice(0, 12)}:`;
  let server: TestServer;
  let relay: ReturnType<typeof redisRelay>;
  const ready = () => probe(`${server.url}/api/health/ready`);

  beforeAll(async () => {
    const port = await freePort();
    relay = redisRelay(new URL(REDIS_URL), port);
    await relay.open();
    const via = new URL(REDIS_URL);
    via.hostname = '127.0.0.1';
    via.port = String(port);
    server = await startTestServer({ env: { REDIS_URL: via.toString(), REDIS_PREFIX: prefix } });
  });
  afterAll(async () => {
    await server?.close();
    await relay?.cut();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('checks Redis, answers 503 while it is out of reach and is ready again after', async () => {
    expect(await ready()).toMatchObject({
      status: 200,
      body: { checks: { database: 'ok', migrations: 'ok', redis: 'ok', hypervisor: 'ok' } },
    });
    await relay.cut();
    await expect
      .poll(ready, { timeout: 10_000 })
      .toMatchObject({ status: 503, body: { checks: { database: 'ok', redis: 'failed' } } });
    await relay.open();
    await expect.poll(async () => (await ready()).status, { timeout: 10_000 }).toBe(200);
  }, 30_000);
});

describe('readiness rounds', () => {
  /** A server with only the probes, over sources the test controls. */
  async function probes(sources: ReadinessSources) {
    const app = Fastify();
    await app.register(healthRoutes, { sources });
    return app;
  }

  it('answers 503 naming the check when a dependency does not answer in time', async () => {
    const app = await probes({
      pendingMigrations: () => new Promise(() => {}),
      redis: async () => 'PONG',
      hypervisor: async () => {},
    });
    const started = Date.now();
    const reply = await app.inject('/api/health/ready');
    expect(Date.now() - started).toBeLessThan(READY_TIMEOUT_MS + 1_000);
    expect(reply.statusCode).toBe(503);
    expect(reply.json()).toEqual({
      status: 'unavailable',
      checks: { database: 'failed', migrations: 'failed', redis: 'ok', hypervisor: 'ok' },
    });
    await app.close();
  }, 10_000);

  it('runs one round of checks for many probes at once', async () => {
    let rounds = 0;
    const app = await probes({
      pendingMigrations: async () => {
        rounds += 1;
        return [];
      },
      redis: null,
      hypervisor: async () => {},
    });
    const replies = await Promise.all(
      Array.from({ length: 20 }, () => app.inject('/api/health/ready')),
    );
    expect(replies.map((r) => r.statusCode)).toEqual(Array(20).fill(200));
    expect(rounds).toBe(1);
    await app.close();
  });
});
