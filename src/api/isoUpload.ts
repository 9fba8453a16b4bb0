import * as E from 'fp-ts/Either';
import type * as TE from 'fp-ts/TaskEither';
import { FORBIDDEN_MESSAGE, type ApiError } from './http';

// The ISO upload (POST file/upload) in the browser. Apart from src/api/files.ts because it needs
// XMLHttpRequest, and the machines (whose charts are also compiled for Node) must not.

/** The upload form's metadata section, as the reference UI sends it (spec §3 Upload). */
export const uploadMeta = (size: number, groupKey: string): string =>
  new URLSearchParams({ size: String(size), 'group-key': groupKey }).toString();

/** The part of XMLHttpRequest an upload uses; tests give a fake one. */
export type UploadRequest = Pick<
  XMLHttpRequest,
  'open' | 'setRequestHeader' | 'send' | 'abort' | 'status' | 'responseText'
> & {
  upload: Pick<XMLHttpRequestUpload, 'addEventListener'>;
  addEventListener: XMLHttpRequest['addEventListener'];
};

export interface FileUploaderOptions {
  /** `${apphost}api`, as for the HTTP client. */
  baseUrl: string;
  authorization: () => string | undefined;
  createRequest?: () => UploadRequest;
}

export type IsoUploader = (
  file: File,
  groupKey: string,
  onProgress: (percent: number) => void,
  signal: AbortSignal,
) => TE.TaskEither<ApiError, true>;

function uploadError(status: number, text: string): ApiError {
  try {
    const body = JSON.parse(text) as { message?: unknown };
    if (typeof body?.message === 'string' && body.message !== '') {
      return { status, message: body.message };
    }
  } catch {
    // Not JSON: an empty 403, or a proxy's page.
  }
  if (status === 403) return { status, message: FORBIDDEN_MESSAGE };
  return { status, message: `HTTP ${status}` };
}

/**
 * POST file/upload (multipart: `meta`, then the file). It goes through XMLHttpRequest, the one
 * browser API that reports how much of a request body has been sent.
 */
export function createIsoUploader(options: FileUploaderOptions): IsoUploader {
  const base = options.baseUrl.replace(/\/+$/, '');
  const createRequest = options.createRequest ?? (() => new XMLHttpRequest());
  return (file, groupKey, onProgress, signal) => () =>
    new Promise((resolve) => {
      const xhr = createRequest();
      const done = (result: E.Either<ApiError, true>) => {
        signal.removeEventListener('abort', abort);
        resolve(result);
      };
      const abort = () => {
        xhr.abort();
        done(E.left({ status: 0, message: 'Aborted' }));
      };
      if (signal.aborted) return done(E.left({ status: 0, message: 'Aborted' }));
      signal.addEventListener('abort', abort);
      xhr.upload.addEventListener('progress', (e) => {
        if (e.lengthComputable && e.total > 0) onProgress(Math.floor((e.loaded * 100) / e.total));
      });
      xhr.addEventListener('load', () =>
        done(
          xhr.status >= 200 && xhr.status < 300
            ? E.right(true)
            : E.left(uploadError(xhr.status, xhr.responseText)),
        ),
      );
      xhr.addEventListener('error', () =>
        done(E.left({ status: 0, message: 'The upload failed: no answer from the server.' })),
      );
      xhr.open('POST', `${base}/file/upload`);
      const authorization = options.authorization();
      if (authorization) xhr.setRequestHeader('Authorization', authorization);
      const form = new FormData();
      form.append('meta', uploadMeta(file.size, groupKey));
      form.append('file', file, file.name);
      xhr.send(form);
    });
}
