import { createReadStream } from 'node:fs';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { CRDT_HEADER, MAX_DOCUMENT_CHARS, type DocumentService } from '../../core/documents';
import { ValidationFailed } from '../../core/errors';
import type { ImageService, IncomingFile } from '../../core/images';
import { actorOf } from '../auth';
import { isForm, readForm } from '../form';
import {
  anonymousErrorResponses,
  bodyErrorResponses,
  doneResponses,
  errorResponses,
  notFoundResponse,
} from '../schemas';
import { caseInsensitiveQuery } from '../workspace/query';
import {
  crdtSchema,
  idParams,
  imageDeleteQuery,
  imageFileSchema,
  publishedParams,
} from './schemas';
import { typed } from '../typed';

// Documents and images (wire reference §1.6) and the co-editing log's state (`/crdt`, ours). The
// rules live in the document and image services: an unknown workspace is 400 ResourceNotFound,
// a caller who may not edit it 403 with an empty body.

/**
 * The most a document's text/plain body may take: its characters (UTF-16 units, which the
 * service limits) take at most 3 bytes each in UTF-8, with room left for a JSON string's escapes.
 */
export const DOCUMENT_BODY_LIMIT = 4 * MAX_DOCUMENT_CHARS;

/** Fields are not used: a client may send some before the file, short ones. */
const FORM_LIMITS = { parts: 20, fieldBytes: 8 * 1024 };

/** The first file of a multipart request, read as a stream (never buffered whole). */
async function firstFile(request: FastifyRequest): Promise<IncomingFile | undefined> {
  if (!isForm(request)) {
    throw new ValidationFailed(
      'file',
      'The upload must be multipart/form-data with a field "file"',
    );
  }
  for await (const part of readForm(request, FORM_LIMITS)) {
    if (part.type === 'file') return { filename: part.filename, stream: part.file };
  }
  return undefined;
}

export async function documentRoutes(
  fastify: FastifyInstance,
  options: { documents: DocumentService; images: ImageService },
) {
  const app = typed(fastify);
  const { documents, images } = options;
  caseInsensitiveQuery(app);

  app.get(
    '/api/document/:id',
    {
      schema: {
        params: idParams,
        response: {
          200: {
            description: 'The markdown; empty when the workspace has none',
            content: { 'text/plain': { schema: { type: 'string' } } },
          },
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const text = await documents.read(actorOf(request), request.params.id);
      return reply.type('text/plain; charset=utf-8').send(text);
    },
  );

  app.get(
    '/api/document/:id/crdt',
    { schema: { params: idParams, response: { 200: crdtSchema, ...errorResponses } } },
    async (request) => documents.crdt(actorOf(request), request.params.id),
  );

  app.put(
    '/api/document/:id',
    {
      bodyLimit: DOCUMENT_BODY_LIMIT,
      schema: { params: idParams, response: { ...doneResponses, ...bodyErrorResponses } },
    },
    async (request, reply) => {
      const fromLog = request.headers[CRDT_HEADER] === 'yjs';
      await documents.save(actorOf(request), request.params.id, request.body, fromLog);
      return reply.code(200).send('');
    },
  );

  app.get(
    '/api/images/:id',
    {
      schema: {
        params: idParams,
        response: { 200: { type: 'array', items: imageFileSchema }, ...errorResponses },
      },
    },
    async (request) => images.list(actorOf(request), request.params.id),
  );

  app.post(
    '/api/image/:id',
    {
      config: { upload: true },
      schema: {
        params: idParams,
        response: { 200: imageFileSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    // A refused upload is answered at once and its connection closed (../body.ts), the rest of
    // its body unread.
    async (request) => images.upload(actorOf(request), request.params.id, () => firstFile(request)),
  );

  app.delete(
    '/api/image/:id',
    { schema: { params: idParams, querystring: imageDeleteQuery, response: doneResponses } },
    async (request, reply) => {
      await images.remove(actorOf(request), request.params.id, request.query.filename);
      return reply.code(200).send('');
    },
  );

  // The reference serves its DocRoot without authentication; players see these images in the
  // guide. Only uploaded kinds are served (never the markdown, whose part below the cut line is
  // for players of a started gamespace only), and `nosniff` keeps browsers to the stated type.
  app.get(
    '/docs/:workspaceId/:file',
    {
      config: { auth: 'anonymous' },
      schema: {
        params: publishedParams,
        response: {
          200: { description: 'The image file' },
          ...notFoundResponse,
          ...anonymousErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const found = await images.published(request.params.workspaceId, request.params.file);
      if (!found) return reply.code(404).send('');
      return reply
        .header('X-Content-Type-Options', 'nosniff')
        .header('Cache-Control', 'public, max-age=3600')
        .header('Content-Length', found.size)
        .type(found.type)
        .send(createReadStream(found.path));
    },
  );
}
