import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { authority } from '../config';
import { registerBodyHandling } from '../http/body';
import { createErrorLog, type ErrorLog } from '../core/errorLog';
import { registerErrorHandling } from '../http/errors';
import { registerRateLimits } from '../http/rateLimit';
import { registerSecurityHeaders } from '../http/security';
import type { SignInThrottle } from '../identity';
import { registerRequestIds } from '../logging';

// What every request goes through before any route sees it, in this order: its id, its body's
// limits, the error answers, the security headers and the abuse limits. Registered before
// authentication, so that a request refused here costs no credential lookup.

declare module 'fastify' {
  interface FastifyInstance {
    /** Delays password guessing at the embedded identity provider's sign-in. */
    signInThrottle: SignInThrottle;
    /**
     * Counts a refused credential towards its address's limit, for routes that refuse without a
     * 401 (the console socket closes with a reason after its upgrade).
     */
    credentialRefused(request: FastifyRequest): Promise<void>;
    /** This process's recent unexpected errors (GET /api/admin/log). */
    errorLog: ErrorLog;
  }
}

export const httpPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    registerRequestIds(fastify);
    // A WebSocket upgrade answered here (the abuse limits answer in onRequest, before the
    // WebSocket plugin's own hook marks the request as an upgrade) would keep its socket open:
    // Node hands an upgrade's socket over and nothing else ends it. An upgraded one is hijacked
    // and never comes here.
    fastify.addHook('onResponse', (request, _reply, done) => {
      if (request.raw.headers.upgrade !== undefined) request.raw.socket.destroy();
      done();
    });
    // Bodies: size limits per route, JSON with a depth limit, text/plain strings,
    // case-insensitive property names (wire reference §0), and how long a client may take to
    // send them.
    registerBodyHandling(fastify, {
      bodyTimeoutMs: config.http.bodyTimeoutMs,
      idleTimeoutMs: config.http.idleBodyTimeoutMs,
      uploadMinBytesPerSecond: config.http.uploadMinBytesPerSecond,
    });
    const errorLog = createErrorLog({ now: () => fastify.clock.now() });
    fastify.decorate('errorLog', errorLog);
    registerErrorHandling(fastify, errorLog);
    await registerSecurityHeaders(fastify, {
      authority: authority(config),
      appHost: config.appHost,
      mksHost: config.mksHost,
      identityPath: new URL(authority(config)).pathname.replace(/\/+$/, ''),
    });
    const limits = await registerRateLimits(fastify, {
      limits: config.limits,
      redis: fastify.redis,
    });
    fastify.decorate('signInThrottle', limits.signIn);
    fastify.decorate('credentialRefused', limits.credentialRefused);
  },
  { name: 'http', dependencies: ['settings', 'cache'] },
);
