import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import fastifyStatic from '@fastify/static';
import type { FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import {
  APP_NAME_SLOT,
  escapeHtml,
  HOME_PAGE_FILE,
  RESTORE_PENDING_COOKIE,
} from '../../src/domain/homePage';
import { allowedOrigins, authority } from '../config';
import { routedPath } from '../http/auth';

// The SPA: its settings (assets/settings.json, written from the configuration), its built files,
// and its page for every other path a browser may load; API and protocol paths that no route
// answers get 404. On `/` it sends the home page already rendered (home.html, written by the
// build), whose title the browser paints before the scripts have run.

/** The rendered home page with the configured name, and its compressed copies. */
interface HomePage {
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/**
 * The build's home page, made once per build: it is read again when the file changes, so that a
 * new build is picked up on the next load (its script names change with it), as index.html is.
 */
function homePageOf(spaDir: string, appName: string): () => HomePage | null {
  const file = join(spaDir, HOME_PAGE_FILE);
  let made: { mtimeMs: number; page: HomePage } | null = null;
  return () => {
    const mtimeMs = statSync(file, { throwIfNoEntry: false })?.mtimeMs;
    if (mtimeMs === undefined) return null;
    if (made?.mtimeMs !== mtimeMs) {
      const identity = Buffer.from(
        readFileSync(file, 'utf8').replaceAll(APP_NAME_SLOT, escapeHtml(appName)),
      );
      const br = brotliCompressSync(identity, {
        params: { [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY },
      });
      made = { mtimeMs, page: { identity, br, gzip: gzipSync(identity, { level: 9 }) } };
    }
    return made.page;
  };
}

/** The encoding of the home page that the request accepts: brotli, else gzip, else none. */
function homeEncoding(request: FastifyRequest): 'br' | 'gzip' | 'identity' {
  const accepted = new Set<string>();
  for (const part of (request.headers['accept-encoding'] ?? '').split(',')) {
    const [coding = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((param) => param.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) accepted.add(coding);
  }
  if (accepted.has('br')) return 'br';
  if (accepted.has('gzip')) return 'gzip';
  return 'identity';
}

/** The SPA keeps a page to go back to: home will leave at once, so it is not worth painting. */
function restorePending(request: FastifyRequest): boolean {
  return (request.headers.cookie ?? '')
    .split(';')
    .some((pair) => pair.trim() === `${RESTORE_PENDING_COOKIE}=1`);
}

export const spaPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    const origins = allowedOrigins(config);

    fastify.get(
      '/assets/settings.json',
      { config: { auth: 'anonymous' } },
      async (request, reply) => {
        // Sign-in returns to the origin the page was loaded from when that origin is allowed.
        const origin = `${request.protocol}://${request.host}`;
        const base = origins.includes(origin) ? origin : config.publicUrl;
        reply.header('Cache-Control', 'no-store');
        return {
          appname: config.appName,
          apphost: config.appHost,
          mkshost: config.mksHost,
          enable_upload: config.enableUpload,
          oidc: {
            authority: authority(config),
            client_id: config.oidc.clientId,
            redirect_uri: `${base}/oidc`,
            silent_redirect_uri: `${base}/oidc-silent`,
            post_logout_redirect_uri: `${base}/`,
            scope: config.oidc.scope,
            response_type: 'code',
            loadUserInfo: true,
            automaticSilentRenew: true,
            autoLogin: config.oidc.autoLogin,
            autoLogout: true,
            useLocalStorage: config.oidc.useLocalStorage,
            silentRenewIfActiveSeconds: 0,
            debug: false,
          },
        };
      },
    );

    const hasSpa = existsSync(join(config.spaDir, 'index.html'));
    if (hasSpa) {
      await fastify.register(fastifyStatic, {
        root: config.spaDir,
        wildcard: true,
        index: false,
        redirect: false,
        list: false,
        // home.html holds a slot for the application's name; it is sent on `/`, filled in.
        allowedPath: (pathName) => pathName !== `/${HOME_PAGE_FILE}`,
        // The build's brotli and gzip copies (scripts/precompress.mjs), as Accept-Encoding
        // allows; the file itself otherwise.
        preCompressed: true,
        setHeaders(res, path) {
          // Vite names built assets by content hash, so they never change under one name.
          if (path.includes(`${join(config.spaDir, 'assets')}`)) {
            res.header('Cache-Control', 'public, max-age=31536000, immutable');
          }
        },
      });
    }

    // The SPA's page: never cached, so a new build is picked up on the next load.
    const sendIndex = (reply: FastifyReply) => {
      if (!hasSpa) {
        return reply
          .code(503)
          .type('text/plain')
          .send('The web application is not built: run `npm run build` (npm start does it).');
      }
      reply.header('Cache-Control', 'no-cache');
      return reply.type('text/html').sendFile('index.html', { cacheControl: false });
    };
    const homePage = homePageOf(config.spaDir, config.appName);
    fastify.get('/', { config: { auth: 'anonymous' } }, (request, reply) => {
      // Which page `/` gets depends on the restore cookie as well.
      reply.header('Vary', 'Accept-Encoding, Cookie');
      const home = hasSpa && !restorePending(request) ? homePage() : null;
      if (!home) return sendIndex(reply);
      const encoding = homeEncoding(request);
      reply.header('Cache-Control', 'no-cache');
      if (encoding !== 'identity') reply.header('Content-Encoding', encoding);
      return reply.type('text/html; charset=utf-8').send(home[encoding]);
    });

    // History fallback: any other GET for a page gets the SPA; API and protocol paths get 404.
    const reserved = /^\/(api|identity|hub|docs|assets|metrics)(\/|$)/;
    fastify.setNotFoundHandler((request, reply) => {
      const path = routedPath(request);
      if ((request.method === 'GET' || request.method === 'HEAD') && !reserved.test(path)) {
        return sendIndex(reply);
      }
      return reply.code(404).send('');
    });
  },
  { name: 'spa', dependencies: ['settings', 'auth'] },
);
