import fp from 'fastify-plugin';
import { createGameEventLog } from '../core/gameEventLog';
import type { GameEventLog } from '../core/gameEvents';

// The one gamespace event log of the server (server/core/gameEvents.ts): the play and grading
// services record into it, the console route records opens and closes, and
// GET /api/gamespace/{id}/events reads it. Anything else that happens in a gamespace is recorded
// with `fastify.gameEvents.record({ gamespaceId, kind, ... })`, not awaited on a hot path: it
// never rejects, a failure is logged.

declare module 'fastify' {
  interface FastifyInstance {
    gameEvents: GameEventLog;
  }
}

export const gameEventsPlugin = fp(
  async (fastify) => {
    fastify.decorate(
      'gameEvents',
      createGameEventLog(fastify.repositories, { clock: fastify.clock, log: fastify.log }),
    );
  },
  { name: 'gameEvents', dependencies: ['settings', 'repositories'] },
);
