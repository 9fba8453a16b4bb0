import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createLocalJWKSet, jwtVerify, type JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { findAccount } from './accounts';

// The OpenID Connect userinfo endpoint. oidc-provider's own refuses access tokens that carry an
// audience, and every token of this provider is a JWT for the API, so a client reading userinfo
// (oidc-client-ts with loadUserInfo) would always fail there. This one accepts exactly those
// tokens: signed by this provider, for the API, with the openid scope.

export interface UserinfoSetup {
  issuer: string;
  mountPath: string;
  apiAudience: string;
  db: Kysely<Database>;
  publicKeys: { keys: JWK[] };
  /** Origins allowed to call from a browser (the clients' redirect URI origins). */
  origins: Set<string>;
}

const errorSchema = {
  type: 'object',
  properties: { error: { type: 'string' }, error_description: { type: 'string' } },
  required: ['error'],
} as const;

const schema = {
  response: {
    200: {
      type: 'object',
      properties: {
        sub: { type: 'string' },
        name: { type: 'string' },
        preferred_username: { type: 'string' },
      },
      required: ['sub'],
    },
    401: errorSchema,
    403: errorSchema,
  },
} as const;

export function registerUserinfo(app: FastifyInstance, setup: UserinfoSetup): void {
  const keys = createLocalJWKSet(setup.publicKeys);

  function refuse(reply: FastifyReply, status: 401 | 403, error: string, description: string) {
    return reply
      .code(status)
      .header(
        'www-authenticate',
        `Bearer realm="${setup.issuer}", error="${error}", error_description="${description}"`,
      )
      .send({ error, error_description: description });
  }

  async function handler(request: FastifyRequest, reply: FastifyReply) {
    const origin = request.headers.origin;
    if (origin && setup.origins.has(origin)) {
      reply.header('access-control-allow-origin', origin);
      reply.header('access-control-expose-headers', 'WWW-Authenticate');
    }
    reply.header('vary', 'Origin');
    if (request.method === 'OPTIONS') {
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, POST')
        .header('access-control-allow-headers', 'Authorization')
        .header('access-control-max-age', '3600')
        .send();
    }
    reply.header('cache-control', 'no-store');
    const [scheme, token] = (request.headers.authorization ?? '').split(' ');
    if (scheme?.toLowerCase() !== 'bearer' || !token) {
      return refuse(reply, 401, 'invalid_token', 'no access token provided');
    }
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(token, keys, {
        issuer: setup.issuer,
        audience: setup.apiAudience,
        typ: 'at+jwt',
        algorithms: ['RS256'],
      }));
    } catch {
      return refuse(reply, 401, 'invalid_token', 'invalid token provided');
    }
    const scopes = typeof claims.scope === 'string' ? claims.scope.split(' ') : [];
    if (!scopes.includes('openid')) {
      return refuse(reply, 403, 'insufficient_scope', 'access token missing openid scope');
    }
    const account = claims.sub ? await findAccount(setup.db, claims.sub) : undefined;
    if (!account) return refuse(reply, 401, 'invalid_token', 'invalid token provided');
    return {
      sub: account.id,
      ...(scopes.includes('profile')
        ? { name: account.name, preferred_username: account.username }
        : {}),
    };
  }

  app.route({ method: ['GET', 'POST', 'OPTIONS'], url: `${setup.mountPath}/me`, schema, handler });
}
