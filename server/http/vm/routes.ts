import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { VmAnswer, VmConsole } from '../../core/vmViews';
import type { VmService, WorkspaceAccess } from '../../core/vms';
import type { ConsoleViewer, ConsoleViewers } from '../../console/viewers';
import { invalid } from '../../core/fields';
import { actorOf } from '../auth';
import { bodyErrorResponses, doneResponses, errorResponses } from '../schemas';
import { caseInsensitiveQuery } from '../workspace/query';
import {
  idParams,
  operationType,
  vmAnswerBody,
  vmChangeBody,
  vmConsoleSchema,
  vmOperationBody,
  vmOptionsSchema,
  vmOrNullSchema,
  vmSchema,
  vmsQuery,
} from './schemas';
import { typed } from '../typed';

// VM routes (wire reference §1.4). The rules live in the VM service. Console pages run in their
// own tab with only the `topomojo.mks` cookie, so the routes they call accept any scheme
// (`anyUser`); reading a machine (GET vm/{id}) does not.

/**
 * A console path the driver serves through this server becomes an absolute WebSocket address on
 * the host the client used, since the console page may be served from another origin.
 */
export function absoluteConsoleUrl(url: string, request: FastifyRequest): string {
  if (!url.startsWith('/')) return url;
  const scheme = request.protocol === 'https' ? 'wss' : 'ws';
  return `${scheme}://${request.host}${url}`;
}

export async function vmRoutes(
  fastify: FastifyInstance,
  options: {
    vms: VmService;
    workspaces: WorkspaceAccess;
    /** Who has each machine's console open (server/console/viewers.ts). */
    consoleViewers?: Pick<ConsoleViewers, 'of'>;
  },
) {
  const app = typed(fastify);
  const { vms, workspaces, consoleViewers } = options;
  caseInsensitiveQuery(app);

  app.get(
    '/api/vms',
    {
      schema: {
        querystring: vmsQuery,
        response: { 200: { type: 'array', items: vmSchema }, ...errorResponses },
      },
    },
    async (request) => vms.list(actorOf(request), request.query.filter ?? ''),
  );

  app.get(
    '/api/vm/:id',
    { schema: { params: idParams, response: { 200: vmOrNullSchema, ...errorResponses } } },
    async (request, reply) => {
      const vm = await vms.load(actorOf(request), request.params.id);
      // Fastify sends nothing for a null payload; the reference answers JSON null.
      if (!vm) return reply.type('application/json; charset=utf-8').send('null');
      return vm;
    },
  );

  app.put(
    '/api/vm',
    {
      config: { auth: 'anyUser' },
      schema: {
        body: vmOperationBody,
        response: { 200: vmSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const type = operationType(request.body.type);
      if (!type) throw invalid('type');
      return vms.operate(actorOf(request), { id: request.body.id, type });
    },
  );

  app.delete(
    '/api/vm/:id',
    { schema: { params: idParams, response: { 200: vmSchema, ...errorResponses } } },
    async (request) => vms.remove(actorOf(request), request.params.id),
  );

  app.put(
    '/api/vm/:id/change',
    {
      config: { auth: 'anyUser' },
      schema: {
        params: idParams,
        body: vmChangeBody,
        response: { 200: vmSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) =>
      vms.change(actorOf(request), request.params.id, {
        key: request.body.key,
        value: request.body.value ?? '',
      }),
  );

  app.put(
    '/api/vm/:id/answer',
    {
      config: { auth: 'anyUser' },
      schema: {
        params: idParams,
        body: vmAnswerBody,
        response: { 200: vmSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const answer: VmAnswer = {
        questionId: request.body?.questionId ?? '',
        choiceKey: request.body?.choiceKey ?? '',
      };
      return vms.answer(actorOf(request), request.params.id, answer);
    },
  );

  app.get(
    '/api/vm/:id/isos',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: vmOptionsSchema, ...errorResponses } },
    },
    async (request) => vms.isos(actorOf(request), request.params.id),
  );

  app.get(
    '/api/vm/:id/nets',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: vmOptionsSchema, ...errorResponses } },
    },
    async (request) => vms.nets(actorOf(request), request.params.id),
  );

  app.get(
    '/api/vm-console/:id',
    {
      config: { auth: 'anyUser' },
      schema: {
        params: idParams,
        // Ours: an administrator watching a gamespace's machine takes control with it; an
        // observer asking for it is refused (403).
        querystring: {
          type: 'object',
          properties: { control: { type: 'boolean', default: false } },
        } as const,
        response: { 200: vmConsoleSchema, ...errorResponses },
      },
    },
    async (request): Promise<VmConsole & { viewers: ConsoleViewer[] }> => {
      const display = await vms.console(
        actorOf(request),
        request.params.id,
        request.query.control === true,
      );
      return {
        ...display,
        url: absoluteConsoleUrl(display.url, request),
        viewers: consoleViewers?.of(display.id) ?? [],
      };
    },
  );

  // The networks a workspace's templates may use (wire reference §1.1: ws.CanEdit).
  app.get(
    '/api/workspace/:id/nets',
    { schema: { params: idParams, response: { 200: vmOptionsSchema, ...errorResponses } } },
    async (request) => vms.workspaceNets(actorOf(request), request.params.id, workspaces),
  );

  app.get(
    '/api/vm-template/:id',
    { schema: { params: idParams, response: { 200: vmSchema, ...errorResponses } } },
    async (request) => vms.refreshTemplate(actorOf(request), request.params.id),
  );

  app.post(
    '/api/vm-template/:id',
    { schema: { params: idParams, response: { 200: vmSchema, ...errorResponses } } },
    async (request) => vms.deployTemplate(actorOf(request), request.params.id),
  );

  app.put(
    '/api/vm-template/:id',
    { schema: { params: idParams, response: { 200: { type: 'integer' }, ...errorResponses } } },
    async (request) => vms.initializeTemplate(actorOf(request), request.params.id),
  );

  // Reconnects a vSphere host in the reference; no driver here keeps host connections.
  app.post(
    '/api/pod/:id',
    { config: { auth: 'admin' }, schema: { params: idParams, response: doneResponses } },
    async (_request, reply) => reply.code(200).send(''),
  );
}
