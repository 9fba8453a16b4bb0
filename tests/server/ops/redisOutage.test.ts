import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { newId } from '../../../server/core/ids';
import { createRedisBackplane } from '../../../server/hub/redisBackplane';
import { freePort } from '../harness';
import { redisRelay } from '../redisRelay';

// A server process must outlive any Redis outage: an unhandled rejection ends Node. ioredis sends
// some commands of its own after a reconnect (it subscribes again for a subscriber); when the
// connection is closed before they are answered, their rejection reaches nobody unless the
// server sends them itself.

const REDIS_URL = process.env.REDIS_URL ?? '';

describe.skipIf(!REDIS_URL)('Redis outages (skipped without REDIS_URL)', () => {
  const prefix = `topoplay-test-${newId().slice(0, 12)}:`;
  const unhandled: unknown[] = [];
  const record = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', record);
  afterEach(() => {
    unhandled.length = 0;
  });
  afterAll(async () => {
    process.off('unhandledRejection', record);
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('closes the hub backplane while its subscription is being renewed, rejecting nothing unhandled', async () => {
    const relay = redisRelay(new URL(REDIS_URL), await freePort());
    await relay.open();
    const via = new URL(REDIS_URL);
    via.hostname = '127.0.0.1';
    via.port = String(relay.port);
    const errors: string[] = [];
    const backplane = await createRedisBackplane({
      url: via.toString(),
      prefix,
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error)),
    });
    try {
      // The link drops and comes back, but stalls as the subscriber subscribes again.
      await relay.cut();
      await relay.open({ holdOn: /subscribe/i });
      await relay.holding();
      expect(relay.held.join('')).toMatch(/hub:events/);
    } finally {
      await backplane.close();
      await relay.cut();
    }
    // The renewal is refused by the close; the server hears of it as it hears of Redis errors.
    await expect.poll(() => errors.some((e) => /Connection is closed/.test(e))).toBe(true);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  }, 30_000);
  it('hears the other servers again once Redis is back', async () => {
    const relay = redisRelay(new URL(REDIS_URL), await freePort());
    await relay.open();
    const via = new URL(REDIS_URL);
    via.hostname = '127.0.0.1';
    via.port = String(relay.port);
    const onError = () => {};
    const behind = await createRedisBackplane({ url: via.toString(), prefix, onError });
    const other = await createRedisBackplane({ url: REDIS_URL, prefix, onError });
    const heard: string[] = [];
    behind.attach((_audience, frame) => heard.push(frame.toString()));
    try {
      await relay.cut();
      await relay.open();
      await expect
        .poll(
          () => {
            other.publish({ all: true }, Buffer.from('after the outage'));
            return heard.includes('after the outage');
          },
          { timeout: 20_000, interval: 200 },
        )
        .toBe(true);
    } finally {
      await behind.close();
      await other.close();
      await relay.cut();
    }
    expect(unhandled).toEqual([]);
  }, 30_000);
});
