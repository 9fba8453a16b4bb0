import type { FastifyInstance } from 'fastify';
import type {
  ChangedWorkspace,
  NewWorkspace,
  WorkspaceSearch,
  WorkspaceService,
} from '../../core/workspaces';
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

// Workspace routes (wire reference §1.1). The rules live in the workspace service: an unknown id
// is 400 ResourceNotFound before authorization, authorization failures 403 with an empty body.

type IdRoute = { Params: { id: string } };

const changed = { ...doneResponses, ...bodyErrorResponses } as const;

export async function workspaceRoutes(
  app: FastifyInstance,
  options: { workspaces: WorkspaceService },
) {
  const { workspaces } = options;
  caseInsensitiveQuery(app);

  app.get<{ Querystring: WorkspaceSearch }>(
    '/api/workspaces',
    {
      schema: {
        querystring: workspaceSearchQuery,
        response: { 200: { type: 'array', items: workspaceSummarySchema }, ...errorResponses },
      },
    },
    async (request) => workspaces.list(actorOf(request), request.query),
  );

  app.post<{ Body: NewWorkspace }>(
    '/api/workspace',
    {
      schema: {
        body: newWorkspaceBody,
        response: { 200: workspaceSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => workspaces.create(actorOf(request), request.body ?? {}),
  );

  app.get<IdRoute>(
    '/api/workspace/:id',
    { schema: { params: idParams, response: { 200: workspaceSchema, ...errorResponses } } },
    async (request) => workspaces.get(actorOf(request), request.params.id),
  );

  app.put<{ Body: ChangedWorkspace }>(
    '/api/workspace',
    { schema: { body: changedWorkspaceBody, response: changed } },
    async (request, reply) => {
      // RestrictedChangedWorkspace: the template scope and limit are left as they are.
      await workspaces.update(actorOf(request), request.body ?? {});
      return reply.code(200).send('');
    },
  );

  app.put<{ Body: ChangedWorkspace }>(
    '/api/workspace/priv',
    { schema: { body: changedWorkspaceBody, response: changed } },
    async (request, reply) => {
      await workspaces.update(actorOf(request), request.body ?? {}, true);
      return reply.code(200).send('');
    },
  );

  app.delete<IdRoute>(
    '/api/workspace/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await workspaces.remove(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );

  app.post<IdRoute>(
    '/api/workspace/:id/clone',
    { schema: { params: idParams, response: { 200: workspaceSchema, ...errorResponses } } },
    async (request) => workspaces.clone(actorOf(request), request.params.id),
  );

  app.get<IdRoute>(
    '/api/workspace/:id/stats',
    { schema: { params: idParams, response: { 200: workspaceStatsSchema, ...errorResponses } } },
    async (request) => workspaces.stats(actorOf(request), request.params.id),
  );

  app.delete<IdRoute>(
    '/api/workspace/:id/games',
    { schema: { params: idParams, response: { 200: workspaceStatsSchema, ...errorResponses } } },
    async (request) => workspaces.endGames(actorOf(request), request.params.id),
  );

  app.put<IdRoute>(
    '/api/workspace/:id/invite',
    { schema: { params: idParams, response: { 200: joinCodeSchema, ...errorResponses } } },
    async (request) => workspaces.invite(actorOf(request), request.params.id),
  );

  app.post<{ Params: { code: string } }>(
    '/api/worker/:code',
    {
      schema: {
        params: codeParams,
        response: { 200: workspaceSummarySchema, ...errorResponses },
      },
    },
    async (request) => workspaces.enlist(actorOf(request), request.params.code),
  );

  app.delete<{ Params: { id: string; subjectId: string } }>(
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

  app.put<{ Params: { workspaceId: string } }>(
    '/api/workspace-favorite/:workspaceId',
    { schema: { params: favoriteParams, response: { ...doneResponses, ...notFoundResponse } } },
    async (request, reply) => {
      const found = await workspaces.favorite(actorOf(request), request.params.workspaceId);
      return reply.code(found ? 200 : 404).send('');
    },
  );

  app.delete<{ Params: { workspaceId: string } }>(
    '/api/workspace-favorite/:workspaceId',
    { schema: { params: favoriteParams, response: doneResponses } },
    async (request, reply) => {
      await workspaces.unfavorite(actorOf(request), request.params.workspaceId);
      return reply.code(200).send('');
    },
  );
}
