import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import WebSocket from 'ws';
import {
  answerError,
  isRetryable,
  LOCK_TEXT,
  parseBody,
  PveError,
  transportError,
  type PveBody,
  type PveErrorKind,
} from './pveErrors';

export { isLockError, PveError, type PveErrorKind } from './pveErrors';

// A thin client of the Proxmox VE REST API (/api2/json), written here because the npm PVE clients
// are GPL-3.0. It speaks what the driver needs and no more: four verbs with PVE's parameter
// encoding, PVE's errors turned into PveError kinds, retries of reads only, task waiting with
// progress from the task log, and WebSockets (vncwebsocket) with the same credentials and TLS.
//
// PVE answers `{data: ...}`; a failure is an HTTP status whose reason phrase is the error's first
// line, with the whole text in the body's `message` and per-parameter problems in `errors` (400).
// A PVE cluster usually has a self-signed certificate, so besides Node's default trust a CA can be
// given, or the certificate pinned by its SHA-256 fingerprint as PVE's own tools do. The API
// token secret is only ever put in the Authorization header, never in a message.

export interface PveClientOptions {
  /** Base URL of the PVE API, e.g. https://pve1.example:8006 (the client appends /api2/json). */
  url: string;
  /** API token id `user@realm!tokenname` and its secret: header `Authorization: PVEAPIToken=${tokenId}=${secret}`. */
  tokenId: string;
  tokenSecret: string;
  /**
   * Instead of the token: a user who signs in with a password (POST /access/ticket), for what
   * PVE allows only root@pam itself to do (a VM's `args`). The ticket goes in the
   * `PVEAuthCookie` cookie, with its CSRF token on writes, and is renewed before it expires.
   */
  login?: { username: string; password: string };
  /** PEM text of a CA that signs the PVE certificate (self-signed clusters). */
  ca?: string;
  /** SHA-256 fingerprint of the server certificate ("AB:CD:..", case-insensitive, colons optional): the
   *  connection is accepted only when the peer certificate has it, whoever signed it. */
  fingerprint?: string;
  /** Per-request timeout; default 30 s. */
  timeoutMs?: number;
  /** Attempts for calls safe to repeat (GET only); default 3, with back-off from `sleep`. */
  attempts?: number;
  /** Injected for tests; default setTimeout-based. */
  sleep?: (ms: number) => Promise<void>;
  /** Between task status polls when waitTask is not told otherwise; default 1 s. */
  taskIntervalMs?: number;
}

export type PveParams = Record<string, string | number | boolean | undefined>;

export interface PveTaskStatus {
  status: 'running' | 'stopped';
  exitstatus?: string;
  type: string;
  node: string;
  upid: string;
}

export interface WaitTaskOptions {
  /** The last percentage the task log shows, 0..100, when it changes. */
  onProgress?: (percent: number) => void;
  /** Between status polls; default the client's taskIntervalMs. */
  intervalMs?: number;
  /** Gives up (PveError 'timeout') when the task still runs after this long; default: never. */
  timeoutMs?: number;
}

export interface PveClient {
  get<T>(path: string, params?: PveParams): Promise<T>;
  post<T>(path: string, params?: PveParams): Promise<T>;
  put<T>(path: string, params?: PveParams): Promise<T>;
  delete<T>(path: string, params?: PveParams): Promise<T>;
  /** Polls the task's status until it stops; resolves when it ended OK (or with WARNINGS), else
   *  rejects PveError 'task-failed' (or 'locked') whose message is the exit status. */
  waitTask(upid: string, options?: WaitTaskOptions): Promise<void>;
  /** A WebSocket to an API path (for vncwebsocket), with the same token header and TLS settings.
   *  It comes paused: attach the listeners, then `resume()` it. */
  openWebSocket(path: string, params?: PveParams): Promise<WebSocket>;
  /**
   * POSTs a local file as `multipart/form-data` (PVE's storage upload): the fields, then the file
   * as the part `fileField` named `file.name`. Streamed from disk; it times out only when no byte
   * moves for the client's timeout. Never repeated.
   */
  upload<T>(
    path: string,
    fields: PveParams,
    file: { field: string; name: string; path: string },
  ): Promise<T>;
  /** Drops the kept-alive connections. */
  close(): void;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_ATTEMPTS = 3;
/** The first retry waits this long (plus jitter); each further one twice as long. */
export const RETRY_BASE_MS = 200;
export const DEFAULT_TASK_INTERVAL_MS = 1_000;
/** A PVE ticket is good for two hours; a signed-in client renews it after one. */
export const TICKET_RENEW_MS = 60 * 60_000;
/** pveproxy drops an idle kept-alive connection after 5 s; ours go first, so a request never
 *  lands on a socket the server is closing (which a POST could not safely repeat). */
const IDLE_SOCKET_MS = 4_000;
/** Task log lines read per request. */
const LOG_PAGE = 500;

/** What PVE answered: status, reason phrase and the JSON body (null when it is not JSON). */
interface Answer {
  status: number;
  statusMessage: string;
  body: PveBody | null;
}

// ---------------------------------------------------------------------------------------------
// UPIDs

const UPID =
  /^UPID:([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s]+):([^:\s]*):([^:\s]+):$/;

/** The parts of a task id `UPID:{node}:{pid}:{pstart}:{starttime}:{type}:{id}:{user}:`;
 *  startTime in epoch seconds. */
export function parseUpid(upid: string): {
  node: string;
  type: string;
  id: string;
  user: string;
  startTime: number;
} {
  const match = UPID.exec(upid);
  if (!match) throw new PveError('invalid', `not a PVE task id: ${upid}`);
  const [, node = '', , , start = '', type = '', id = '', user = ''] = match;
  return { node, type, id, user, startTime: parseInt(start, 16) };
}

/** A UPID as a path segment: it only holds characters a path may carry, but be safe. */
const pathSegment = (value: string): string =>
  encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%40/g, '@').replace(/%21/g, '!');

/** The success of a task's exit status: 'OK', or 'WARNINGS: n' (it ended, with warnings). */
const taskSucceeded = (exitstatus: string): boolean =>
  exitstatus === 'OK' || exitstatus.startsWith('WARNINGS');

/** The last "(42.00%)" in task log lines, as clones and disk moves write them. */
function lastPercent(lines: readonly string[]): number | null {
  let found: number | null = null;
  for (const line of lines) {
    for (const match of line.matchAll(/\((\d{1,3}(?:\.\d+)?)%\)/g)) {
      found = Math.min(100, Math.max(0, Number(match[1])));
    }
  }
  return found;
}

interface LogLine {
  n: number;
  t: string;
}

// ---------------------------------------------------------------------------------------------
// Transport

/** SHA-256 fingerprint as Node prints it: upper-case hex pairs joined by colons. */
function normalizeFingerprint(fingerprint: string): string {
  const hex = fingerprint.replace(/[:\s]/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new PveError('tls', 'the PVE certificate fingerprint must be 64 hex digits (SHA-256)');
  }
  return hex.match(/../g)!.join(':');
}

/**
 * An HTTPS agent that accepts exactly one certificate, by fingerprint. Node's verification is
 * turned off (the certificate is usually self-signed) and replaced by the comparison, made when
 * the handshake is done and before the agent hands the socket to a request, so nothing (the
 * token least of all) is sent to a server that is not the pinned one. Session resumption is off
 * so that every connection shows its certificate.
 */
class PinnedAgent extends https.Agent {
  constructor(
    private readonly pinned: string,
    options: https.AgentOptions,
  ) {
    super({ ...options, rejectUnauthorized: false, maxCachedSessions: 0 });
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = super.createConnection(options);
    if (!callback || !(socket instanceof TLSSocket)) return socket;
    const fail = (error: Error) => callback(error, socket);
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const actual = socket.getPeerCertificate().fingerprint256 ?? '(none)';
      if (actual === this.pinned) {
        callback(null, socket);
        return;
      }
      socket.destroy();
      callback(
        new PveError(
          'tls',
          `the PVE certificate fingerprint ${actual} is not the configured ${this.pinned}`,
        ),
        socket,
      );
    });
    return undefined;
  }
}

function createAgent(secure: boolean, options: PveClientOptions): http.Agent {
  const common = { keepAlive: true, timeout: IDLE_SOCKET_MS };
  if (!secure) return new http.Agent(common);
  if (options.fingerprint) {
    return new PinnedAgent(normalizeFingerprint(options.fingerprint), common);
  }
  return new https.Agent(options.ca ? { ...common, ca: options.ca } : common);
}

/** Query string or form body: booleans as 1/0, undefined left out. */
function encodeParams(params: PveParams | undefined): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params ?? {})) {
    if (value === undefined) continue;
    search.append(key, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  return search.toString();
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------------
// The client

export function createPveClient(options: PveClientOptions): PveClient {
  const base = new URL(options.url);
  const secure = base.protocol === 'https:';
  if (!secure && base.protocol !== 'http:') {
    throw new PveError('invalid', `the PVE URL must be http(s), not ${base.protocol}`);
  }
  const root = `${base.origin}${base.pathname.replace(/\/+$/, '')}/api2/json`;
  const agent = createAgent(secure, options);
  const transport = secure ? https : http;
  const authorization = `PVEAPIToken=${options.tokenId}=${options.tokenSecret}`;
  // A ticket lives two hours; it is renewed after one.
  let session: { cookie: string; csrf: string; at: number } | null = null;
  let signingIn: Promise<void> | null = null;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS);
  const sleep = options.sleep ?? defaultSleep;
  const taskIntervalMs = options.taskIntervalMs ?? DEFAULT_TASK_INTERVAL_MS;

  /** One HTTP exchange: PVE's answer, or a PveError when there was none. */
  const exchange = (method: Method, path: string, params?: PveParams): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const encoded = encodeParams(params);
      const inBody = method === 'POST' || method === 'PUT';
      const url = `${root}${path}${!inBody && encoded ? `?${encoded}` : ''}`;
      const headers: http.OutgoingHttpHeaders = { Accept: 'application/json' };
      if (!options.login) headers.Authorization = authorization;
      else if (session) {
        headers.Cookie = `PVEAuthCookie=${session.cookie}`;
        if (method !== 'GET') headers.CSRFPreventionToken = session.csrf;
      }
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

  /** The `data` of a successful answer; a PveError for any other. */
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

  /** New task log lines after `start`, and where the next read starts. */
  const readLog = async (taskPath: string, start: number) => {
    const lines = await call<LogLine[]>('GET', `${taskPath}/log`, { start, limit: LOG_PAGE });
    // PVE answers an empty log with one made-up line "no content" numbered 1; it is not a line.
    const real = lines.length === 1 && lines[0]!.t === 'no content' && start === 0 ? [] : lines;
    const next = real.reduce((last, line) => Math.max(last, line.n), start);
    return { texts: real.map((line) => line.t), next };
  };

  const waitTask = async (upid: string, waitOptions: WaitTaskOptions = {}): Promise<void> => {
    const { node } = parseUpid(upid);
    const taskPath = `/nodes/${pathSegment(node)}/tasks/${pathSegment(upid)}`;
    const interval = waitOptions.intervalMs ?? taskIntervalMs;
    const deadline =
      waitOptions.timeoutMs === undefined ? Infinity : Date.now() + waitOptions.timeoutMs;
    let logStart = 0;
    let reported: number | null = null;
    for (;;) {
      const status = await call<PveTaskStatus>('GET', `${taskPath}/status`);
      if (waitOptions.onProgress) {
        // Progress is for show: a log that cannot be read must not fail the wait.
        const read = await readLog(taskPath, logStart).catch(() => null);
        const percent = read ? lastPercent(read.texts) : null;
        if (read) logStart = read.next;
        if (percent !== null && percent !== reported) {
          reported = percent;
          waitOptions.onProgress(percent);
        }
      }
      if (status.status === 'stopped') return settleTask(taskPath, status);
      if (Date.now() >= deadline) {
        throw new PveError('timeout', `PVE task ${upid} still runs`, { path: taskPath });
      }
      await sleep(interval);
    }
  };

  const openWebSocket = async (path: string, params?: PveParams): Promise<WebSocket> => {
    await signIn();
    const encoded = encodeParams(params);
    const url = `${root.replace(/^http/, 'ws')}${path}${encoded ? `?${encoded}` : ''}`;
    // pveproxy relays binary frames; noVNC asks for the `binary` subprotocol, and so do we.
    const socket = new WebSocket(url, ['binary'], {
      agent,
      headers:
        options.login && session
          ? { Cookie: `PVEAuthCookie=${session.cookie}` }
          : { Authorization: authorization },
    });
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error: PveError | null) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        socket.off('open', onOpen);
        socket.off('error', onError);
        socket.off('unexpected-response', onRefused);
        if (!error) return resolve(socket);
        socket.on('error', () => {});
        socket.terminate();
        reject(error);
      };
      // Paused at once: a server that speaks first (VNC does) could otherwise have its first
      // frames emitted, from bytes that came with the upgrade, before the caller listens.
      const onOpen = () => {
        socket.pause();
        settle(null);
      };
      const onError = (error: Error) => settle(transportError('GET', path, error));
      const onRefused = (_request: http.ClientRequest, response: http.IncomingMessage) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const body = parseBody(Buffer.concat(chunks).toString('utf8'));
          const status = response.statusCode ?? 0;
          settle(answerError('GET', path, status, response.statusMessage ?? '', body));
        });
      };
      const timer = setTimeout(
        () =>
          settle(
            new PveError('timeout', `PVE GET ${path}: no WebSocket in ${timeoutMs} ms`, { path }),
          ),
        timeoutMs,
      );
      socket.on('open', onOpen);
      socket.on('error', onError);
      socket.on('unexpected-response', onRefused);
    });
  };

  /** The multipart body's parts around the file, and its length. */
  const multipart = (fields: PveParams, file: { field: string; name: string }, size: number) => {
    const boundary = `----topoplay${randomBytes(12).toString('hex')}`;
    const quoted = (text: string) => text.replace(/["\r\n]/g, '_');
    const head = Buffer.from(
      [
        ...Object.entries(fields)
          .filter(([, v]) => v !== undefined)
          .map(
            ([k, v]) =>
              `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(k)}"\r\n\r\n${
                typeof v === 'boolean' ? (v ? 1 : 0) : v
              }\r\n`,
          ),
        `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(file.field)}"; filename="${quoted(file.name)}"\r\n`,
        'Content-Type: application/octet-stream\r\n\r\n',
      ].join(''),
    );
    const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
    return { boundary, head, tail, length: head.length + size + tail.length };
  };

  const upload = async <T>(
    path: string,
    fields: PveParams,
    file: { field: string; name: string; path: string },
  ): Promise<T> => {
    await signIn();
    const { size } = await stat(file.path);
    const body = multipart(fields, file, size);
    const headers: http.OutgoingHttpHeaders = {
      Accept: 'application/json',
      'Content-Type': `multipart/form-data; boundary=${body.boundary}`,
      'Content-Length': body.length,
    };
    if (!options.login) headers.Authorization = authorization;
    else if (session) {
      headers.Cookie = `PVEAuthCookie=${session.cookie}`;
      headers.CSRFPreventionToken = session.csrf;
    }
    const answer = await new Promise<Answer>((resolve, reject) => {
      const request = transport.request(
        `${root}${path}`,
        { method: 'POST', headers, agent },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('error', (error) => reject(transportError('POST', path, error)));
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              statusMessage: response.statusMessage ?? '',
              body: parseBody(Buffer.concat(chunks).toString('utf8')),
            }),
          );
        },
      );
      // Idle, not total: a large ISO takes as long as it takes.
      request.setTimeout(timeoutMs, () =>
        request.destroy(
          new PveError('timeout', `PVE POST ${path}: no progress in ${timeoutMs} ms`, { path }),
        ),
      );
      request.on('error', (error) => reject(transportError('POST', path, error)));
      request.write(body.head);
      const stream = createReadStream(file.path);
      stream.on('error', (error) => request.destroy(error));
      stream.on('end', () => request.end(body.tail));
      stream.pipe(request, { end: false });
    });
    return dataOf('POST', path, answer) as T;
  };

  return {
    upload,
    get: (path, params) => call('GET', path, params),
    post: (path, params) => call('POST', path, params),
    put: (path, params) => call('PUT', path, params),
    delete: (path, params) => call('DELETE', path, params),
    waitTask,
    openWebSocket,
    close: () => agent.destroy(),
  };
}

/** Resolves for a task that ended well; otherwise the exit status as a PveError. */
function settleTask(taskPath: string, status: PveTaskStatus): void {
  const exit = status.exitstatus ?? '';
  if (taskSucceeded(exit)) return;
  const message = exit || 'the task stopped without an exit status';
  const kind: PveErrorKind = LOCK_TEXT.test(message) ? 'locked' : 'task-failed';
  throw new PveError(kind, message, { path: taskPath, reason: message });
}
