import { Redis } from 'ioredis';
import type { Cache } from './cache';

// The Cache on Redis (REDIS_URL), so that every server process shares tickets, invitation codes,
// hub negotiations and locks: a ticket issued by one process is accepted by another.
// Keys are `{prefix}cache:{key}`. A sliding entry must know its lifetime when it is read, so the
// stored string starts with it: `s{ttlMs}:{value}`; other entries are stored as `p:{value}`.

export interface RedisCacheOptions {
  url: string;
  prefix: string;
  onError(error: unknown): void;
}

function decode(stored: string | null): { value: string; slidingMs: number } | null {
  if (stored === null) return null;
  const colon = stored.indexOf(':');
  if (stored.startsWith('s') && colon > 1) {
    return { value: stored.slice(colon + 1), slidingMs: Number(stored.slice(1, colon)) };
  }
  return { value: stored.slice(colon + 1), slidingMs: 0 };
}

export function createRedisCache(options: RedisCacheOptions): Cache {
  const redis = new Redis(options.url);
  redis.on('error', options.onError);
  const key = (k: string) => `${options.prefix}cache:${k}`;
  const ttl = (ms: number) => Math.max(1, Math.ceil(ms));

  return {
    async get(k) {
      const entry = decode(await redis.get(key(k)));
      if (!entry) return null;
      if (entry.slidingMs > 0) await redis.pexpire(key(k), entry.slidingMs);
      return entry.value;
    },
    async set(k, value, ttlMs, opts) {
      const stored = opts?.sliding ? `s${ttl(ttlMs)}:${value}` : `p:${value}`;
      await redis.set(key(k), stored, 'PX', ttl(ttlMs));
    },
    async take(k) {
      // GETDEL (Redis 6.2) reads and deletes atomically: two servers never both get a ticket.
      return decode(await redis.getdel(key(k)))?.value ?? null;
    },
    async delete(k) {
      await redis.del(key(k));
    },
    async setIfAbsent(k, value, ttlMs) {
      return (await redis.set(key(k), `p:${value}`, 'PX', ttl(ttlMs), 'NX')) === 'OK';
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
