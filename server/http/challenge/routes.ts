import type { FastifyInstance } from 'fastify';
import { CHALLENGE_BODY_LIMIT, type ChallengeService } from '../../core/challenges';
import { actorOf } from '../auth';
import { bodyErrorResponses, doneResponses, errorResponses } from '../schemas';
import { challengeBody, challengeSchema, idParams } from './schemas';
import { typed } from '../typed';

// Challenge routes (wire reference §1.1): `id` is the workspace's. An unknown id is 400
// ResourceNotFound, a user who may not edit the workspace gets 403 with an empty body.

export async function challengeRoutes(
  fastify: FastifyInstance,
  options: { challenges: ChallengeService },
) {
  const app = typed(fastify);
  const { challenges } = options;

  app.get(
    '/api/challenge/:id',
    { schema: { params: idParams, response: { 200: challengeSchema, ...errorResponses } } },
    async (request) => challenges.get(actorOf(request), request.params.id),
  );

  app.put(
    '/api/challenge/:id',
    {
      bodyLimit: CHALLENGE_BODY_LIMIT,
      schema: {
        params: idParams,
        body: challengeBody,
        response: { ...doneResponses, ...bodyErrorResponses },
      },
    },
    async (request, reply) => {
      await challenges.update(actorOf(request), request.params.id, request.body);
      return reply.code(200).send('');
    },
  );
}
