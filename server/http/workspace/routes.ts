import type { FastifyInstance } from 'fastify';
import { forbidden, ValidationFailed } from '../../core/errors';
import type { NewWorkspace, WorkspaceService } from '../../core/workspaces';
import { actorOf } from '../auth';

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const;

const newWorkspaceBody = {
  type: 'object',
  properties: {
    name: { type: ['string', 'null'] },
    description: { type: ['string', 'null'] },
    tags: { type: ['string', 'null'] },
    author: { type: ['string', 'null'] },
    audience: { type: ['string', 'null'] },
    challenge: {},
    document: {},
    templateScope: { type: ['string', 'null'] },
    templateLimit: { type: ['integer', 'null'] },
  },
} as const;

export async function workspaceRoutes(
  app: FastifyInstance,
  options: { workspaces: WorkspaceService },
) {
  const { workspaces } = options;

  app.post<{ Body: NewWorkspace }>(
    '/api/workspace',
    { schema: { body: newWorkspaceBody } },
    async (request) => workspaces.create(actorOf(request), request.body ?? {}),
  );

  app.get<{ Params: { id: string } }>(
    '/api/workspace/:id',
    { schema: { params: idParams } },
    async (request) => {
      const { id } = request.params;
      // As the reference's validation filter: an unknown id is 400 before authorization.
      if (!(await workspaces.exists(id))) throw new ValidationFailed('id', 'ResourceNotFound');
      if (!(await workspaces.canEdit(actorOf(request), id))) throw forbidden();
      return workspaces.load(id);
    },
  );
}
