import type { FastifyInstance } from 'fastify';
import type { TemplateService } from '../../core/templates';
import { actorOf } from '../auth';
import { bodyErrorResponses, doneResponses, errorResponses } from '../schemas';
import { caseInsensitiveQuery } from '../workspace/query';
import {
  changedTemplateBody,
  idParams,
  siblingsQuery,
  templateCloneBody,
  templateDetailBody,
  templateDetailSchema,
  templateLinkBody,
  templateReLinkBody,
  templateSchema,
  templateSearchQuery,
  templateSummarySchema,
} from './schemas';
import { typed } from '../typed';

// Template routes (wire reference §1.3). The rules live in the template service; the
// template-detail and clone routes are for administrators only (403 before anything else).

const summaries = {
  200: { type: 'array', items: templateSummarySchema },
  ...errorResponses,
} as const;
const template = { 200: templateSchema, ...errorResponses } as const;
const templateChanged = { ...template, ...bodyErrorResponses } as const;
const detail = { 200: templateDetailSchema, ...errorResponses } as const;
const detailChanged = { ...detail, ...bodyErrorResponses } as const;
const changed = { ...doneResponses, ...bodyErrorResponses } as const;

export async function templateRoutes(
  fastify: FastifyInstance,
  options: { templates: TemplateService },
) {
  const app = typed(fastify);
  const { templates } = options;
  caseInsensitiveQuery(app);

  app.get(
    '/api/templates',
    { schema: { querystring: templateSearchQuery, response: summaries } },
    async (request) => templates.list(actorOf(request), request.query),
  );

  app.get(
    '/api/template/:id/siblings',
    { schema: { params: idParams, querystring: siblingsQuery, response: summaries } },
    async (request) =>
      templates.siblings(actorOf(request), request.params.id, request.query.pub === true),
  );

  app.get(
    '/api/template/:id',
    { schema: { params: idParams, response: template } },
    async (request) => templates.load(actorOf(request), request.params.id),
  );

  app.put(
    '/api/template',
    { schema: { body: changedTemplateBody, response: changed } },
    async (request, reply) => {
      await templates.update(actorOf(request), request.body ?? {});
      return reply.code(200).send('');
    },
  );

  app.delete(
    '/api/template/:id',
    { schema: { params: idParams, response: doneResponses } },
    async (request, reply) => {
      await templates.remove(actorOf(request), request.params.id);
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/template',
    { schema: { body: templateLinkBody, response: templateChanged } },
    async (request) => templates.link(actorOf(request), request.body ?? {}),
  );

  app.post(
    '/api/template/unlink',
    { schema: { body: templateLinkBody, response: templateChanged } },
    async (request) => templates.unlink(actorOf(request), request.body ?? {}),
  );

  app.post(
    '/api/template/relink',
    { schema: { body: templateReLinkBody, response: templateChanged } },
    async (request) => templates.relink(actorOf(request), request.body ?? {}),
  );

  app.get(
    '/api/workspace/:id/templates',
    { schema: { params: idParams, response: summaries } },
    async (request) => templates.scoped(actorOf(request), request.params.id),
  );

  app.get(
    '/api/template-detail/:id',
    {
      config: { auth: 'admin' },
      schema: { params: idParams, response: detail },
    },
    async (request) => templates.loadDetail(request.params.id),
  );

  app.post(
    '/api/template-detail',
    {
      config: { auth: 'admin' },
      schema: { body: templateDetailBody, response: detailChanged },
    },
    async (request) => templates.createDetail(request.body ?? {}),
  );

  app.put(
    '/api/template-detail',
    { config: { auth: 'admin' }, schema: { body: templateDetailBody, response: changed } },
    async (request, reply) => {
      await templates.configureDetail(request.body ?? {});
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/template/clone',
    {
      config: { auth: 'admin' },
      schema: { body: templateCloneBody, response: detailChanged },
    },
    async (request) => templates.clone(request.body ?? {}),
  );
}
