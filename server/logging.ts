import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyRequest, FastifyServerOptions } from 'fastify';
import type { Config } from './config';

// The server's log (Fastify's pino): JSON lines for a log collector, or pino-pretty's lines for
// someone at a terminal. Every line logged while serving a request carries its id (`reqId`),
// which the answer echoes in `x-request-id`, so a client's report leads to the server's lines.
// Nothing that acts as a credential is written: credential headers never are, and URLs lose the
// values of token-like query parameters and the invitation codes in their paths.

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * An incoming request id is kept when it is a short token (a UUID, a proxy's or a tracer's id):
 * anything longer or with other characters could forge log lines or fill them.
 */
const SAFE_REQUEST_ID = /^[\w.:+=/-]{1,64}$/;

export const REDACTED = '[REDACTED]';

/** Query parameters whose value is a credential, by lower-cased name (the server reads any case). */
const SECRET_PARAMS = new Set([
  // One-time tickets: the hub's (browsers cannot send headers on a WebSocket), the console's.
  'access_token',
  'ticket',
  // Launch and console links: /lp?t=, /mks/?t=, /c?token=, and the invitation code of /lp?c=.
  't',
  'token',
  'c',
  // The authorization code on the sign-in callback (/oidc?code=), and the ID token a sign-out
  // at the embedded identity provider may carry.
  'code',
  'id_token_hint',
  // Sent by no client of ours, but a mistaken script would put them here.
  'id_token',
  'refresh_token',
  'client_secret',
  'password',
]);

/** On /hub, `id` is the connection token POST /hub/negotiate handed out. */
const HUB_PATH = /^\/hub(\/|$)/;

/** Invitation codes in paths: the API's join routes and the SPA's invitation pages. */
const SECRET_SEGMENTS = [
  /^(\/api\/(?:player|worker)\/)(?!enlist(?:$|\/))([^/]+)/,
  /^(\/mojo\/[^/]+\/[^/]+\/)([^/]+)(?=\/?$)/i,
  /^(\/topo\/[^/]+\/invite\/)([^/]+)/i,
];

/** `http://host` of an absolute-form request target (`GET http://host/path HTTP/1.1`). */
const ORIGIN = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*/i;

function lowerName(encoded: string): string {
  try {
    return decodeURIComponent(encoded).toLowerCase();
  } catch {
    return encoded.toLowerCase();
  }
}

/** A request target as it may be logged: the values of credentials replaced, the rest as sent. */
export function redactUrl(url: string): string {
  const origin = ORIGIN.exec(url)?.[0] ?? '';
  const target = url.slice(origin.length);
  const q = target.indexOf('?');
  let path = q < 0 ? target : target.slice(0, q);
  for (const pattern of SECRET_SEGMENTS) path = path.replace(pattern, `$1${REDACTED}`);
  if (q < 0) return origin + path;
  const onHub = HUB_PATH.test(path);
  const query = target
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const name = lowerName(pair.slice(0, eq));
      const secret = SECRET_PARAMS.has(name) || (onHub && name === 'id');
      return secret ? `${pair.slice(0, eq + 1)}${REDACTED}` : pair;
    })
    .join('&');
  return `${origin}${path}?${query}`;
}

/** The id of a request: the caller's `x-request-id` when it is a safe token, else a new UUID. */
export function requestId(raw: IncomingMessage): string {
  const given = raw.headers[REQUEST_ID_HEADER];
  return typeof given === 'string' && SAFE_REQUEST_ID.test(given) ? given : randomUUID();
}

/** Echoes the request id on every answer, refusals and 404s included. */
export function registerRequestIds(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    // On the raw response: the identity provider's routes answer through it, not through reply.
    reply.raw.setHeader(REQUEST_ID_HEADER, request.id);
    done();
  });
}

/** Credential headers, wherever a log call puts a `headers` object (one level down at most). */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', '"set-cookie"', '"x-api-key"'];
const REDACT_PATHS = CREDENTIAL_HEADERS.flatMap((h) => {
  const path = h.startsWith('"') ? `headers[${h}]` : `headers.${h}`;
  return [path, `*.${path}`];
});

const serializers = {
  // Fastify's own, without the `accept-version` header and with the URL redacted.
  req: (request: FastifyRequest) => ({
    method: request.method,
    url: redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  }),
  // Route code logs `{ url: request.url }` with its errors.
  url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
};

/** Fastify's `logger` option as an object: its own settings and pino's. */
export type LoggerOptions = Exclude<NonNullable<FastifyServerOptions['logger']>, boolean>;

/**
 * Fastify's logger options: LOG_LEVEL, and LOG_FORMAT or else pretty lines when stdout is a
 * terminal. `destination` replaces stdout (tests read the log from it).
 */
export async function loggerOptions(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  destination?: NodeJS.WritableStream,
): Promise<LoggerOptions> {
  const pretty = config.logFormat ? config.logFormat === 'pretty' : process.stdout.isTTY === true;
  const options: LoggerOptions = {
    level: config.logLevel,
    serializers,
    redact: { paths: REDACT_PATHS, censor: REDACTED },
  };
  if (pretty) {
    // Loaded only for people at a terminal, and run in this thread rather than in a pino
    // transport's worker: a person reads these lines, no collector waits on them.
    const { default: prettyStream } = await import('pino-pretty');
    const stream = prettyStream({
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      sync: true,
      ...(destination ? { destination } : {}),
    });
    return { ...options, stream };
  }
  return destination ? { ...options, stream: destination } : options;
}
