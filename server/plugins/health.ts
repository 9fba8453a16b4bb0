import fp from 'fastify-plugin';
import { healthRoutes } from '../http/health';
import { metricsRoutes } from '../metrics';

// What operators probe: liveness and readiness (database, Redis, hypervisor), and the
// Prometheus metrics when METRICS_TOKEN is set.

export const healthPlugin = fp(
  async (fastify) => {
    const { config, store, cache, driver, metrics } = fastify;
    await fastify.register(healthRoutes, {
      sources: {
        pendingMigrations: () => store.pendingMigrations(),
        // A read through the cache's own Redis connection: what tickets and locks depend on.
        redis: config.redisUrl ? () => cache.get('health:probe') : null,
        hypervisor: () => driver.ready(),
      },
    });
    if (metrics) await fastify.register(metricsRoutes, { metrics, token: config.metricsToken });
  },
  {
    name: 'health',
    encapsulate: true,
    dependencies: ['settings', 'store', 'cache', 'hypervisor', 'metrics'],
  },
);
