import type { FastifyInstance } from 'fastify';
import type { WallService } from '../../core/wall';
import { actorOf } from '../auth';
import { errorResponses } from '../schemas';
import { typed } from '../typed';

// GET /api/wall (ours): the instructor's wall, every running gamespace the caller may observe
// with its players, score, attempts, times, latest activity and machines (server/core/wall.ts).
// Administrators see all, observers those of workspaces whose audience reaches their scope;
// anyone else gets 403 with an empty body.

const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const date = { type: 'string', description: 'ISO 8601; 0001-01-01T00:00:00+00:00 when unset.' };

export const wallEntrySchema = {
  type: 'object',
  required: [
    'gamespaceId',
    'workspaceId',
    'workspaceName',
    'managerName',
    'players',
    'startTime',
    'endTime',
    'expirationTime',
    'score',
    'maxPoints',
    'attempts',
    'maxAttempts',
    'state',
    'lastActivity',
    'help',
    'alerts',
    'machines',
  ],
  properties: {
    gamespaceId: str,
    workspaceId: str,
    workspaceName: str,
    managerName: str,
    players: {
      type: 'array',
      description: 'One player, or a team of several.',
      items: {
        type: 'object',
        required: ['id', 'name'],
        properties: { id: str, name: str },
      },
    },
    startTime: date,
    endTime: date,
    expirationTime: date,
    score: { type: 'number', description: 'In points.' },
    maxPoints: int,
    attempts: { type: 'integer', description: 'Submissions over all question sets.' },
    maxAttempts: { type: 'integer', description: '0: no limit.' },
    state: {
      type: 'string',
      enum: ['running', 'someOff', 'allOff', 'noMachines'],
      description: 'What its machines say of the gamespace.',
    },
    lastActivity: {
      type: ['string', 'null'],
      description: 'When its latest game event happened (ISO 8601); null when it has none.',
    },
    help: {
      type: ['object', 'null'],
      description: 'Its open help request (a raised hand); null when none.',
      required: ['id', 'message', 'raisedAt', 'claimedByName'],
      properties: {
        id: str,
        message: str,
        raisedAt: date,
        claimedByName: { type: ['string', 'null'], description: 'Who is on it; null: nobody yet.' },
      },
    },
    alerts: { type: 'integer', description: 'Answer-sharing alerts its submissions raised.' },
    machines: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'state'],
        properties: { id: str, name: str, state: { type: 'string', enum: ['running', 'off'] } },
      },
    },
  },
} as const;

export async function wallRoutes(fastify: FastifyInstance, options: { wall: WallService }) {
  const app = typed(fastify);
  app.get(
    '/api/wall',
    {
      schema: {
        description:
          'The instructor wall: every running gamespace the caller may observe, with its players, score, attempts, times, latest activity and machines. Administrators, and observers of the workspace audience.',
        querystring: {
          type: 'object',
          properties: {
            workspaceId: { type: 'string', maxLength: 64, description: "Only this workspace's." },
          },
        },
        response: { 200: { type: 'array', items: wallEntrySchema }, ...errorResponses },
      },
    },
    async (request) =>
      options.wall.list(actorOf(request), { workspaceId: request.query.workspaceId }),
  );
}
