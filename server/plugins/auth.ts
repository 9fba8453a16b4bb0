import fp from 'fastify-plugin';
import { createAuthenticator, type Authenticator } from '../auth/authenticate';
import { authority } from '../config';
import { registerAuth } from '../http/auth';
import { grantRoutes } from '../http/grants';
import { registerRequestGuards } from '../http/security';
import { sharedSecret } from '../store/secrets';
import { userDefaults } from './services';

// Who a request comes from (wire reference §5): every route's policy is checked before its
// handler, and a credential held to one gamespace reaches only that gamespace's routes.

declare module 'fastify' {
  interface FastifyInstance {
    authenticator: Authenticator;
  }
}

export const authPlugin = fp(
  async (fastify) => {
    const { config, store, repositories, services } = fastify;
    // Shared by the server processes through the database: a console cookie signed by one is
    // accepted by another.
    const cookieSecret = new Uint8Array(
      Buffer.from(await sharedSecret(store.db, 'auth.cookieSecret'), 'base64'),
    );
    const authenticator = createAuthenticator({
      users: services.users,
      apiKeys: repositories.apiKeys,
      gamespaces: repositories.gamespaces,
      cache: fastify.cache,
      defaults: userDefaults(config),
      issuer: authority(config),
      audience: config.oidc.audience,
      jwks: fastify.jwks,
      rolesClaimPath: config.oidc.rolesClaimPath,
      cookieSecret,
      cookieMinutes: config.mksCookieMinutes,
    });
    fastify.decorate('authenticator', authenticator);
    registerAuth(
      fastify,
      authenticator,
      grantRoutes({
        tagOfVm: services.vms.tagFor,
        groupOfDispatch: services.dispatches.groupOf,
      }),
    );
    registerRequestGuards(fastify);
  },
  {
    name: 'auth',
    dependencies: ['settings', 'store', 'repositories', 'cache', 'services', 'identity'],
  },
);
