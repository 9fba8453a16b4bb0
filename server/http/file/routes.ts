import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DomainError } from '../../core/errors';
import { parseUploadMeta, type IsoStore, type UploadMeta } from '../../core/isos';
import { actorOf } from '../auth';
import { isForm, readForm } from '../form';
import { bodyErrorResponses, errorResponses } from '../schemas';
import { typed } from '../typed';

// ISO uploads (wire reference §1.6 "ISO upload protocol"): a streamed multipart body whose
// non-file sections carry URL-encoded metadata, then the file; and the upload progress.

/** Metadata sections are short query strings (a size, a workspace id, a name, a key). */
const FORM_LIMITS = { parts: 20, fieldBytes: 8 * 1024 };

/** Aborts when the client goes away before its body has been read to the end. */
function abortedByClient(request: FastifyRequest): AbortController {
  const controller = new AbortController();
  request.raw.on('close', () => {
    if (!request.raw.complete) controller.abort(new Error('upload aborted by the client'));
  });
  return controller;
}

export async function fileRoutes(fastify: FastifyInstance, options: { isos: IsoStore }) {
  const app = typed(fastify);
  const { isos } = options;

  app.post(
    '/api/file/upload',
    {
      config: { upload: true },
      schema: {
        response: { 200: { type: 'boolean' }, ...errorResponses, ...bodyErrorResponses },
      },
    },
    async (request) => {
      if (!isForm(request)) throw new DomainError('InvalidOperation', 'Expected a form.');
      const actor = actorOf(request);
      const controller = abortedByClient(request);
      let meta: UploadMeta = parseUploadMeta('');
      for await (const part of readForm(request, FORM_LIMITS)) {
        if (part.type === 'field') {
          // Every non-file section replaces the metadata, as the reference reads them. It is
          // checked at once, so that a refused upload is answered before its file is read.
          meta = parseUploadMeta(part.value);
          await isos.authorizeUpload(actor, meta);
          continue;
        }
        await isos.upload(actor, meta, part.filename, part.file, controller.signal);
        // One file per upload, as the SPA and the reference's clients send it.
        return true;
      }
      throw new DomainError('InvalidOperation', 'The form has no file.');
    },
  );

  app.get(
    '/api/file/progress/:key',
    {
      schema: {
        params: {
          type: 'object',
          required: ['key'],
          properties: { key: { type: 'string', maxLength: 512 } },
        },
        response: {
          200: { type: 'integer', description: 'Percent done; -1 when unknown' },
          ...errorResponses,
        },
      },
    },
    async (request) => isos.progress(request.params.key),
  );
}
