import type { FastifyBodyParser, FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { DomainError, ValidationFailed } from '../core/errors';

// How request bodies are read: their size per route, their nesting, their names' case, and how
// long a client may take to send them. Multipart uploads are streamed by their routes and are
// not held to the size limits here, only to the time limits.

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route streams a large upload (an ISO of gigabytes): its body may take as long as it
     * keeps arriving, and is dropped only when it stalls.
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
  /** The longest a request may take to send its body, upload routes aside. */
  bodyTimeoutMs: number;
  /** A body that makes no progress for this long is dropped, on every route. */
  idleTimeoutMs: number;
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
 * Reads and drops what is left of an upload's body once the route has answered or has what it
 * needs, so that the client can finish sending and read the answer on a connection that stays
 * usable. A reader still waiting for the body (./form.ts) leaves it flowing when it stops.
 */
export function discardRest(request: FastifyRequest): void {
  if (request.raw.readableEnded) return;
  request.raw.on('data', () => undefined);
}

/** A route's policy as the authentication hook reads it (server/http/auth.ts). */
const isAnonymous = (route: RouteOptions) =>
  (route.config?.auth ?? (route.url.startsWith('/api/') ? 'default' : 'anonymous')) === 'anonymous';

/**
 * Drops the connection of a request whose body is late: past `totalMs` from its headers (null:
 * no deadline), or without a byte for `idleMs`. Progress is the socket's byte count, since
 * listening to the body itself would start reading it before its parser is ready.
 */
function watchBody(request: FastifyRequest, idleMs: number, totalMs: number | null): void {
  const raw = request.raw;
  const socket = raw.socket;
  if (raw.complete || !socket) return;
  const started = Date.now();
  let lastBytes = socket.bytesRead;
  let lastProgress = started;
  // Checked a few times per limit, so a late body is dropped at most a quarter late.
  const tick = Math.max(10, Math.min(idleMs, totalMs ?? idleMs) / 4);
  const timer = setInterval(() => {
    if (raw.complete) return stop();
    const now = Date.now();
    if (socket.bytesRead !== lastBytes) {
      lastBytes = socket.bytesRead;
      lastProgress = now;
    }
    if (now - lastProgress >= idleMs || (totalMs !== null && now - started >= totalMs)) {
      stop();
      request.log.debug({ url: request.url }, 'request body too slow: connection dropped');
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

  app.addHook('preValidation', async (request: FastifyRequest) => {
    if (request.body === undefined) {
      // No body (none sent, or an empty one): a route that reads none gets none, a body whose
      // properties are all optional is `{}`, and a required one is named as missing, as ASP.NET
      // words it, rather than as a value that "must be object".
      const expected = emptyBodyFor(request.routeOptions.schema?.body);
      if (expected === 'empty-object') request.body = {};
      else if (expected === 'required')
        throw new ValidationFailed('', 'A non-empty request body is required.');
      return;
    }
    // Wire reference §0: property names are case-insensitive.
    if (request.body && typeof request.body === 'object')
      request.body = normalizeKeys(request.body);
  });

  app.addHook('onRequest', async (request: FastifyRequest) => {
    const upload = request.routeOptions.config?.upload === true;
    watchBody(request, timeouts.idleTimeoutMs, upload ? null : timeouts.bodyTimeoutMs);
  });
}
