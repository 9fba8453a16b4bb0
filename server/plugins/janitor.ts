import fp from 'fastify-plugin';
import { createJanitor, type Janitor } from '../core/janitor';

// The janitor (wire reference §4.6): expiry and machine cleanup in the background, one server at
// a time, on the settings' clock; with JANITOR_ENABLED false, only when an administrator asks.
// App.close stops it before the requests under way drain.

declare module 'fastify' {
  interface FastifyInstance {
    janitor: Janitor;
  }
}

export const janitorPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    const janitor = createJanitor({
      repositories: fastify.repositories,
      driver: fastify.driver,
      cache: fastify.cache,
      log: fastify.log,
      changed: fastify.services.play.changed,
      schedule: config.janitor,
      orphanGraceMs: config.janitor.orphanGraceMs,
      ran: fastify.metrics?.janitorRan,
      clock: fastify.clock,
      pools: fastify.pools,
      gameEvents: fastify.gameEvents,
      recordings: fastify.services.recordings,
    });
    fastify.decorate('janitor', janitor);
    if (config.janitor.enabled) janitor.start();
  },
  {
    name: 'janitor',
    dependencies: [
      'settings',
      'store',
      'repositories',
      'gameEvents',
      'cache',
      'hypervisor',
      'metrics',
      'services',
      'pools',
    ],
  },
);
