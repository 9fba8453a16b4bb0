import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { JWK } from 'jose';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema';
import { removeExpiredPayloads } from './adapter';
import { registerInteractions, unthrottled, type SignInThrottle } from './interactions';
import { loadCookieKeys, loadSigningKeys, publicKeys } from './keys';
import {
  clientOrigins,
  createProvider,
  resourceIndicatorFor,
  type IdentityClient,
  type IdentityLogger,
} from './provider';
import { registerUserinfo } from './userinfo';

export {
  AccountError,
  createAccount,
  generatePassword,
  hashPassword,
  setPassword,
  verifyCredentials,
} from './accounts';
export { INTERACTION_TTL_SECONDS, resourceIndicatorFor } from './provider';
export type { IdentityClient, IdentityLogger } from './provider';
export type { SignInThrottle } from './interactions';

// The embedded OpenID Connect provider (oidc-provider) used when no external authority is
// configured. It is mounted at the issuer's path inside Fastify: the provider is a Koa
// application, so its requests are handed over raw, bodies unread.

export interface IdentityOptions {
  /** e.g. 'http://localhost:5080/identity'; the provider is mounted at the issuer's path. */
  issuer: string;
  db: Kysely<Database>;
  /** e.g. 'topoplay-api': the `aud` of access tokens. */
  apiAudience: string;
  /** Shown on the login page. */
  appName: string;
  /** Public SPA clients: authorization code with PKCE, no secret, refresh tokens. */
  clients: IdentityClient[];
  /** Default 3600. */
  accessTokenTtlSeconds?: number;
  /** Sign-ins in progress stored at most (the oldest are dropped); default 5000. */
  maxPendingSignIns?: number;
  /** Delays password guessing; none by default. */
  signInThrottle?: SignInThrottle;
  logger?: IdentityLogger;
}

const silent: IdentityLogger = { warn: () => {}, error: () => {} };
const MAX_PENDING_SIGNINS = 5_000;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;
const METHODS = ['GET', 'POST', 'HEAD', 'OPTIONS'] as const;

export async function registerIdentity(
  app: FastifyInstance,
  options: IdentityOptions,
): Promise<{ jwks: { keys: JWK[] } }> {
  const mountPath = new URL(options.issuer).pathname.replace(/\/+$/, '');
  if (!mountPath) {
    throw new Error('identity: the issuer needs a path, e.g. http://localhost:5080/identity');
  }
  const { db } = options;
  const logger = options.logger ?? silent;
  const [signingKeys, cookieKeys] = await Promise.all([loadSigningKeys(db), loadCookieKeys(db)]);
  const jwks = publicKeys(signingKeys);
  const resourceIndicator = resourceIndicatorFor(options.apiAudience);

  const provider = createProvider({
    issuer: options.issuer,
    mountPath,
    db,
    apiAudience: options.apiAudience,
    resourceIndicator,
    appName: options.appName,
    clients: options.clients,
    accessTokenTtlSeconds: options.accessTokenTtlSeconds ?? 3600,
    maxInteractions: options.maxPendingSignIns ?? MAX_PENDING_SIGNINS,
    signingKeys,
    cookieKeys,
    logger,
  });
  // Koa reads the scheme and host from X-Forwarded-* only when `proxy` is set; forward() writes
  // those headers from Fastify's own view of the request, so the provider agrees with Fastify's
  // trustProxy setting (https behind a TLS proxy, nothing spoofable otherwise).
  provider.proxy = true;
  // The userinfo endpoint is ours (userinfo.ts); advertise it on the host the request came to,
  // like every other endpoint in the discovery document.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.oidc?.route === 'discovery' && ctx.body && typeof ctx.body === 'object') {
      (ctx.body as Record<string, unknown>).userinfo_endpoint = new URL(
        `${mountPath}/me`,
        ctx.href,
      ).href;
    }
  });
  const callback = provider.callback();

  async function forward(request: FastifyRequest, reply: FastifyReply) {
    const raw = request.raw as IncomingMessage & { originalUrl?: string };
    const url = raw.url ?? '/';
    if (!url.startsWith(mountPath)) return reply.code(404).send();
    reply.hijack();
    raw.headers['x-forwarded-proto'] = request.protocol;
    raw.headers['x-forwarded-host'] = request.host;
    raw.headers['x-forwarded-for'] = request.ip;
    // oidc-provider routes on the path below its mount point and rebuilds its own URLs from
    // originalUrl (as Express would leave them); without originalUrl the advertised endpoints
    // lose the '/identity' prefix.
    const rest = url.slice(mountPath.length);
    raw.originalUrl = url;
    raw.url = rest.startsWith('/') ? rest : `/${rest}`;
    try {
      await callback(raw, reply.raw);
    } finally {
      raw.url = url;
    }
  }

  await app.register(async (scope) => {
    // The provider and the login form read bodies themselves: no Fastify parser may consume them.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));

    registerInteractions(scope, {
      provider,
      db,
      mountPath,
      appName: options.appName,
      resourceIndicator,
      logger,
      throttle: options.signInThrottle ?? unthrottled,
    });
    registerUserinfo(scope, {
      issuer: options.issuer,
      mountPath,
      apiAudience: options.apiAudience,
      db,
      publicKeys: jwks,
      origins: clientOrigins(options.clients),
    });
    for (const url of [mountPath, `${mountPath}/*`]) {
      scope.route({ method: [...METHODS], url, exposeHeadRoute: false, handler: forward });
    }

    const sweep = setInterval(() => {
      removeExpiredPayloads(db).catch((error: unknown) =>
        logger.warn({ err: error }, 'identity: removing expired sessions failed'),
      );
    }, SWEEP_INTERVAL_MS);
    sweep.unref();
    scope.addHook('onClose', async () => clearInterval(sweep));
  });

  return { jwks };
}
