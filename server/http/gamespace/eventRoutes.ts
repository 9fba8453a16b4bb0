import type { FastifyInstance } from 'fastify';
import { GAME_EVENT_KINDS, type GameEventReader } from '../../core/gameEventLog';
import { actorOf } from '../auth';
import { errorResponses, idParams } from '../schemas';
import { typed } from '../typed';

// GET /api/gamespace/{id}/events (ours): the gamespace's event log, oldest first, for the
// gamespace browser's timeline and the console replay's. Administrators read every gamespace's,
// observers those of workspaces whose audience reaches their scope (as the browser lists them);
// anyone else gets 403 with an empty body. An unknown gamespace id is 400 ResourceNotFound, as
// on the gamespace's other routes.

const str = { type: 'string' } as const;

export const gameEventSchema = {
  type: 'object',
  required: ['id', 'gamespaceId', 'kind', 'at'],
  properties: {
    id: str,
    gamespaceId: str,
    kind: { type: 'string', enum: GAME_EVENT_KINDS },
    at: { type: 'string', description: 'When, ISO 8601 (UTC).' },
    actorId: { type: 'string', description: 'Who did it; absent when the system did.' },
    actorName: str,
    machineId: { type: 'string', description: 'The machine it concerns, when it concerns one.' },
    machineName: str,
    detail: { type: 'string', description: "A short text: a file's name, a submission's result." },
    score: { type: 'number', description: "A submission's points after grading." },
  },
} as const;

export async function gameEventRoutes(
  fastify: FastifyInstance,
  options: { events: GameEventReader },
) {
  const app = typed(fastify);
  app.get(
    '/api/gamespace/:id/events',
    {
      schema: {
        description:
          'The gamespace event log, oldest first: deploys, console opens and closes, files put into machines, clipboard use, submissions with their score, extensions and the end. Administrators, and observers of the workspace audience.',
        params: idParams,
        response: { 200: { type: 'array', items: gameEventSchema }, ...errorResponses },
      },
    },
    async (request) => options.events.list(actorOf(request), request.params.id),
  );
}
