import type { FastifyInstance } from 'fastify';
import { MAX_CHUNK_BYTES, type DiskImageStore } from '../../core/diskImages';
import { bodyErrorResponses, errorResponses, notFoundResponse } from '../schemas';
import { typed } from '../typed';

// Disk images imported by administrators into the qemu driver's images folder (issue 31;
// server/core/diskImages.ts): a resumable upload in chunks, then a check and a conversion to
// qcow2; the list with the templates naming each image; and deletion of an image no template
// names. All of them are the administrators' only.

const uploadSchema = {
  type: 'object',
  required: ['id', 'name', 'size', 'received'],
  properties: {
    id: { type: 'string', description: 'The upload, for its chunks and completion.' },
    name: { type: 'string', description: 'The image it becomes in the images folder (.qcow2).' },
    size: { type: 'integer', description: 'The bytes declared.' },
    received: {
      type: 'integer',
      description: 'The bytes written so far: the offset the next chunk starts at.',
    },
  },
} as const;

const imageSchema = {
  type: 'object',
  required: ['name', 'size', 'virtualSize', 'templates'],
  properties: {
    name: { type: 'string', description: "The file name: a template disk's Path names it." },
    size: { type: 'integer', description: 'Bytes on disk.' },
    virtualSize: { type: ['integer', 'null'], description: 'The disk size a guest sees.' },
    templates: {
      type: 'array',
      description: 'The templates whose detail names it (it cannot be deleted while any does).',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          workspaceName: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

const uploadIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', maxLength: 64 } },
} as const;

const nameParams = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', maxLength: 255 } },
} as const;

export async function adminDiskImageRoutes(
  fastify: FastifyInstance,
  options: { diskImages: DiskImageStore },
): Promise<void> {
  const app = typed(fastify);
  const { diskImages } = options;

  // A chunk is streamed from the request to its file as it arrives, never held whole (this
  // plugin's routes only). The parser leaves it unread: as a parsed body, the stream would be
  // walked as an object by the body hooks (server/http/body.ts).
  fastify.addContentTypeParser('application/octet-stream', (_request, _payload, done) =>
    done(null, undefined),
  );

  app.get(
    '/api/admin/diskimages',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'List disk images',
        response: { 200: { type: 'array', items: imageSchema }, ...errorResponses },
      },
    },
    async () => diskImages.list(),
  );

  app.post(
    '/api/admin/diskimage',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Start a disk image upload',
        description:
          'A qcow2, raw (.raw, .img), vmdk, vdi or ova file of `size` bytes, sent next in chunks.',
        body: {
          type: 'object',
          required: ['name', 'size'],
          properties: {
            name: { type: 'string', maxLength: 255 },
            size: { type: 'integer', minimum: 1 },
          },
        },
        response: { 200: uploadSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => diskImages.start(request.body),
  );

  app.get(
    '/api/admin/diskimage/:id',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Get a disk image upload',
        description: 'How many bytes have arrived: a resumed upload goes on from there.',
        params: uploadIdParams,
        response: { 200: uploadSchema, ...errorResponses },
      },
    },
    async (request) => diskImages.status(request.params.id),
  );

  app.put(
    '/api/admin/diskimage/:id/chunk',
    {
      config: { auth: 'admin', upload: true },
      bodyLimit: MAX_CHUNK_BYTES,
      // Any other type would be read whole by the server's text parser before being refused.
      onRequest: (request, reply, done) => {
        if (/^application\/octet-stream\b/i.test(request.headers['content-type'] ?? '')) {
          return done();
        }
        void reply.code(415).send({ message: 'UnsupportedMediaType' });
      },
      schema: {
        summary: 'Send a disk image chunk',
        description:
          'application/octet-stream bytes from `offset`, which must be the bytes received so far.',
        params: uploadIdParams,
        querystring: {
          type: 'object',
          required: ['offset'],
          properties: { offset: { type: 'integer', minimum: 0 } },
        },
        response: { 200: uploadSchema, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => diskImages.writeChunk(request.params.id, request.query.offset, request.raw),
  );

  app.post(
    '/api/admin/diskimage/:id/complete',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Complete a disk image upload',
        description:
          'Checks the image with qemu-img and converts it to qcow2 into the images folder; ' +
          'refused or not, the upload is gone afterwards.',
        params: uploadIdParams,
        response: { 200: imageSchema, ...errorResponses },
      },
    },
    async (request) => diskImages.complete(request.params.id),
  );

  app.delete(
    '/api/admin/diskimage/:id/upload',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Abandon a disk image upload',
        params: uploadIdParams,
        response: { 200: { type: 'boolean' }, ...notFoundResponse, ...errorResponses },
      },
    },
    async (request, reply) =>
      (await diskImages.abandon(request.params.id))
        ? reply.code(200).send(true)
        : reply.code(404).send(''),
  );

  app.delete(
    '/api/admin/diskimage/:name',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Delete a disk image',
        description: 'Refused while a template names it.',
        params: nameParams,
        response: { 200: { type: 'boolean' }, ...notFoundResponse, ...errorResponses },
      },
    },
    async (request, reply) =>
      (await diskImages.remove(request.params.name))
        ? reply.code(200).send(true)
        : reply.code(404).send(''),
  );
}
