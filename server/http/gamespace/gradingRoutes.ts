import type { FastifyInstance } from 'fastify';
import type { GradingService } from '../../core/grading';
import { actorOf } from '../auth';
import { challengeSchema, idParams } from '../challenge/schemas';
import { bodyErrorResponses, errorResponses } from '../schemas';
import { gameStateSchema, questionViewSchema } from './schemas';
import { typed } from '../typed';

/** The gamespace's spec, with the 0-based index of its variant: a field of our own. */
const gamespaceChallengeSchema = {
  ...challengeSchema,
  properties: { ...challengeSchema.properties, variant: { type: 'integer' } },
} as const;

// Grading and challenge progress (wire reference §1.2, §4.4). An unknown gamespace id is 400
// ResourceNotFound; an actor who may not see or play it gets 403 with an empty body. The grader
// key of a gamespace authenticates as that gamespace (actor id = gamespace id), which is how an
// in-lab agent grades and reads progress.

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const nullable = (schema: object) => ({ anyOf: [schema, { type: 'null' }] });

const submissionOut = {
  type: 'object',
  properties: {
    id: str,
    timestamp: str,
    sectionIndex: { type: 'integer' },
    questions: { type: 'array', items: { type: 'object', properties: { answer: str } } },
  },
} as const;

/** SectionSubmission: answers may be null (read as blank), extra fields are ignored. */
const submissionBody = {
  type: 'object',
  required: ['id', 'sectionIndex'],
  properties: {
    id: str,
    sectionIndex: { type: 'integer' },
    questions: {
      type: ['array', 'null'],
      items: { type: 'object', properties: { answer: { type: ['string', 'null'] } } },
    },
  },
} as const;

const progressSchema = {
  type: 'object',
  properties: {
    id: str,
    attempts: { type: 'integer' },
    expiresAtTimestamp: { type: 'integer' },
    maxAttempts: { type: 'integer' },
    maxPoints: { type: 'integer' },
    lastScoreTime: nullable(str),
    nextSectionPreReqThisSection: nullable(num),
    nextSectionPreReqTotal: nullable(num),
    score: { type: 'integer' },
    variant: {
      type: 'object',
      properties: {
        text: str,
        sections: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: nullable(str),
              preReqPrevSection: num,
              preReqTotal: num,
              score: num,
              text: str,
              questions: { type: 'array', items: questionViewSchema },
            },
          },
        },
        totalSectionCount: { type: 'integer' },
      },
    },
    text: str,
  },
} as const;

export async function gradingRoutes(
  fastify: FastifyInstance,
  options: { grading: GradingService },
) {
  const app = typed(fastify);
  const { grading } = options;

  app.get(
    '/api/gamespace/:id/challenge/progress',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: progressSchema, ...errorResponses } },
    },
    async (request) => grading.progress(actorOf(request), request.params.id),
  );

  app.get(
    '/api/gamespace/:id/challenge',
    {
      schema: { params: idParams, response: { 200: gamespaceChallengeSchema, ...errorResponses } },
    },
    async (request) => grading.challenge(actorOf(request), request.params.id),
  );

  app.post(
    '/api/gamespace/grade',
    // AnyUser as in the reference: the launch page answers questions with the console cookie its
    // launch ticket set (a ticket's or cookie's grant still holds it to its own gamespace).
    {
      config: { auth: 'anyUser' },
      schema: {
        body: submissionBody,
        response: { 200: gameStateSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const { id, sectionIndex, questions } = request.body;
      return grading.grade(actorOf(request), {
        id,
        sectionIndex,
        questions: (questions ?? []).map((q) => ({ answer: q.answer ?? '' })),
      });
    },
  );

  app.post(
    '/api/gamespace/:id/regrade',
    { schema: { params: idParams, response: { 200: gameStateSchema, ...errorResponses } } },
    async (request) => grading.regrade(actorOf(request), request.params.id),
  );

  app.post(
    '/api/gamespace/:id/audit',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: submissionOut }, ...errorResponses },
      },
    },
    async (request) => grading.audit(actorOf(request), request.params.id),
  );
}
