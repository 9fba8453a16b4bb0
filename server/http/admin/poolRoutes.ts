import type { FastifyInstance } from 'fastify';
import type { PoolService } from '../../core/pools/service';
import { bodyErrorResponses, errorResponses } from '../schemas';
import { typed } from '../typed';

// Warm pools (ours, not the reference's; core/pools): per workspace, how many gamespaces'
// machine sets are kept deployed ahead of launches, how the pool is doing, and launches
// scheduled ahead, for which the pool grows in time. Administrators only.

const poolSchema = {
  type: 'object',
  required: [
    'workspaceId',
    'workspaceName',
    'size',
    'target',
    'ready',
    'warming',
    'failed',
    'claimedLastHour',
    'misses',
    'schedules',
    'unpoolable',
  ],
  properties: {
    workspaceId: { type: 'string' },
    workspaceName: {
      type: ['string', 'null'],
      description: "The workspace's name; null when the workspace was deleted since.",
    },
    size: { type: 'integer', description: 'Sets to keep ready; 0: no pool.' },
    target: {
      type: 'integer',
      description: 'Sets the keeper aims at now: the size, or a scheduled launch count near now.',
    },
    ready: { type: 'integer', description: 'Sets deployed and never used, ready to claim.' },
    warming: { type: 'integer', description: 'Sets whose machines are being deployed.' },
    failed: { type: 'integer', description: 'Sets whose deploy failed, not reclaimed yet.' },
    claimedLastHour: { type: 'integer', description: 'Sets launches claimed in the last hour.' },
    misses: { type: 'integer', description: 'Launches that found no ready set and deployed.' },
    schedules: {
      type: 'array',
      description: 'Scheduled launches not past yet, soonest first.',
      items: {
        type: 'object',
        required: ['count', 'at'],
        properties: { count: { type: 'integer' }, at: { type: 'string', format: 'date-time' } },
      },
    },
    unpoolable: {
      type: ['string', 'null'],
      description:
        "Why the hypervisor cannot keep the workspace's machines in a pool (a template with guest settings on an image without the guest agent), so none is kept; null when it can.",
    },
  },
} as const;

const idParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64, description: 'The workspace.' } },
} as const;

const sizeBody = {
  type: 'object',
  required: ['size'],
  properties: {
    size: { type: 'integer', minimum: 0, description: 'Sets to keep ready; 0 turns it off.' },
  },
} as const;

const scheduleBody = {
  type: 'object',
  required: ['count', 'at'],
  properties: {
    count: { type: 'integer', minimum: 1, description: 'Launches expected.' },
    at: { type: 'string', maxLength: 64, description: 'When (ISO 8601).' },
  },
} as const;

export async function adminPoolRoutes(
  fastify: FastifyInstance,
  options: { pools: PoolService },
): Promise<void> {
  const app = typed(fastify);
  const { pools } = options;

  app.get(
    '/api/admin/pools',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'List warm pools',
        response: { 200: { type: 'array', items: poolSchema }, ...errorResponses },
      },
    },
    async () => pools.list(),
  );

  app.get(
    '/api/admin/pools/:id',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Get a workspace's warm pool",
        params: idParams,
        response: { 200: poolSchema, ...errorResponses },
      },
    },
    async (request) => pools.get(request.params.id),
  );

  // Refused (400) when the driver cannot run pools, naming it, or when the size is beyond the
  // server's cap or what the hypervisor may run.
  app.put(
    '/api/admin/pools/:id',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "Set a workspace's warm pool size",
        params: idParams,
        body: sizeBody,
        response: { 200: poolSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => pools.setSize(request.params.id, request.body.size),
  );

  app.post(
    '/api/admin/pools/:id/schedule',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Schedule launches of a workspace',
        description:
          "N launches of the workspace at a time: the pool's target is raised to N from a lead " +
          'time before until some minutes after.',
        params: idParams,
        body: scheduleBody,
        response: { 200: poolSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => pools.schedule(request.params.id, request.body.count, request.body.at),
  );
}
