import fp from 'fastify-plugin';
import { allowedOrigins, authority, usesEmbeddedIdentity } from '../config';
import { registerIdentity } from '../identity';

// The embedded OpenID Connect provider at /identity, when no other authority is configured: the
// SPA's allowed origins are its one client's redirect URIs.

declare module 'fastify' {
  interface FastifyInstance {
    /** The embedded provider's public keys; undefined with an external authority. */
    jwks: { keys: object[] } | undefined;
  }
}

export const identityPlugin = fp(
  async (fastify) => {
    const { config } = fastify;
    if (!usesEmbeddedIdentity(config)) {
      fastify.decorate('jwks', undefined);
      return;
    }
    const origins = allowedOrigins(config);
    const { jwks } = await registerIdentity(fastify, {
      issuer: authority(config),
      db: fastify.store.db,
      apiAudience: config.oidc.audience,
      appName: config.appName,
      accessTokenTtlSeconds: config.oidc.accessTokenTtlSeconds,
      maxPendingSignIns: config.oidc.maxPendingSignIns,
      signInThrottle: fastify.signInThrottle,
      clients: [
        {
          clientId: config.oidc.clientId,
          redirectUris: origins.flatMap((o) => [`${o}/oidc`, `${o}/oidc-silent`]),
          postLogoutRedirectUris: origins.map((o) => `${o}/`),
        },
      ],
      logger: fastify.log,
    });
    fastify.decorate('jwks', jwks);
  },
  { name: 'identity', dependencies: ['settings', 'store', 'http'] },
);
