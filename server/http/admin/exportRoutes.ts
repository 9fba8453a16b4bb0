import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ArchiveService } from '../../core/archives';
import { DomainError, ValidationFailed } from '../../core/errors';
import { MAX_ARCHIVE_BYTES } from '../../core/workspaceArchive';
import { isForm, readForm } from '../form';
import { bodyErrorResponses, doneResponses, errorResponses } from '../schemas';
import { typed } from '../typed';

// Export and import of workspaces as a zip (wire reference §1.8; the layout is in
// server/core/workspaceArchive.ts, the work server/core/archives.ts). All four routes are the
// admin's only.

const idsBody = {
  type: 'array',
  items: { type: 'string', maxLength: 64 },
  maxItems: 10_000,
  description: 'Workspace ids, or ["all"] for every workspace',
} as const;

const resultsSchema = {
  type: 'array',
  items: { type: 'string' },
  description: 'The ids of the workspaces added (those already here are skipped)',
} as const;

const FORM_LIMITS = { parts: 20, fieldBytes: 8 * 1024 };

/** Every file of the form, whole (each at most MAX_ARCHIVE_BYTES), read before any is imported. */
async function formFiles(request: FastifyRequest): Promise<Uint8Array[]> {
  if (!isForm(request)) {
    throw new ValidationFailed('files', 'The upload must be multipart/form-data with "files"');
  }
  const files: Uint8Array[] = [];
  for await (const part of readForm(request, FORM_LIMITS)) {
    if (part.type !== 'file') continue;
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of part.file as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > MAX_ARCHIVE_BYTES) {
        throw new DomainError('InvalidOperation', `The archive ${part.filename} is too large.`);
      }
      chunks.push(chunk);
    }
    files.push(Buffer.concat(chunks));
  }
  return files;
}

export async function adminExportRoutes(
  fastify: FastifyInstance,
  options: { archives: ArchiveService },
): Promise<void> {
  const app = typed(fastify);
  const { archives } = options;

  app.post(
    '/api/admin/export',
    {
      config: { auth: 'admin' },
      schema: { body: idsBody, response: { ...doneResponses, ...bodyErrorResponses } },
    },
    async (request, reply) => {
      await archives.exportToDataDir(request.body);
      return reply.code(200).send('');
    },
  );

  app.post(
    '/api/admin/download',
    {
      config: { auth: 'admin' },
      schema: {
        body: idsBody,
        response: {
          200: {
            description: 'The archive',
            content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
          },
          ...errorResponses,
          ...bodyErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const zip = await archives.build(request.body);
      return reply
        .type('application/zip')
        .header('Content-Disposition', 'attachment; filename=topomojo-export.zip')
        .send(Buffer.from(zip.buffer, zip.byteOffset, zip.byteLength));
    },
  );

  // Every `*export.zip` in the data folder, each renamed `.imported` once read. One that is
  // refused stays as it is and is reported as "{file}: {why}" among the results.
  app.get(
    '/api/admin/import',
    { config: { auth: 'admin' }, schema: { response: { 200: resultsSchema, ...errorResponses } } },
    async () => archives.importFromDataDir(),
  );

  // Multipart `files` (pytopomojo sends one part named "files" with no content type). Every
  // archive is read and checked before the first is imported.
  app.post(
    '/api/admin/upload',
    {
      config: { auth: 'admin', upload: true },
      schema: { response: { 200: resultsSchema, ...errorResponses, ...bodyErrorResponses } },
    },
    async (request) => archives.importUploads(await formFiles(request)),
  );
}
