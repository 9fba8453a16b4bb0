import type { FastifyInstance } from 'fastify';
import type { DispatchService } from '../../core/dispatches';
import { paging } from '../../core/fields';
import { actorOf } from '../auth';
import { bodyErrorResponses, doneResponses, errorResponses, idParams } from '../schemas';
import { typed } from '../typed';
import { caseInsensitiveQuery } from '../workspace/query';
import {
  agentPresenceSchema,
  agentsQuery,
  changedDispatchBody,
  dispatchSchema,
  dispatchSearchQuery,
  newDispatchBody,
} from './schemas';

// Dispatch routes (wire reference §1.5): the default policy (a bearer token or an API key, which
// includes a gamespace's grader key); who may act on a gamespace's dispatches is the dispatch
// service's rule. An unknown id or gamespace is 400 ResourceNotFound before authorization.

const dispatchResponse = { 200: dispatchSchema, ...errorResponses } as const;

export async function dispatchRoutes(
  fastify: FastifyInstance,
  options: { dispatches: DispatchService },
) {
  const app = typed(fastify);
  const { dispatches } = options;
  caseInsensitiveQuery(app);

  app.post(
    '/api/dispatch',
    {
      schema: { body: newDispatchBody, response: { ...dispatchResponse, ...bodyErrorResponses } },
    },
    async (request) => dispatches.create(actorOf(request), request.body),
  );

  app.get(
    '/api/dispatch/:id',
    { schema: { params: idParams, response: dispatchResponse } },
    async (request) => dispatches.load(actorOf(request), request.params.id),
  );

  app.put(
    '/api/dispatch',
    {
      schema: {
        body: changedDispatchBody,
        response: { ...doneResponses, ...bodyErrorResponses },
      },
    },
    async (request, reply) => {
      await dispatches.update(actorOf(request), request.body);
      return reply.code(200).send('');
    },
  );

  app.delete(
    '/api/dispatch/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await dispatches.remove(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );

  // Ours: which machines of a gamespace have an agent listening, for the dispatcher's console.
  app.get(
    '/api/dispatches/agents',
    {
      schema: {
        summary: 'Which machines of a gamespace have an agent listening',
        querystring: agentsQuery,
        response: { 200: { type: 'array', items: agentPresenceSchema }, ...errorResponses },
      },
    },
    async (request) => dispatches.agents(actorOf(request), request.query.gs),
  );

  app.get(
    '/api/dispatches',
    {
      schema: {
        querystring: dispatchSearchQuery,
        response: { 200: { type: 'array', items: dispatchSchema }, ...errorResponses },
      },
    },
    async (request) => {
      const { gs, since, filter } = request.query;
      return dispatches.list(actorOf(request), {
        gs,
        since,
        filter: (filter ?? []).map((f) => f.toLowerCase()),
        ...paging(request.query),
      });
    },
  );
}
