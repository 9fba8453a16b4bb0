import fp from 'fastify-plugin';
import type { Clock } from '../clock';
import type { Config } from '../config';

// What every other plugin reads its settings from: the configuration (server/config.ts) and the
// clock that background work waits on (the real one, or a test's that moves only when told).

declare module 'fastify' {
  interface FastifyInstance {
    config: Config;
    clock: Clock;
  }
}

export interface Settings {
  config: Config;
  clock: Clock;
}

export const settingsPlugin = fp<Settings>(
  async (fastify, { config, clock }) => {
    fastify.decorate('config', config);
    fastify.decorate('clock', clock);
  },
  { name: 'settings' },
);
