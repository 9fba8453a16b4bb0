import type { IncomingMessage, ServerResponse } from 'node:http';
import helmet from 'helmet';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { forbidden } from '../core/errors';
import { routedPath } from './auth';
import { announcesBody } from './body';

// Browser protections: security headers on every answer (the SPA, the API, the identity
// provider's endpoints), and guards on requests a browser could be tricked into sending.

export interface SecurityHeaderSettings {
  /** An external OpenID Connect authority ('' for the embedded provider on this origin). */
  authority: string;
  /** Where the SPA calls the API (APP_HOST), when not its own origin. */
  appHost: string;
  /** The console service host (MKS_HOST), when set. */
  mksHost: string;
  /** The embedded provider's mount path, e.g. '/identity'. */
  identityPath: string;
}

/**
 * The header the SPA sends on every API call. A page on another site cannot send it without a
 * CORS preflight, which this server never grants, so a cookie-authenticated change that carries
 * it comes from our own pages. (SameSite=Strict alone lets a sibling subdomain through.)
 */
export const CSRF_HEADER = 'x-requested-with';

/** The sources a setting (a URL, or a bare host) adds to connect-src; [] for same-origin ones. */
export function sourcesOf(setting: string): string[] {
  const value = setting.trim();
  if (!value) return [];
  if (URL.canParse(value)) {
    const url = new URL(value);
    const twin: Record<string, string> = {
      'http:': 'ws:',
      'https:': 'wss:',
      'ws:': 'http:',
      'wss:': 'https:',
    };
    const other = twin[url.protocol];
    if (!other) return [];
    // The API's hub and the console service speak WebSocket to the same host as HTTP.
    return [url.origin, `${other}//${url.host}`];
  }
  // A relative path ('mks', '/api') stays on this origin; a host name matches its schemes.
  return /^[a-z0-9.-]+\.[a-z]{2,}(:\d+)?$/i.test(value) ? [value] : [];
}

/**
 * The Content-Security-Policy of the SPA and the API. The built SPA has no inline script (Vite
 * emits module files only); Monaco runs its worker from a file, and noVNC opens its WebSocket to
 * this origin ('self' covers ws: and wss: of the same host). Styles need 'unsafe-inline':
 * PrimeReact, Monaco and noVNC set style attributes and insert <style> elements at run time.
 */
/** The pages the SPA frames itself: the authorization endpoint and the silent-renew callback. */
const silentRenewPages = (settings: SecurityHeaderSettings) =>
  new RegExp(`^(/oidc-silent|${settings.identityPath}/auth)(?:[/?]|$)`);

export function contentSecurityPolicy(settings: SecurityHeaderSettings) {
  const authority = sourcesOf(settings.authority);
  const silentRenew = silentRenewPages(settings);
  return {
    useDefaults: false,
    directives: {
      defaultSrc: ["'self'"],
      baseUri: ["'self'"],
      objectSrc: ["'none'"],
      scriptSrc: ["'self'"],
      scriptSrcAttr: ["'none'"],
      styleSrc: ["'self'", "'unsafe-inline'"],
      // Guides show images from anywhere, as their markdown allows; images run no code.
      imgSrc: ['*', 'data:', 'blob:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: [
        "'self'",
        ...new Set([...authority, ...sourcesOf(settings.appHost), ...sourcesOf(settings.mksHost)]),
      ],
      workerSrc: ["'self'", 'blob:'],
      // oidc-client-ts renews in a hidden iframe when it has no refresh token.
      frameSrc: ["'self'", ...authority.filter((s) => !s.startsWith('ws'))],
      // Nothing may frame these pages (clickjacking), but for that iframe: the authorization
      // endpoint and the SPA's silent callback, framed by the SPA itself.
      frameAncestors: [
        (req: IncomingMessage) => (silentRenew.test(req.url ?? '') ? "'self'" : "'none'"),
      ],
    },
  };
}

/**
 * The headers helmet sets with these options for a request of this path, worked out once.
 * (helmet also removes X-Powered-By, which Fastify never sets.)
 */
function securityHeaders(
  options: Parameters<typeof helmet>[0],
  url: string,
): Array<[string, string]> {
  const set: Array<[string, string]> = [];
  const collector = {
    setHeader(name: string, value: string) {
      set.push([name, String(value)]);
    },
    removeHeader() {},
  } as unknown as ServerResponse;
  helmet(options)({ url } as IncomingMessage, collector, (error?: unknown) => {
    if (error) throw error;
  });
  return set;
}

export async function registerSecurityHeaders(
  app: FastifyInstance,
  settings: SecurityHeaderSettings,
): Promise<void> {
  const options = {
    contentSecurityPolicy: contentSecurityPolicy(settings),
    // No address reaches another site (some carry tickets); fetch() keeps its Origin header.
    referrerPolicy: { policy: 'no-referrer' as const },
    // HTTPS is the TLS proxy's business; a host served over it stays so, its subdomains untold.
    strictTransportSecurity: { maxAge: 180 * 24 * 60 * 60, includeSubDomains: false },
  };
  // Worked out once, for the pages the SPA frames and for every other: building helmet's
  // middleware on each request (parsing the policy) cost about 3% of a signed-in read.
  const framed = silentRenewPages(settings);
  const headers = securityHeaders(options, '/');
  const framedHeaders = securityHeaders(options, '/oidc-silent');
  app.addHook('onRequest', (request, reply, done) => {
    const set = framed.test(request.raw.url ?? '') ? framedHeaders : headers;
    for (const [name, value] of set) reply.raw.setHeader(name, value);
    done();
  });
  // Guide images are shown by other applications too (Gameboard shows TopoMojo's guides).
  app.addHook('onRequest', (request, reply, done) => {
    if (routedPath(request).startsWith('/docs/')) {
      reply.raw.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    }
    done();
  });
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** The types a plain HTML form (or a no-cors fetch) can send to another site. */
const FORM_TYPES = /^\s*(text\/plain|application\/x-www-form-urlencoded|multipart\/form-data)\b/i;

/** A route whose declared body is JSON: any body schema but a string's. */
function takesJson(request: FastifyRequest): boolean {
  const body = (request.routeOptions.schema as { body?: { type?: unknown } } | undefined)?.body;
  if (!body) return false;
  const types = Array.isArray(body.type) ? body.type : [body.type];
  return !types.includes('string');
}

/**
 * Guards on state changes; registered after authentication, which sets `request.actor`.
 * - A change authenticated by the console cookie must carry CSRF_HEADER: 403 otherwise.
 * - A form or text body to a route that takes JSON is refused with 415 before it is read.
 *   Routes that take text (documents, announcements) or files (uploads) declare no JSON body.
 */
export function registerRequestGuards(app: FastifyInstance): void {
  // Callback hooks here and in the other per-request hooks: an async hook costs a promise and a
  // turn of the microtask queue on every request, reads included.
  app.addHook('onRequest', (request, reply, done) => {
    if (SAFE_METHODS.has(request.method)) return done();
    if (request.actor?.via === 'cookie' && !request.headers[CSRF_HEADER]) return done(forbidden());
    if (announcesBody(request) && FORM_TYPES.test(request.headers['content-type'] ?? '')) {
      if (takesJson(request)) return reply.code(415).send({ message: 'UnsupportedMediaType' });
    }
    done();
  });
}
