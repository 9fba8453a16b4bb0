import type { FastifyInstance } from 'fastify';
import type { AnswerAlerts } from '../../core/answerAlerts';
import { actorOf } from '../auth';
import { errorResponses } from '../schemas';
import { typed } from '../typed';

// GET /api/alerts (ours): answer-sharing alerts, newest first (server/core/answerAlerts.ts).
// With `workspaceId`, that workspace's; without, every workspace the caller may observe.
// Administrators read all, observers those of workspaces whose audience reaches their scope
// (the gamespace event log's rule); anyone else gets 403 with an empty body.

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;

export const alertSchema = {
  type: 'object',
  required: [
    'id',
    'at',
    'workspaceId',
    'kind',
    'gamespaceId',
    'otherGamespaceId',
    'question',
    'submitterNames',
    'ownerNames',
    'answer',
    'text',
  ],
  properties: {
    id: str,
    at: { type: 'string', description: 'When, ISO 8601 (UTC).' },
    workspaceId: str,
    kind: {
      type: 'string',
      enum: ['shared', 'canary'],
      description:
        "shared: another gamespace's generated answer was submitted; canary: a canary answer was.",
    },
    gamespaceId: { type: 'string', description: 'The submitting gamespace.' },
    otherGamespaceId: {
      type: ['string', 'null'],
      description: 'The gamespace whose generated answer it was; null for a canary.',
    },
    question: {
      type: 'object',
      required: ['sectionIndex', 'sectionName', 'questionIndex', 'text'],
      properties: {
        sectionIndex: { type: 'integer', description: 'The question set, 0-based.' },
        sectionName: { type: ['string', 'null'] },
        questionIndex: { ...int, description: 'The question in its set, 0-based.' },
        text: { type: 'string', description: 'The question, shortened.' },
      },
    },
    submitterNames: { type: 'string', description: "The submitting gamespace's players." },
    ownerNames: {
      type: 'string',
      description: "The players of the gamespace whose answer it was; '' for a canary.",
    },
    answer: { type: 'string', description: 'The answer submitted.' },
    text: { type: 'string', description: 'The alert in one sentence.' },
  },
} as const;

export async function alertRoutes(fastify: FastifyInstance, options: { alerts: AnswerAlerts }) {
  const app = typed(fastify);
  app.get(
    '/api/alerts',
    {
      schema: {
        description:
          "Answer-sharing alerts, newest first: submissions of another gamespace's generated answer, or of a canary answer. Of one workspace, or of every workspace the caller observes. Administrators, and observers of the workspace audience.",
        querystring: {
          type: 'object',
          properties: { workspaceId: { type: 'string', maxLength: 64 } },
        },
        response: { 200: { type: 'array', items: alertSchema }, ...errorResponses },
      },
    },
    async (request) => options.alerts.list(actorOf(request), request.query.workspaceId),
  );
}
