import fp from 'fastify-plugin';
import { createMemoryCache, type Cache } from '../core/cache';
import { createStateCache, type StateCache } from '../core/play/stateCache';
import { createRedisCache, type RedisCacheOptions } from '../core/redisCache';
import { createMemoryBackplane, type Backplane } from '../hub/backplane';
import { createRedisBackplane } from '../hub/redisBackplane';
import { observeGroups } from './backplaneGroups';

// What server processes share: with REDIS_URL, every process reads the same cache (tickets,
// invitation codes, locks) and the hub's groups reach across them through the backplane; without
// it both live in this process.

declare module 'fastify' {
  interface FastifyInstance {
    cache: Cache;
    /** The hub's groups and presence, on every server process. */
    backplane: Backplane;
    /** Kept game states (GET /api/gamespace/{id}), dropped on any message to their group. */
    stateCache: StateCache;
    /** How to reach Redis (the rate limits connect too); null without REDIS_URL. */
    redis: RedisCacheOptions | null;
  }
}

export const cachePlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    const redis = config.redisUrl
      ? {
          url: config.redisUrl,
          prefix: config.redisPrefix,
          onError: (err: unknown) => fastify.log.warn({ err }, 'redis'),
        }
      : null;
    const cache = redis ? createRedisCache(redis) : createMemoryCache(fastify.clock);
    // Hooks close in the reverse order of their registration: the backplane first, then the cache.
    fastify.addHook('onClose', () => cache.close());
    // Kept game states are dropped on every message to their gamespace's group, from any process.
    const stateCache = createStateCache({ ttlMs: config.stateCacheMs });
    const backplane = observeGroups(
      redis ? await createRedisBackplane(redis) : createMemoryBackplane(),
      (group) => stateCache.forget(group),
    );
    fastify.addHook('onClose', () => backplane.close());
    fastify.decorate('cache', cache);
    fastify.decorate('backplane', backplane);
    fastify.decorate('stateCache', stateCache);
    fastify.decorate('redis', redis);
  },
  { name: 'cache', dependencies: ['settings'] },
);
