import type { FastifyInstance } from 'fastify';
import { DomainError } from '../../core/errors';
import { GuestFileTooLarge, type GuestFileService } from '../../core/guestFiles';
import { actorOf } from '../auth';
import { isForm, readForm } from '../form';
import { bodyErrorResponses, errorResponses } from '../schemas';
import { typed } from '../typed';
import { idParams } from './schemas';

// Files into a running machine from its console (server/core/guestFiles.ts): a multipart form
// with one file, whose name becomes the file's name inside the machine. The console page calls
// it with the console cookie, as it calls the other console routes (`anyUser`).

/** One part: the file. */
const FORM_LIMITS = { parts: 1, fieldBytes: 1024 };

const accessSchema = {
  type: 'object',
  required: ['available', 'how', 'maxBytes', 'reason'],
  properties: {
    available: { type: 'boolean' },
    how: { type: ['string', 'null'], enum: ['agent', 'simulated', null] },
    maxBytes: { type: 'integer' },
    reason: { type: ['string', 'null'] },
  },
} as const;

const putSchema = {
  type: 'object',
  required: ['name', 'path', 'size', 'sha256'],
  properties: {
    name: { type: 'string' },
    path: { type: 'string', description: 'Where the file is inside the machine' },
    size: { type: 'integer' },
    sha256: { type: 'string' },
  },
} as const;

export async function guestFileRoutes(
  fastify: FastifyInstance,
  options: { files: GuestFileService },
) {
  const app = typed(fastify);
  const { files } = options;

  app.get(
    '/api/vm/:id/files',
    {
      config: { auth: 'anyUser' },
      schema: { params: idParams, response: { 200: accessSchema, ...errorResponses } },
    },
    async (request) => files.access(actorOf(request), request.params.id),
  );

  app.post(
    '/api/vm/:id/files',
    {
      config: { auth: 'anyUser', upload: true },
      schema: {
        params: idParams,
        response: {
          200: putSchema,
          ...errorResponses,
          ...bodyErrorResponses,
        },
      },
    },
    async (request, reply) => {
      if (!isForm(request)) throw new DomainError('InvalidOperation', 'Expected a form.');
      const actor = actorOf(request);
      await files.authorize(actor, request.params.id);
      for await (const part of readForm(request, FORM_LIMITS)) {
        if (part.type !== 'file') continue;
        const name = files.nameOf(part.filename);
        try {
          return await files.put(actor, request.params.id, name, part.file);
        } catch (error) {
          if (error instanceof GuestFileTooLarge) {
            return reply.code(413).send({ message: error.message });
          }
          throw error;
        }
      }
      throw new DomainError('InvalidOperation', 'The form has no file.');
    },
  );
}
