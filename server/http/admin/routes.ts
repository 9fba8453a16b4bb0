import type { FastifyInstance } from 'fastify';
import type { Hub } from '../../hub/hub';
import type { ErrorLog } from '../../core/errorLog';
import { invalid } from '../../core/fields';
import { janitorOptions, type Janitor, type JanitorOptions } from '../../core/janitor';
import type { HypervisorDriver } from '../../hypervisor';
import { actorOf } from '../auth';
import { bodyErrorResponses, errorResponses } from '../schemas';
import { typed } from '../typed';
import { caseInsensitiveQuery } from '../workspace/query';

const liveSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      room: { type: 'string' },
      profileId: { type: 'string' },
      profileName: { type: 'string' },
    },
  },
} as const;

/** JanitorOptions; a request without a body (read as text) takes the defaults. */
const janitorBody = {
  anyOf: [
    {
      type: 'object',
      properties: {
        dryRun: { type: 'boolean' },
        idleWorkspaceVmsExpiration: { type: 'string' },
        inactiveWorkspaceExpiration: { type: 'string' },
        unpublishedWorkspaceTimeout: { type: 'string' },
      },
    },
    { type: 'null' },
    { type: 'string' },
  ],
} as const;

const janitorReportSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      id: { type: 'string' },
      name: { type: 'string' },
      reason: { type: 'string' },
      age: { type: 'string' },
      ownerName: { type: 'string' },
      vmCount: { type: 'integer' },
    },
  },
} as const;

/** GET /api/admin/hypervisor (ours, not the reference's): the driver's DriverStatus. */
const hypervisorSchema = {
  type: 'object',
  required: [
    'kind',
    'acceleration',
    'running',
    'maxRunning',
    'memoryMiBInUse',
    'maxMemoryMiB',
    'orphans',
  ],
  properties: {
    kind: { type: 'string', enum: ['sim', 'qemu', 'proxmox'], description: 'The driver in use.' },
    acceleration: {
      type: 'string',
      description: 'How machines run: "KVM", "software emulation", ...',
    },
    running: { type: 'integer', description: 'Machines running now.' },
    maxRunning: {
      type: ['integer', 'null'],
      description: 'The cap on running machines; null when there is none.',
    },
    memoryMiBInUse: { type: 'integer', description: 'Memory of the running machines, in MiB.' },
    maxMemoryMiB: {
      type: ['integer', 'null'],
      description: 'The cap on their memory, in MiB; null when there is none.',
    },
    reserved: {
      type: 'object',
      required: ['machines', 'memoryMiB'],
      properties: { machines: { type: 'integer' }, memoryMiB: { type: 'integer' } },
      description:
        'Room admitted and not running yet (launches being deployed, warm image builds), counted against the caps as running machines are; absent when the driver reserves nothing.',
    },
    orphans: {
      type: 'integer',
      description:
        'What the hypervisor keeps that no machine needs any more (a QEMU process whose machine is gone, a Proxmox base image a save replaced); the janitor removes them.',
    },
  },
} as const;

/** GET /api/admin/log: `since` is a date (ISO 8601) or epoch milliseconds. */
const logQuery = {
  type: 'object',
  properties: { since: { type: 'string', maxLength: 64 } },
} as const;

const logSchema = {
  type: 'array',
  items: {
    type: 'object',
    properties: {
      timestamp: { type: 'string' },
      message: { type: 'string' },
      stackTrace: { type: 'string' },
      level: { type: 'string', description: "Topoplay's own: 'error'." },
      requestId: {
        type: ['string', 'null'],
        description: "Topoplay's own: the failed request's id (x-request-id) in the server's log.",
      },
    },
  },
} as const;

/** `since` as epoch milliseconds; none (or empty) means every entry. */
function sinceOf(since: string | undefined): number | null {
  if (since === undefined || since.trim() === '') return null;
  const value = /^\d+$/.test(since.trim()) ? Number(since) : Date.parse(since);
  if (Number.isNaN(value)) throw invalid('since');
  return value;
}

export async function adminRoutes(
  fastify: FastifyInstance,
  options: {
    hub: Hub;
    janitor: Janitor;
    errorLog: ErrorLog;
    driver: Pick<HypervisorDriver, 'status'>;
  },
): Promise<void> {
  const app = typed(fastify);
  const { hub, janitor, errorLog, driver } = options;
  caseInsensitiveQuery(app);

  // This process's recent unexpected errors (wire reference §1.8), oldest first.
  app.get(
    '/api/admin/log',
    {
      config: { auth: 'admin' },
      schema: {
        querystring: logQuery,
        response: { 200: logSchema, ...errorResponses },
      },
    },
    async (request) => errorLog.since(sinceOf(request.query.since)),
  );

  // The janitor on demand (wire reference §1.8, §4.6), with optional JanitorOptions; an empty
  // body (or none) takes the defaults, a dry run among them.
  type JanitorRoute = { Body: Partial<JanitorOptions> | null | string | undefined };
  const janitorRoute = {
    config: { auth: 'admin' as const },
    schema: {
      body: janitorBody,
      response: { 200: janitorReportSchema, ...errorResponses, ...bodyErrorResponses },
    },
  };
  const optionsOf = (body: JanitorRoute['Body']) =>
    janitorOptions(body && typeof body === 'object' ? body : null);
  app.post('/api/admin/janitor', janitorRoute, async (request) =>
    janitor.run(optionsOf(request.body)),
  );
  app.post('/api/admin/janitor/idlewsvms', janitorRoute, async (request) =>
    janitor.idleWorkspaceVms(optionsOf(request.body)),
  );

  // The hypervisor as this server drives it (the admin dashboard): which driver, how it runs
  // machines, how many run against its caps, and its orphans.
  app.get(
    '/api/admin/hypervisor',
    {
      config: { auth: 'admin' },
      schema: { response: { 200: hypervisorSchema, ...errorResponses } },
    },
    async () => driver.status(),
  );

  // Hub connections on every server process: one row per connection and room it listens in.
  app.get(
    '/api/admin/live',
    { config: { auth: 'admin' }, schema: { response: { 200: liveSchema, ...errorResponses } } },
    async () => hub.live(),
  );

  // A message to every connected client (text/plain, or a JSON string).
  app.post(
    '/api/admin/announce',
    {
      config: { auth: 'admin' },
      schema: {
        body: { type: 'string' },
        response: { 200: { type: 'boolean' }, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      const actor = actorOf(request);
      hub.toAll().send('GlobalEvent', {
        action: 'GLOBAL.ANNOUNCE',
        actor: { id: actor.id, name: actor.name },
        model: request.body ?? '',
      });
      return true;
    },
  );
}
