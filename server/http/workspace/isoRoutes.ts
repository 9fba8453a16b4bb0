import type { FastifyInstance } from 'fastify';
import type { IsoStore } from '../../core/isos';
import { actorOf } from '../auth';
import { caseInsensitiveQuery } from './query';
import { errorResponses, notFoundResponse, vmOptionsSchema } from '../schemas';
import { idParams } from './schemas';
import { typed } from '../typed';

// A workspace's ISO files (wire reference §1.1, §4.9): the list a template's ISO is chosen from,
// which templates use one, and its removal.

const isoUsageSchema = {
  type: 'object',
  properties: {
    templates: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          workspaceName: { type: ['string', 'null'] },
        },
      },
    },
    activeGamespaces: {
      type: 'array',
      items: {
        type: 'object',
        properties: { id: { type: 'string' }, name: { type: 'string' } },
      },
    },
  },
} as const;

const pathQuery = {
  type: 'object',
  required: ['path'],
  properties: { path: { type: 'string', maxLength: 512 } },
} as const;

export async function workspaceIsoRoutes(fastify: FastifyInstance, options: { isos: IsoStore }) {
  const app = typed(fastify);
  const { isos } = options;
  caseInsensitiveQuery(app);

  app.get(
    '/api/workspace/:id/isos',
    {
      schema: {
        params: idParams,
        querystring: {
          type: 'object',
          properties: {
            term: { type: 'string', maxLength: 256 },
            local: { type: 'boolean' },
            // The SPA asks for a fresh list; the folders are read on every call anyway.
            refresh: { type: 'boolean' },
          },
        },
        response: { 200: vmOptionsSchema, ...errorResponses },
      },
    },
    async (request) => isos.list(actorOf(request), request.params.id, request.query),
  );

  app.get(
    '/api/workspace/:id/iso-usage',
    {
      schema: {
        params: idParams,
        querystring: pathQuery,
        response: { 200: isoUsageSchema, ...errorResponses },
      },
    },
    async (request) => isos.usage(actorOf(request), request.params.id, request.query.path),
  );

  app.delete(
    '/api/workspace/:id/iso',
    {
      schema: {
        params: idParams,
        querystring: pathQuery,
        response: { 200: { type: 'boolean' }, ...notFoundResponse, ...errorResponses },
      },
    },
    async (request, reply) => {
      const removed = await isos.remove(actorOf(request), request.params.id, request.query.path);
      return removed ? reply.code(200).send(true) : reply.code(404).send('');
    },
  );
}
