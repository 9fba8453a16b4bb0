import { existsSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyReply } from 'fastify';
import fp from 'fastify-plugin';
import { allowedOrigins, authority } from '../config';
import { routedPath } from '../http/auth';

// The SPA: its settings (assets/settings.json, written from the configuration), its built files,
// and its page for every other path a browser may load; API and protocol paths that no route
// answers get 404.

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
    fastify.get('/', { config: { auth: 'anonymous' } }, (_request, reply) => sendIndex(reply));

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
