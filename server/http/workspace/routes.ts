import type { FastifyInstance } from 'fastify';
import type { WorkspaceService } from '../../core/workspaces';
import { actorOf } from '../auth';
import {
  bodyErrorResponses,
  doneResponses,
  errorResponses,
  notFoundResponse,
  stringListSchema,
} from '../schemas';
import { caseInsensitiveQuery } from './query';
import {
  changedWorkspaceBody,
  codeParams,
  favoriteParams,
  idParams,
  joinCodeSchema,
  newWorkspaceBody,
  workerParams,
  workspaceSchema,
  workspaceSearchQuery,
  workspaceStatsSchema,
  workspaceSummarySchema,
} from './schemas';
import { typed } from '../typed';

// Workspace routes (wire reference §1.1). The rules live in the workspace service: an unknown id
// is 400 ResourceNotFound before authorization, authorization failures 403 with an empty body.

const changed = { ...doneResponses, ...bodyErrorResponses } as const;

export async function workspaceRoutes(
  fastify: FastifyInstance,
  options: { workspaces: WorkspaceService },
) {
  const app = typed(fastify);
  const { workspaces } = options;
  caseInsensitiveQuery(app);

  app.get(
    '/api/workspaces',
    {
      schema: {
        querystring: workspaceSearchQuery,
        response: { 200: { type: 'array', items: workspaceSummarySchema }, ...errorResponses },
      },
    },
    async (request) => workspaces.list(actorOf(request), request.query),
  );

  app.post(
    '/api/workspace',
    {
      schema: {
        body: newWorkspaceBody,
        response: { 200: workspaceSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => workspaces.create(actorOf(request), request.body ?? {}),
  );

  app.get(
    '/api/workspace/:id',
    { schema: { params: idParams, response: { 200: workspaceSchema, ...errorResponses } } },
    async (request) => workspaces.get(actorOf(request), request.params.id),
  );

  app.put(
    '/api/workspace',
    { schema: { body: changedWorkspaceBody, response: changed } },
    async (request, reply) => {
      // RestrictedChangedWorkspace: the template scope and limit are left as they are.
      await workspaces.update(actorOf(request), request.body ?? {});
      return reply.code(200).send('');
    },
  );

  app.put(
    '/api/workspace/priv',
    { schema: { body: changedWorkspaceBody, response: changed } },
    async (request, reply) => {
      await workspaces.update(actorOf(request), request.body ?? {}, true);
      return reply.code(200).send('');
    },
  );

  app.delete(
    '/api/workspace/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await workspaces.remove(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/workspace/:id/clone',
    { schema: { params: idParams, response: { 200: workspaceSchema, ...errorResponses } } },
    async (request) => workspaces.clone(actorOf(request), request.params.id),
  );

  app.get(
    '/api/workspace/:id/stats',
    { schema: { params: idParams, response: { 200: workspaceStatsSchema, ...errorResponses } } },
    async (request) => workspaces.stats(actorOf(request), request.params.id),
  );

  app.delete(
    '/api/workspace/:id/games',
    { schema: { params: idParams, response: { 200: workspaceStatsSchema, ...errorResponses } } },
    async (request) => workspaces.endGames(actorOf(request), request.params.id),
  );

  app.put(
    '/api/workspace/:id/invite',
    { schema: { params: idParams, response: { 200: joinCodeSchema, ...errorResponses } } },
    async (request) => workspaces.invite(actorOf(request), request.params.id),
  );

  app.post(
    '/api/worker/:code',
    {
      schema: {
        params: codeParams,
        response: { 200: workspaceSummarySchema, ...errorResponses },
      },
    },
    async (request) => workspaces.enlist(actorOf(request), request.params.code),
  );

  app.delete(
    '/api/workspace/:id/worker/:subjectId',
    { schema: { params: workerParams, response: doneResponses } },
    async (request, reply) => {
      await workspaces.removeWorker(actorOf(request), request.params.id, request.params.subjectId);
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/workspace-favorites',
    { schema: { response: { 200: stringListSchema, ...errorResponses } } },
    async (request) => workspaces.favorites(actorOf(request)),
  );

  app.put(
    '/api/workspace-favorite/:workspaceId',
    { schema: { params: favoriteParams, response: { ...doneResponses, ...notFoundResponse } } },
    async (request, reply) => {
      const found = await workspaces.favorite(actorOf(request), request.params.workspaceId);
      return reply.code(found ? 200 : 404).send('');
    },
  );

  app.delete(
    '/api/workspace-favorite/:workspaceId',
    { schema: { params: favoriteParams, response: doneResponses } },
    async (request, reply) => {
      await workspaces.unfavorite(actorOf(request), request.params.workspaceId);
      return reply.code(200).send('');
    },
  );
}
