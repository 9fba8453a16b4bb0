import fp from 'fastify-plugin';
import { createMetrics, type Metrics } from '../metrics';

// Prometheus metrics, only with METRICS_TOKEN (server/metrics.ts): what the hub and the janitor
// count, and the requests answered from here on.

declare module 'fastify' {
  interface FastifyInstance {
    /** Null without METRICS_TOKEN: nothing is counted. */
    metrics: Metrics | null;
  }
}

export const metricsPlugin = fp(
  async (fastify) => {
    const { config, driver, store, repositories } = fastify;
    const metrics = config.metricsToken
      ? createMetrics(fastify, {
          driver: { name: config.hypervisor, status: () => driver.status() },
          // How many gamespaces are active now, by the rule of isActive.
          activeGamespaces: () => repositories.gamespaces.countActive(fastify.clock.now()),
          poolStats: () => store.poolStats(),
        })
      : null;
    fastify.decorate('metrics', metrics);
  },
  { name: 'metrics', dependencies: ['settings', 'store', 'repositories', 'hypervisor'] },
);
