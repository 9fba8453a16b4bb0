import http from 'node:http';
import https from 'node:https';
import type { PveClientOptions, PveParams } from './clientTypes';
import {
  answerError,
  isRetryable,
  parseBody,
  PveError,
  transportError,
  type PveBody,
} from './pveErrors';
import { createAgent } from './tlsAgent';

// The PVE client's connection to the API (/api2/json): one HTTP exchange with PVE's parameter
// encoding, the answer's `data` or its PveError, the credentials (an API token, or a ticket from
// signing in with a password) and the retries of reads. The token secret is only ever put in the
// Authorization header, never in a message.
//
// PVE answers `{data: ...}`; a failure is an HTTP status whose reason phrase is the error's first
// line, with the whole text in the body's `message` and per-parameter problems in `errors` (400).

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_ATTEMPTS = 3;
/** The first retry waits this long (plus jitter); each further one twice as long. */
export const RETRY_BASE_MS = 200;
/** A PVE ticket is good for two hours; a signed-in client renews it after one. */
export const TICKET_RENEW_MS = 60 * 60_000;

/** What PVE answered: status, reason phrase and the JSON body (null when it is not JSON). */
export interface Answer {
  status: number;
  statusMessage: string;
  body: PveBody | null;
}

export interface PveConnection {
  /** The API's base URL, `.../api2/json`. */
  readonly root: string;
  readonly agent: http.Agent;
  readonly transport: typeof http | typeof https;
  readonly timeoutMs: number;
  readonly sleep: (ms: number) => Promise<void>;
  /** A call of the API: its `data`, or a PveError. Reads are repeated on transient failures. */
  call<T>(method: Method, path: string, params?: PveParams): Promise<T>;
  /** Signs in with the password when the client has one and no fresh ticket. */
  signIn(): Promise<void>;
  /** The `data` of a successful answer; a PveError for any other. */
  dataOf(method: Method, path: string, answer: Answer): unknown;
  /** The credential headers of a request: the token, or the ticket (with its CSRF token on writes). */
  credentials(method: Method): http.OutgoingHttpHeaders;
  /** The credential headers of a WebSocket upgrade: the ticket's cookie, or the token. */
  webSocketCredentials(): http.OutgoingHttpHeaders;
}

/** Query string or form body: booleans as 1/0, a list as its key repeated, undefined left out. */
export function encodeParams(params: PveParams | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    if (Array.isArray(value))
      for (const item of value as readonly string[]) search.append(key, item);
    else search.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return search.toString();
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createConnection(options: PveClientOptions): PveConnection {
  const base = new URL(options.url);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:') {
    throw new PveError('invalid', `the PVE URL must be http(s), not ${base.protocol}`);
  }
  const root = `${base.origin}${base.pathname.replace(/\/+$/, '')}/api2/json`;
  const agent = createAgent(secure, options);
  const transport = secure ? https : http;
  const authorization = `PVEAPIToken=${options.tokenId}=${options.tokenSecret}`;
  // A ticket lives two hours of PVE's real time; it is renewed after one.
  let session: { cookie: string; csrf: string; at: number } | null = null;
  let signingIn: Promise<void> | null = null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const sleep = options.sleep ?? defaultSleep;

  const credentials = (method: Method): http.OutgoingHttpHeaders => {
    if (!options.login) return { Authorization: authorization };
    if (!session) return {};
    const cookie = { Cookie: `PVEAuthCookie=${session.cookie}` };
    return method === 'GET' ? cookie : { ...cookie, CSRFPreventionToken: session.csrf };
  };

  const webSocketCredentials = (): http.OutgoingHttpHeaders =>
    options.login && session
      ? { Cookie: `PVEAuthCookie=${session.cookie}` }
      : { Authorization: authorization };

  /** One HTTP exchange: PVE's answer, or a PveError when there was none. */
  const exchange = (method: Method, path: string, params?: PveParams): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const encoded = encodeParams(params);
      const inBody = method === 'POST' || method === 'PUT';
      const url = `${root}${path}${!inBody && encoded ? `?${encoded}` : ''}`;
      const headers: http.OutgoingHttpHeaders = {
        Accept: 'application/json',
        ...credentials(method),
      };
      const body = inBody ? Buffer.from(encoded) : null;
      if (body) {
        headers['Content-Type'] = 'application/x-www-form-urlencoded';
        headers['Content-Length'] = body.length;
      }
      const fail = (error: unknown) => {
        clearTimeout(timer);
        reject(transportError(method, path, error));
      };
      const request = transport.request(url, { method, headers, agent }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('error', fail);
        response.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            statusMessage: response.statusMessage ?? '',
            body: parseBody(Buffer.concat(chunks).toString('utf8')),
          });
        });
      });
      const timer = setTimeout(() => {
        const message = `PVE ${method} ${path}: no answer in ${timeoutMs} ms`;
        request.destroy(new PveError('timeout', message, { path }));
      }, timeoutMs);
      request.on('error', fail);
      request.end(body ?? undefined);
    });

  const dataOf = (method: Method, path: string, answer: Answer): unknown => {
    const { status, statusMessage, body } = answer;
    if (status < 200 || status >= 300) throw answerError(method, path, status, statusMessage, body);
    if (!body)
      throw new PveError('server', `PVE ${method} ${path}: unreadable reply`, { status, path });
    return body.data ?? null;
  };

  /** Signs in with the password (once for concurrent callers) when there is no fresh ticket. */
  const signIn = async (): Promise<void> => {
    if (!options.login || (session && Date.now() - session.at < TICKET_RENEW_MS)) return;
    signingIn ??= (async () => {
      session = null;
      const answer = await exchange('POST', '/access/ticket', {
        username: options.login!.username,
        password: options.login!.password,
      });
      const data = dataOf('POST', '/access/ticket', answer) as {
        ticket: string;
        CSRFPreventionToken: string;
      };
      session = { cookie: data.ticket, csrf: data.CSRFPreventionToken, at: Date.now() };
    })().finally(() => {
      signingIn = null;
    });
    await signingIn;
  };

  /** Reads are repeated on transient failures; writes never, PVE does not make them idempotent. */
  const call = async <T>(method: Method, path: string, params?: PveParams): Promise<T> => {
    await signIn();
    const tries = method === 'GET' ? attempts : 1;
    let signedInAgain = false;
    for (let attempt = 0; ; attempt++) {
      try {
        return dataOf(method, path, await exchange(method, path, params)) as T;
      } catch (error) {
        // A ticket PVE no longer takes (a restarted cluster): sign in again, once. Refused
        // before anything ran, the call is safe to send again.
        if (options.login && !signedInAgain && error instanceof PveError && error.kind === 'auth') {
          signedInAgain = true;
          session = null;
          await signIn();
          attempt--;
          continue;
        }
        if (attempt + 1 >= tries || !isRetryable(error)) throw error;
        const delay = RETRY_BASE_MS * 2 ** attempt;
        await sleep(delay + Math.random() * (delay / 2));
      }
    }
  };

  return {
    root,
    agent,
    transport,
    timeoutMs,
    sleep,
    call,
    signIn,
    dataOf,
    credentials,
    webSocketCredentials,
  };
}
