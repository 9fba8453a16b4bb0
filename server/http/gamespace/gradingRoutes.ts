import type { FastifyInstance } from 'fastify';
import type { GradingService } from '../../core/grading';
import { actorOf } from '../auth';
import { challengeSchema, idParams } from '../challenge/schemas';

// Grading and challenge progress (wire reference §1.2, §4.4). An unknown gamespace id is 400
// ResourceNotFound; an actor who may not see or play it gets 403 with an empty body. The grader
// key of a gamespace authenticates as that gamespace (actor id = gamespace id), which is how an
// in-lab agent grades and reads progress.

type IdRoute = { Params: { id: string } };

const str = { type: 'string' } as const;
const num = { type: 'number' } as const;
const bool = { type: 'boolean' } as const;
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

const questionView = {
  type: 'object',
  properties: {
    text: str,
    hint: str,
    answer: str,
    example: str,
    weight: num,
    penalty: num,
    isCorrect: bool,
    isGraded: bool,
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
              questions: { type: 'array', items: questionView },
            },
          },
        },
        totalSectionCount: { type: 'integer' },
      },
    },
    text: str,
  },
} as const;

interface SubmissionBody {
  id: string;
  sectionIndex: number;
  questions?: Array<{ answer?: string | null }> | null;
}

export async function gradingRoutes(app: FastifyInstance, options: { grading: GradingService }) {
  const { grading } = options;

  app.get<IdRoute>(
    '/api/gamespace/:id/challenge/progress',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: progressSchema } },
    },
    async (request) => grading.progress(actorOf(request), request.params.id),
  );

  app.get<IdRoute>(
    '/api/gamespace/:id/challenge',
    { schema: { params: idParams, response: { 200: challengeSchema } } },
    async (request) => grading.challenge(actorOf(request), request.params.id),
  );

  app.post<{ Body: SubmissionBody }>(
    '/api/gamespace/grade',
    { schema: { body: submissionBody } },
    async (request) => {
      const { id, sectionIndex, questions } = request.body;
      return grading.grade(actorOf(request), {
        id,
        sectionIndex,
        questions: (questions ?? []).map((q) => ({ answer: q.answer ?? '' })),
      });
    },
  );

  app.post<IdRoute>(
    '/api/gamespace/:id/regrade',
    { schema: { params: idParams } },
    async (request) => grading.regrade(actorOf(request), request.params.id),
  );

  app.post<IdRoute>(
    '/api/gamespace/:id/audit',
    { schema: { params: idParams, response: { 200: { type: 'array', items: submissionOut } } } },
    async (request) => grading.audit(actorOf(request), request.params.id),
  );
}
