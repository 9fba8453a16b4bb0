import * as E from 'fp-ts/Either';
import { pipe } from 'fp-ts/function';
import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { errorFactsOf, type ErrorFacts } from '../domain/errors';

/**
 * Every failed call, whatever its cause, reaches machines as one shape. `message` is the server's
 * message name when it sent one (`ResourceNotFound`), else the HTTP status text; `status` is 0
 * when no response arrived (network failure or abort). The facts our server adds beside the name
 * (how many gamespaces block a save) come along for errorMessage's sentence.
 */
export interface ApiError extends ErrorFacts {
  status: number;
  message: string;
}

export const isApiError = (value: unknown): value is ApiError =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { status?: unknown }).status === 'number' &&
  typeof (value as { message?: unknown }).message === 'string';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HttpRequest {
  method: HttpMethod;
  /** Relative to the API base, without a leading slash: `workspace/abc`. */
  path: string;
  signal: AbortSignal;
  body?: unknown;
  /** Overrides the header taken from the current session (registration passes its own user). */
  authorization?: string;
  /** A text/plain body (the document), sent instead of `body`. */
  text?: string;
  /** Extra request headers. */
  headers?: Record<string, string>;
  /** The response is text to pass on as it is, never parsed as JSON (a document saying `42`). */
  textResponse?: boolean;
  /** The response is binary (an archive): a successful body reaches the codec as a Blob. */
  blobResponse?: boolean;
  /**
   * Response headers the caller needs (an ETag): a successful answer then reaches the codec as
   * `{ status, headers, body }`, `headers` holding those of the names the response has.
   */
  responseHeaders?: readonly string[];
}

export interface HttpClient {
  request<A>(codec: t.Decoder<unknown, A>, request: HttpRequest): TE.TaskEither<ApiError, A>;
}

export interface HttpClientOptions {
  /** `${apphost}api`, e.g. `/api` or `https://host/api`. */
  baseUrl: string;
  /** The `Authorization` header value for the current session, if any. */
  authorization: () => string | undefined;
  fetch?: typeof fetch;
}

/**
 * Sent on every call. The server refuses a change authenticated by the console cookie without it
 * (server/http/security.ts): a page on another site cannot send it, so the cookie alone, which
 * the browser attaches by itself, is not enough.
 */
export const CSRF_HEADERS: Readonly<Record<string, string>> = {
  'X-Requested-With': 'XMLHttpRequest',
};

/** The reference answers a forbidden action with 403 and an empty body. */
export const FORBIDDEN_MESSAGE = 'ActionForbidden';
/** A response body that does not match the expected shape. */
export const INVALID_RESPONSE_MESSAGE = 'InvalidResponse';

/** The API base from the app host: '' means the SPA's own origin. */
export function apiBaseUrl(apphost: string): string {
  const host = apphost === '' ? '/' : apphost.endsWith('/') ? apphost : `${apphost}/`;
  return `${host}api`;
}

function parseBody(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // text/plain answers (documents, some admin calls) are passed on as the string itself.
    return text;
  }
}

function errorFromResponse(response: Response, body: unknown): ApiError {
  const named =
    typeof body === 'object' && body !== null ? (body as { message?: unknown }).message : undefined;
  if (typeof named === 'string' && named !== '') {
    return { status: response.status, message: named, ...errorFactsOf(body) };
  }
  if (response.status === 403 && body === undefined) {
    return { status: 403, message: FORBIDDEN_MESSAGE };
  }
  return {
    status: response.status,
    message: response.statusText || `HTTP ${response.status}`,
  };
}

function errorFromException(error: unknown): ApiError {
  if (error instanceof DOMException && error.name === 'AbortError') {
    return { status: 0, message: 'Aborted' };
  }
  return { status: 0, message: error instanceof Error ? error.message : String(error) };
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const base = options.baseUrl.replace(/\/+$/, '');

  return {
    request:
      <A>(codec: t.Decoder<unknown, A>, request: HttpRequest): TE.TaskEither<ApiError, A> =>
      async () => {
        const headers: Record<string, string> = { Accept: 'application/json', ...CSRF_HEADERS };
        const authorization = request.authorization ?? options.authorization();
        if (authorization) headers.Authorization = authorization;
        // A multipart body (an upload) sets its own Content-Type with the boundary.
        const multipart = request.body instanceof FormData;
        if (request.body !== undefined && !multipart) headers['Content-Type'] = 'application/json';
        if (request.text !== undefined) headers['Content-Type'] = 'text/plain; charset=utf-8';
        Object.assign(headers, request.headers);

        let response: Response;
        let body: unknown;
        try {
          response = await doFetch(`${base}/${request.path}`, {
            method: request.method,
            headers,
            body:
              request.text ??
              (request.body === undefined || multipart
                ? (request.body as FormData | undefined)
                : JSON.stringify(request.body)),
            signal: request.signal,
          });
          if (request.blobResponse && response.ok) body = await response.blob();
          else {
            const text = await response.text();
            body = request.textResponse && response.ok ? text : parseBody(text);
          }
        } catch (error) {
          return E.left(errorFromException(error));
        }

        if (!response.ok) return E.left(errorFromResponse(response, body));

        const names = request.responseHeaders;
        const decoded = names
          ? {
              status: response.status,
              headers: Object.fromEntries(
                names.flatMap((name) => {
                  const value = response.headers.get(name);
                  return value === null ? [] : [[name, value]];
                }),
              ),
              body,
            }
          : body;
        return pipe(
          codec.decode(decoded),
          E.mapLeft((): ApiError => ({
            status: response.status,
            message: INVALID_RESPONSE_MESSAGE,
          })),
        );
      },
  };
}
