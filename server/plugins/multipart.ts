import fastifyMultipart from '@fastify/multipart';
import fp from 'fastify-plugin';
import { MAX_IMAGE_BYTES } from '../core/images';

// Multipart bodies (images, ISO uploads) are streamed: each route reads its parts itself. The
// defaults suit document images (one file, one byte over their limit so that a too-large file is
// told apart); routes with bigger files pass their own limits.

export const multipartPlugin = fp(
  async (fastify) => {
    await fastify.register(fastifyMultipart, {
      limits: { fileSize: MAX_IMAGE_BYTES + 1, files: 1, fields: 10, parts: 20 },
    });
  },
  { name: 'multipart' },
);
