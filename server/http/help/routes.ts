import type { FastifyInstance } from 'fastify';
import { MAX_HELP_ANSWER, MAX_HELP_MESSAGE, type HelpService } from '../../core/helpRequests';
import { actorOf } from '../auth';
import { bodyErrorResponses, errorResponses, idParams } from '../schemas';
import { typed } from '../typed';

// Help requests (ours; server/core/helpRequests.ts), on the default policy (a bearer token or an
// API key). A player of a running gamespace raises a hand and may cancel it; observers of its
// workspace and administrators list the queue, claim and answer. An unknown gamespace or request
// id is 400 ResourceNotFound before authorization; a request already closed is 400
// InvalidOperation; an empty or too long text is 400 naming the field.

const str = { type: 'string' } as const;

export const helpRequestSchema = {
  type: 'object',
  required: [
    'id',
    'gamespaceId',
    'workspaceId',
    'gamespaceName',
    'playerId',
    'playerName',
    'message',
    'status',
    'raisedAt',
  ],
  properties: {
    id: str,
    gamespaceId: str,
    workspaceId: str,
    gamespaceName: str,
    playerId: { type: 'string', description: 'Who raised it.' },
    playerName: str,
    message: str,
    status: { type: 'string', enum: ['open', 'answered', 'cancelled'] },
    raisedAt: { type: 'string', description: 'ISO 8601 (UTC).' },
    claimedById: { type: 'string', description: 'Who is on it; absent until claimed.' },
    claimedByName: str,
    claimedAt: str,
    answer: { type: 'string', description: 'The answer, once answered.' },
    answeredById: str,
    answeredByName: str,
    closedAt: { type: 'string', description: 'When it was answered or cancelled.' },
  },
} as const;

const one = { 200: helpRequestSchema, ...errorResponses } as const;
const many = { 200: { type: 'array', items: helpRequestSchema }, ...errorResponses } as const;

export async function helpRoutes(fastify: FastifyInstance, options: { help: HelpService }) {
  const app = typed(fastify);
  const { help } = options;

  app.post(
    '/api/gamespace/:id/help',
    {
      schema: {
        description: `Raises a hand in a running gamespace (its players): a message of 1 to ${MAX_HELP_MESSAGE} characters, trimmed. While one of the gamespace requests is open, answers that one unchanged.`,
        params: idParams,
        body: { type: 'object', properties: { message: str } },
        response: { ...one, ...bodyErrorResponses },
      },
    },
    async (request) => help.raise(actorOf(request), request.params.id, request.body.message),
  );

  app.get(
    '/api/gamespace/:id/help',
    {
      schema: {
        description:
          'The gamespace help requests, oldest first: its players, observers of the workspace audience, administrators.',
        params: idParams,
        response: many,
      },
    },
    async (request) => help.ofGamespace(actorOf(request), request.params.id),
  );

  app.get(
    '/api/help',
    {
      schema: {
        description:
          'The help queue of a workspace (observers of its audience, administrators), or without workspaceId of every workspace the caller observes: open requests oldest first, then the last closed.',
        querystring: {
          type: 'object',
          properties: { workspaceId: { type: 'string', maxLength: 64 } },
        },
        response: many,
      },
    },
    async (request) => help.queue(actorOf(request), request.query.workspaceId),
  );

  app.get(
    '/api/help/workspaces',
    {
      schema: {
        description:
          'The workspaces with a running gamespace that the caller observes (observers, administrators): a queue of every workspace listens on their observe channels.',
        response: { 200: { type: 'array', items: str }, ...errorResponses },
      },
    },
    async (request) => help.watchedWorkspaces(actorOf(request)),
  );

  app.post(
    '/api/help/:id/claim',
    {
      schema: {
        description:
          'The caller (an observer of the workspace) is on it; claiming one claimed by another takes it over.',
        params: idParams,
        response: one,
      },
    },
    async (request) => help.claim(actorOf(request), request.params.id),
  );

  app.post(
    '/api/help/:id/answer',
    {
      schema: {
        description: `Answers and closes the request: a text of 1 to ${MAX_HELP_ANSWER} characters, trimmed.`,
        params: idParams,
        body: { type: 'object', properties: { text: str } },
        response: { ...one, ...bodyErrorResponses },
      },
    },
    async (request) => help.answer(actorOf(request), request.params.id, request.body.text),
  );

  app.post(
    '/api/help/:id/cancel',
    {
      schema: {
        description: 'A player of the gamespace takes the open request back.',
        params: idParams,
        response: one,
      },
    },
    async (request) => help.cancel(actorOf(request), request.params.id),
  );
}
