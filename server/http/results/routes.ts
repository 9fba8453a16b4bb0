import type { FastifyInstance } from 'fastify';
import { fileNameOf, resultsCsv, type ResultService } from '../../core/results';
import { actorOf } from '../auth';
import { errorResponses, idParams } from '../schemas';
import { typed } from '../typed';
import { csvResponse, gameResultSchema, workspaceResultsSchema } from './schemas';

// Results (ours, not the reference's):
// - GET /api/workspace/{id}/results: every gamespace of the workspace, running and ended, with
//   its players, times, score per question set and attempts; administrators and observers whose
//   scope the workspace's audience reaches, anyone else 403 with an empty body.
// - GET /api/workspace/{id}/results.csv: the same as a CSV download, for the same readers.
// - GET /api/my/results: the caller's own gamespaces, for the home page's history.

export async function resultRoutes(fastify: FastifyInstance, options: { results: ResultService }) {
  const app = typed(fastify);
  const { results } = options;

  app.get(
    '/api/workspace/:id/results',
    {
      schema: {
        description:
          'Every gamespace of the workspace with its players, times, score per question set and attempts. Administrators, and observers of the workspace audience.',
        params: idParams,
        response: { 200: workspaceResultsSchema, ...errorResponses },
      },
    },
    async (request) => results.ofWorkspace(actorOf(request), request.params.id),
  );

  app.get(
    '/api/workspace/:id/results.csv',
    {
      schema: {
        description: 'The workspace results as a CSV download, for the same readers.',
        params: idParams,
        response: { 200: csvResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const found = await results.ofWorkspace(actorOf(request), request.params.id);
      return reply
        .type('text/csv; charset=utf-8')
        .header('Content-Disposition', `attachment; filename="${fileNameOf(found)}"`)
        .send(resultsCsv(found));
    },
  );

  app.get(
    '/api/my/results',
    {
      schema: {
        description:
          "The caller's own gamespaces, running and ended, newest first, with their scores.",
        response: { 200: { type: 'array', items: gameResultSchema }, ...errorResponses },
      },
    },
    async (request) => results.ofCaller(actorOf(request)),
  );
}
