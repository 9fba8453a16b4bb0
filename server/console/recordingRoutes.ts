import { createGunzip } from 'node:zlib';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { actorOf } from '../http/auth';
import { errorResponses, idParams } from '../http/schemas';
import { typed } from '../http/typed';
import type { ConsoleRecordings } from './recordings';

// Console recordings (./recordings.ts), for observers and administrators (src/api/recordings.ts):
// GET /api/gamespace/{id}/recordings lists a gamespace's, oldest first; GET
// /api/recording/{id}/stream sends one's record stream, gzip-encoded as it is stored (or plain
// to a client that does not take gzip), an open one as far as it was written; `?download=1`
// sends it as a file to save. Unknown ids are 400 ResourceNotFound, callers outside the
// gamespace's audience 403.

const recordingSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    gamespaceId: { type: 'string' },
    machineId: { type: 'string' },
    machineName: { type: 'string' },
    userId: { type: 'string' },
    userName: { type: 'string' },
    startedAt: { type: 'string' },
    endedAt: { type: ['string', 'null'] },
    durationMs: { type: 'integer' },
    bytes: { type: 'integer' },
    truncated: { type: 'boolean' },
  },
} as const;

const streamQuery = {
  type: 'object',
  properties: { download: { type: 'string', enum: ['0', '1', 'true', 'false'] } },
} as const;

const acceptsGzip = (header: string | undefined): boolean =>
  (header ?? '')
    .split(',')
    .map((part) => part.trim().split(';'))
    .some(([coding, ...params]) => {
      const name = coding?.trim().toLowerCase();
      const q = params.map((p) => /^\s*q=([\d.]+)/.exec(p)?.[1]).find(Boolean);
      return (name === 'gzip' || name === '*') && (q === undefined || Number(q) > 0);
    });

export async function recordingRoutes(
  fastify: FastifyInstance,
  options: { recordings: ConsoleRecordings },
) {
  const app = typed(fastify);
  const { recordings } = options;

  app.get(
    '/api/gamespace/:id/recordings',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: recordingSchema }, ...errorResponses },
      },
    },
    async (request) => recordings.list(actorOf(request), request.params.id),
  );

  app.get(
    '/api/recording/:id/stream',
    {
      schema: {
        params: idParams,
        querystring: streamQuery,
        response: {
          200: {
            description:
              'The record stream: `u32 BE ms | u8 channel | u32 BE length | bytes`, repeated',
            content: {
              'application/octet-stream': { schema: { type: 'string', format: 'binary' } },
            },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const found = await recordings.stream(actorOf(request), request.params.id);
      const download = request.query.download === '1' || request.query.download === 'true';
      reply
        .type('application/octet-stream')
        .header('cache-control', 'private, no-store')
        .header('vary', 'accept-encoding');
      if (download) {
        reply.header('content-disposition', `attachment; filename="${found.fileName}"`);
      }
      const gzip = await found.gzip();
      const body = Buffer.isBuffer(gzip) ? Readable.from([gzip]) : gzip;
      if (acceptsGzip(request.headers['accept-encoding'])) {
        return reply.header('content-encoding', 'gzip').send(body);
      }
      return reply.send(body.pipe(createGunzip()));
    },
  );
}
