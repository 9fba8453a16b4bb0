import type { FastifyInstance, FastifyRequest } from 'fastify';
import {
  POLICY_SCHEMES,
  readCredentials,
  type Authenticator,
  type Credentials,
  type Policy,
} from '../auth/authenticate';
import { assertEnabled, type Actor } from '../core/actor';
import { forbidden } from '../core/errors';
import { routeKey, withinGrant, type GamespaceOf } from './grants';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may call the route; API routes default to 'default' (JWT or API key). */
    auth?: Policy;
  }
  interface FastifyRequest {
    actor: Actor | null;
  }
}

/**
 * Authenticates every /api request by its route's policy before the body is read:
 * no valid credential is 401 (with WWW-Authenticate), a disabled user 400 UserDisabled, a
 * non-admin on an admin route 403. An actor held to one gamespace (see grants.ts) gets 403 on
 * any route not about its gamespace: at once for routes outside the grant, and once the body is
 * read for those whose gamespace is named in it.
 */
export function registerAuth(
  app: FastifyInstance,
  authenticator: Authenticator,
  grants: ReadonlyMap<string, GamespaceOf>,
): void {
  app.decorateRequest('actor', null);
  app.addHook('onRequest', async (request, reply) => {
    const policy = policyOf(request);
    if (policy === 'anonymous') return;
    const creds = credentialsOf(request);
    const actor = await authenticator.authenticate(creds, POLICY_SCHEMES[policy]);
    if (!actor) {
      reply.header('WWW-Authenticate', 'Bearer');
      return reply.code(401).send('');
    }
    assertEnabled(actor);
    if (policy === 'admin' && !actor.isAdmin) throw forbidden();
    if (actor.grant && !grants.has(routeKey(request.method, request.routeOptions.url))) {
      throw forbidden();
    }
    request.actor = actor;
  });
  // A callback hook: only an actor held to a gamespace needs the wait.
  app.addHook('preHandler', (request, _reply, done) => {
    const actor = request.actor;
    if (!actor?.grant) return done();
    withinGrant(grants, actor, request).then(
      (within) => done(within ? undefined : forbidden()),
      (error: Error) => done(error),
    );
  });
}

const credentials = new WeakMap<FastifyRequest, Credentials>();

/** The credentials a request carries, read once (the rate limits look at them first). */
export function credentialsOf(request: FastifyRequest): Credentials {
  let creds = credentials.get(request);
  if (!creds) {
    creds = readCredentials(request.headers, (request.query ?? {}) as Record<string, unknown>);
    credentials.set(request, creds);
  }
  return creds;
}

/**
 * The path a request was routed by: the route's pattern, or for a request no route matched its
 * path. Not `request.url`, which for an absolute-form target (`GET http://host/api/user`) is the
 * whole URL and would make an /api route look like a page.
 */
export function routedPath(request: FastifyRequest): string {
  const pattern = request.routeOptions.url;
  if (pattern) return pattern;
  try {
    return new URL(request.url, 'http://localhost').pathname;
  } catch {
    return request.url;
  }
}

/** Who may call the route; API routes without a policy of their own use 'default'. */
export function policyOf(request: FastifyRequest): Policy {
  return (
    request.routeOptions.config?.auth ??
    (routedPath(request).startsWith('/api/') ? 'default' : 'anonymous')
  );
}

/** The authenticated actor of a route whose policy is not anonymous. */
export function actorOf(request: FastifyRequest): Actor {
  if (!request.actor) throw new Error('route has no authenticated actor');
  return request.actor;
}
