import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors';
import { parseUploadMeta, type IsoStore, type UploadMeta } from '../../core/isos';
import { actorOf } from '../auth';

// ISO uploads (wire reference §1.6 "ISO upload protocol"): a streamed multipart body whose
// non-file sections carry URL-encoded metadata, then the file; and the upload progress.

/** Aborts when the client goes away before its body has been read to the end. */
function abortedByClient(request: FastifyRequest): AbortController {
  const controller = new AbortController();
  request.raw.on('close', () => {
    if (!request.raw.complete) controller.abort(new Error('upload aborted by the client'));
  });
  return controller;
}

export async function fileRoutes(app: FastifyInstance, options: { isos: IsoStore }) {
  const { isos } = options;

  app.post(
    '/api/file/upload',
    { schema: { response: { 200: { type: 'boolean' } } } },
    async (request) => {
      if (!request.isMultipart()) throw new DomainError('InvalidOperation', 'Expected a form.');
      const actor = actorOf(request);
      const controller = abortedByClient(request);
      let meta: UploadMeta = parseUploadMeta('');
      let received = false;
      // The store enforces the configured limit itself; busboy's per-file limit only has to
      // stay out of its way.
      for await (const part of request.parts({ limits: { fileSize: Number.MAX_SAFE_INTEGER } })) {
        if (part.type === 'field') {
          // Every non-file section replaces the metadata, as the reference reads them.
          meta = parseUploadMeta(String(part.value ?? ''));
          continue;
        }
        await isos.upload(actor, meta, part.filename, part.file, controller.signal);
        received = true;
      }
      if (!received) throw new DomainError('InvalidOperation', 'The form has no file.');
      return true;
    },
  );

  app.get<{ Params: { key: string } }>(
    '/api/file/progress/:key',
    {
      schema: {
        params: {
          type: 'object',
          required: ['key'],
          properties: { key: { type: 'string', maxLength: 512 } },
        },
        response: { 200: { type: 'integer' } },
      },
    },
    async (request) => isos.progress(request.params.key),
  );
}
