import * as E from 'fp-ts/Either';
import { CSRF_HEADERS, FORBIDDEN_MESSAGE, type ApiError } from './http';
import { filesPath, GuestFilePut, type GuestFilePutter } from './guestFiles';

// POST vm/{id}/files in the browser, through XMLHttpRequest: the one browser API that reports how
// much of a request body has been sent.

/** The part of XMLHttpRequest a put uses; tests give a fake one. */
export type PutRequest = Pick<
  XMLHttpRequest,
  'open' | 'setRequestHeader' | 'send' | 'abort' | 'status' | 'responseText' | 'withCredentials'
> & {
  upload: Pick<XMLHttpRequestUpload, 'addEventListener'>;
  addEventListener: XMLHttpRequest['addEventListener'];
};

function putError(status: number, text: string): ApiError {
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

/** POST vm/{id}/files: a form with the file, with the cookie and the header cookie calls need. */
export function createGuestFilePutter(options: {
  /** `${apphost}api`, as for the HTTP client. */
  baseUrl: string;
  createRequest?: () => PutRequest;
}): GuestFilePutter {
  const base = options.baseUrl.replace(/\/+$/, '');
  const createRequest = options.createRequest ?? (() => new XMLHttpRequest());
  return (vmId, file, onProgress, signal) => () =>
    new Promise((resolve) => {
      const xhr = createRequest();
      const done = (result: E.Either<ApiError, GuestFilePut>) => {
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
      xhr.addEventListener('load', () => {
        if (xhr.status < 200 || xhr.status >= 300) {
          return done(E.left(putError(xhr.status, xhr.responseText)));
        }
        let body: unknown;
        try {
          body = JSON.parse(xhr.responseText);
        } catch {
          body = null;
        }
        const decoded = GuestFilePut.decode(body);
        done(
          E.isRight(decoded)
            ? E.right(decoded.right)
            : E.left({ status: xhr.status, message: 'The server answered something unexpected.' }),
        );
      });
      xhr.addEventListener('error', () =>
        done(E.left({ status: 0, message: 'The file was not sent: no answer from the server.' })),
      );
      xhr.open('POST', `${base}/${filesPath(vmId)}`);
      xhr.withCredentials = true;
      for (const [name, value] of Object.entries(CSRF_HEADERS)) xhr.setRequestHeader(name, value);
      const form = new FormData();
      form.append('file', file, file.name);
      xhr.send(form);
    });
}
