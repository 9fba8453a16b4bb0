import fp from 'fastify-plugin';
import { createPoolService, type PoolService } from '../core/pools/service';

// Warm pools (core/pools): machine sets deployed ahead of launches, which launches claim (the
// play service is handed `pools.claims`), administrators size (routes), and the janitor
// reclaims when stale. The keeper's rounds run while the server does, with a driver that can
// hand machines from tag to tag; closing waits for the sets being deployed or removed, before
// the driver closes.

declare module 'fastify' {
  interface FastifyInstance {
    pools: PoolService;
  }
}

export const poolsPlugin = fp(
  async (fastify) => {
    const pools = createPoolService(fastify.repositories, {
      driver: fastify.driver,
      cache: fastify.cache,
      clock: fastify.clock,
      log: fastify.log,
    });
    fastify.decorate('pools', pools);
    if (pools.supported()) pools.start();
    // Any template write drains the sets made from what it changed, on this server at once (on
    // the others at their next round; no launch claims such a set meanwhile).
    const unwatch = fastify.store.watchWrites((table) => {
      if (table === 'templates') pools.templatesChanged();
    });
    fastify.addHook('onClose', async () => {
      unwatch();
      await pools.stop();
    });
  },
  { name: 'pools', dependencies: ['settings', 'store', 'repositories', 'cache', 'hypervisor'] },
);
