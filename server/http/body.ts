import type { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyBodyParser, FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { DomainError, ValidationFailed } from '../core/errors';

// How request bodies are read: their size per route, their nesting, their names' case, how long
// a client may take to send them, and what becomes of a body the server answered before it had
// all arrived. Multipart uploads are streamed by their routes and are not held to the size limits
// here, only to the time limits.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route streams a large upload (an ISO of gigabytes): its body may take as long as it
     * keeps a pace (BodyTimeouts.uploadMinBytesPerSecond), and is dropped when it falls below
     * it or stalls.
     */
    upload?: boolean;
  }
}

/** Routes that anyone may call read at most this much (and so does a request for no route). */
export const ANONYMOUS_BODY_LIMIT = 64 * 1024;
/** Other routes, unless they declare their own `bodyLimit` (documents, challenges). */
export const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** JSON nested deeper is refused before it is parsed (ASP.NET's default depth, too). */
export const MAX_JSON_DEPTH = 64;

export interface BodyTimeouts {
  /**
   * The longest a request may take to send its body, upload routes aside; for them, the span
   * over which their pace is measured.
   */
  bodyTimeoutMs: number;
  /** A body that makes no progress for this long is dropped, on every route. */
  idleTimeoutMs: number;
  /**
   * The slowest an upload may come, averaged over each `bodyTimeoutMs`; 0: any pace, only
   * `idleTimeoutMs` applies.
   */
  uploadMinBytesPerSecond: number;
}

/** Whether `text` opens more than `max` objects or arrays inside one another. */
function nestedDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}

/**
 * A JSON parser that reads an empty body as no body and first refuses text nested deeper than
 * MAX_JSON_DEPTH (400, at once). Generated .NET clients (NSwag: Gameboard's TopoMojo client) and
 * the Moodle plugin send `Content-Type: application/json` with an empty body on POSTs that carry
 * nothing (start, stop, complete, invite, ...); ASP.NET binds that as no body, so must we.
 */
function jsonParser(parse: FastifyBodyParser<string>): FastifyBodyParser<string> {
  return function (this: FastifyInstance, request, body, done) {
    if (body.length === 0) {
      done(null, undefined);
      return;
    }
    if (nestedDeeperThan(body, MAX_JSON_DEPTH)) {
      done(
        new DomainError('InvalidOperation', `JSON nested deeper than ${MAX_JSON_DEPTH} levels`),
        undefined,
      );
      return;
    }
    parse.call(this, request, body, done);
  };
}

const lowerFirst = (key: string) => key.charAt(0).toLowerCase() + key.slice(1);

/**
 * JSON property names are case-insensitive on the way in: clients of the reference send
 * PascalCase ("ResourceId") as well as camelCase. Keys are normalized to camelCase. The walk keeps
 * its own stack, so no nesting can overflow the call stack.
 */
function normalizeKeys<T>(value: T): T {
  if (!value || typeof value !== 'object') return value;
  type Container = Record<string, unknown> | unknown[];
  const copyOf = (v: object): Container => (Array.isArray(v) ? [] : {});
  const root = copyOf(value);
  const work: Array<[from: object, to: Container]> = [[value, root]];
  const copy = (v: unknown): unknown => {
    if (!v || typeof v !== 'object') return v;
    const to = copyOf(v);
    work.push([v, to]);
    return to;
  };
  for (let next = work.pop(); next; next = work.pop()) {
    const [from, to] = next;
    if (Array.isArray(from)) {
      for (const v of from) (to as unknown[]).push(copy(v));
    } else {
      for (const [key, v] of Object.entries(from))
        (to as Record<string, unknown>)[lowerFirst(key)] = copy(v);
    }
  }
  return root as T;
}

/** What a route's body schema says of a request that sends no body. */
function emptyBodyFor(schema: unknown): 'none' | 'empty-object' | 'required' {
  if (!schema || typeof schema !== 'object') return 'none';
  const { type, required } = schema as { type?: unknown; required?: unknown };
  // A schema of no declared type (a union, anything) is left to the validator.
  if (type === undefined) return 'none';
  const types = Array.isArray(type) ? type : [type];
  const optional = !Array.isArray(required) || required.length === 0;
  return types.includes('object') && optional ? 'empty-object' : 'required';
}

/**
 * Whether the request's body has yet to arrive whole. (`complete` is Node's: requests made by
 * app.inject have none, their whole body given from the start.)
 */
const bodyPending = (request: FastifyRequest) => request.raw.complete === false;

/**
 * Whether the request announces a body (RFC 9112 §6.3: a Content-Length above 0 or a
 * Transfer-Encoding); a request without either has none, whatever its method.
 */
export function announcesBody(request: { headers: IncomingMessage['headers'] }): boolean {
  const { headers } = request;
  if (headers['transfer-encoding'] !== undefined) return true;
  const length = headers['content-length'];
  return length !== undefined && Number(length) > 0;
}

/** Requests whose connection watchBody dropped for a body too slow. */
const dropped = new WeakSet<IncomingMessage>();

/**
 * Why the request's body will never arrive whole, if so: the server dropped its connection for
 * coming too slowly, or the client went away. What fails after that is no fault of the server,
 * and its answer reaches no one.
 */
export function bodyCutShort(request: FastifyRequest): 'dropped' | 'aborted' | null {
  const raw = request.raw;
  if (!bodyPending(request) || !(raw.destroyed || raw.socket?.destroyed)) return null;
  return dropped.has(raw) ? 'dropped' : 'aborted';
}

/** A route's policy as the authentication hook reads it (server/http/auth.ts). */
const isAnonymous = (route: RouteOptions) =>
  (route.config?.auth ?? (route.url.startsWith('/api/') ? 'default' : 'anonymous')) === 'anonymous';

/**
 * How long a body may take beyond `idleMs` without a byte: a total from its headers, or (an
 * upload, which may take hours) at least `minBytes` in each `windowMs`.
 */
type Deadline = { totalMs: number } | { windowMs: number; minBytes: number };

/**
 * Drops the connection of a request whose body is late: without a byte for `idleMs`, or past
 * its deadline. Progress is the socket's byte count, since listening to the body itself would
 * start reading it before its parser is ready.
 */
function watchBody(request: FastifyRequest, idleMs: number, deadline: Deadline): void {
  const raw = request.raw;
  const socket = raw.socket;
  // A request injected from inside the process (light-my-request: no network, a stand-in
  // socket that cannot be dropped, and a request that never closes when its body goes unread)
  // has no client to be slow.
  if (raw.complete || !(socket instanceof Socket)) return;
  const started = Date.now();
  let lastBytes = socket.bytesRead;
  let lastProgress = started;
  let windowStart = started;
  let windowBytes = lastBytes;
  const span = 'totalMs' in deadline ? deadline.totalMs : deadline.windowMs;
  // Checked a few times per limit, so a late body is dropped at most a quarter late.
  const tick = Math.max(10, Math.min(idleMs, span) / 4);
  const late = (now: number): string | null => {
    if (now - lastProgress >= idleMs) return 'stalled';
    if ('totalMs' in deadline) return now - started >= deadline.totalMs ? 'late' : null;
    if (now - windowStart < deadline.windowMs) return null;
    if (socket.bytesRead - windowBytes < deadline.minBytes) return 'too slow';
    windowStart = now;
    windowBytes = socket.bytesRead;
    return null;
  };
  const timer = setInterval(() => {
    if (raw.complete) return stop();
    const now = Date.now();
    if (socket.bytesRead !== lastBytes) {
      lastBytes = socket.bytesRead;
      lastProgress = now;
    }
    const why = late(now);
    if (why) {
      stop();
      request.log.debug({ url: request.url, why }, 'request body too slow: connection dropped');
      dropped.add(raw);
      socket.destroy();
    }
  }, tick);
  timer.unref();
  const stop = () => {
    clearInterval(timer);
    raw.off('end', stop);
    raw.off('close', stop);
  };
  raw.on('end', stop);
  raw.on('close', stop);
}

/**
 * Body parsing for the whole server: per-route size limits (ANONYMOUS_BODY_LIMIT for anonymous
 * routes, DEFAULT_BODY_LIMIT for the others unless they set `bodyLimit`; the server's own limit,
 * for requests that match no route, should be ANONYMOUS_BODY_LIMIT), JSON (also Moodle's
 * application/json-patch+json) with a depth limit and an empty body read as none (`{}` where
 * every property is optional), text/plain strings (documents, announcements; a body without a
 * content type is read as text, as the reference binds it), case-insensitive property names,
 * and the time a client may take to send its body.
 */
export function registerBodyHandling(app: FastifyInstance, timeouts: BodyTimeouts): void {
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= isAnonymous(route) ? ANONYMOUS_BODY_LIMIT : DEFAULT_BODY_LIMIT;
  });

  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string' },
    jsonParser(app.getDefaultJsonParser('error', 'error')),
  );
  app.addContentTypeParser(
    ['application/json-patch+json'],
    { parseAs: 'string' },
    jsonParser(app.getDefaultJsonParser('error', 'ignore')),
  );
  app.addContentTypeParser(['text/plain', '*'], { parseAs: 'string' }, (_req, body, done) =>
    done(null, body),
  );

  app.addHook('preValidation', (request: FastifyRequest, _reply, done) => {
    if (request.body === undefined) {
      // No body (none sent, or an empty one): a route that reads none gets none, a body whose
      // properties are all optional is `{}`, and a required one is named as missing, as ASP.NET
      // words it, rather than as a value that "must be object".
      const expected = emptyBodyFor(request.routeOptions.schema?.body);
      if (expected === 'empty-object') request.body = {};
      else if (expected === 'required')
        return done(new ValidationFailed('', 'A non-empty request body is required.'));
      return done();
    }
    // Wire reference §0: property names are case-insensitive.
    if (request.body && typeof request.body === 'object')
      request.body = normalizeKeys(request.body);
    done();
  });

  const uploadPace = {
    windowMs: timeouts.bodyTimeoutMs,
    minBytes: Math.ceil((timeouts.uploadMinBytesPerSecond * timeouts.bodyTimeoutMs) / 1000),
  };
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    // Most requests (every read) announce no body: nothing to watch, no timer to run.
    if (!announcesBody(request.raw)) return done();
    const upload = request.routeOptions.config?.upload === true;
    watchBody(
      request,
      timeouts.idleTimeoutMs,
      upload ? uploadPace : { totalMs: timeouts.bodyTimeoutMs },
    );
    done();
  });

  // An answer sent before its request's body has all arrived (a refusal, an upload that had what
  // it needed) closes the connection once written (RFC 9112 §9.6). Kept open, Node would read and
  // drop the rest of the body for as long as the client cares to send it, to reuse the
  // connection: an anonymous client could hold connections without ever being let in.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (bodyPending(request)) reply.header('connection', 'close');
    done(null, payload);
  });
}
