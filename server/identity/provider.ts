import type { EventEmitter } from 'node:events';
import type { Kysely } from 'kysely';
import Provider, {
  errors,
  type ClientMetadata,
  type Configuration,
  type Grant,
  type JWK,
  type KoaContextWithOIDC,
} from 'oidc-provider';
import type { Database } from '../store/schema';
import { findAccount } from './accounts';
import { KyselyAdapter } from './adapter';
import { errorPage, logoutPage, signedOutPage, type Page } from './pages';

export interface IdentityLogger {
  warn(obj: unknown, msg?: string): void;
  error(obj: unknown, msg?: string): void;
}

export interface IdentityClient {
  clientId: string;
  redirectUris: string[];
  postLogoutRedirectUris: string[];
}

export interface ProviderSetup {
  issuer: string;
  /** The issuer's path without a trailing slash, e.g. '/identity'. */
  mountPath: string;
  db: Kysely<Database>;
  apiAudience: string;
  /** The RFC 8707 resource indicator standing for the API (an absolute URI). */
  resourceIndicator: string;
  appName: string;
  clients: IdentityClient[];
  accessTokenTtlSeconds: number;
  /** Interactions (sign-ins in progress) stored at most; the oldest are dropped beyond. */
  maxInteractions: number;
  signingKeys: { keys: JWK[] };
  cookieKeys: string[];
  logger: IdentityLogger;
}

/** Scopes of the API resource: the access token carries these and the API reads sub and name. */
export const RESOURCE_SCOPE = 'openid profile';

const DAY = 24 * 60 * 60;

/**
 * How long a sign-in may take, from the application's redirect to the submitted form. Every
 * anonymous GET /auth stores an interaction (about 2.6 KB) for this long, so it is short.
 */
export const INTERACTION_TTL_SECONDS = 10 * 60;

/**
 * RFC 8707 requires resource indicators to be absolute URIs, and oidc-provider enforces it even
 * for its default resource, while an audience such as 'topoplay-api' is not one. The API is
 * therefore indicated by a URN built from the audience; tokens still carry `aud: apiAudience`.
 */
export function resourceIndicatorFor(apiAudience: string): string {
  return URL.canParse(apiAudience) ? apiAudience : `urn:${apiAudience}`;
}

function send(ctx: KoaContextWithOIDC, page: Page): void {
  ctx.set(page.headers);
  ctx.body = page.body;
}

function originsOf(client: IdentityClient): Set<string> {
  return new Set(
    [...client.redirectUris, ...client.postLogoutRedirectUris].map((uri) => new URL(uri).origin),
  );
}

/** Origins of every client's redirect URIs: allowed to call the token and userinfo endpoints. */
export function clientOrigins(clients: IdentityClient[]): Set<string> {
  return new Set(clients.flatMap((client) => [...originsOf(client)]));
}

/**
 * Every configured client is a first-party application: its grant is created here, so the
 * provider never asks the user to consent. Reuses the grant given when it belongs to the same
 * account and client.
 */
export async function firstPartyGrant(
  provider: Provider,
  resourceIndicator: string,
  input: { clientId: string; accountId: string; grantId?: string; requestedScope?: unknown },
): Promise<Grant> {
  const existing = input.grantId ? await provider.Grant.find(input.grantId) : undefined;
  const grant =
    existing && existing.accountId === input.accountId && existing.clientId === input.clientId
      ? existing
      : new provider.Grant({ accountId: input.accountId, clientId: input.clientId });
  const requested = new Set(
    typeof input.requestedScope === 'string' ? input.requestedScope.split(' ') : [],
  );
  grant.addOIDCScope(
    requested.has('offline_access') ? 'openid profile offline_access' : 'openid profile',
  );
  grant.addResourceScope(resourceIndicator, RESOURCE_SCOPE);
  await grant.save();
  return grant;
}

export function createProvider(setup: ProviderSetup): Provider {
  const { db, appName, resourceIndicator, logger } = setup;
  const originsByClient = new Map(setup.clients.map((c) => [c.clientId, originsOf(c)]));

  const clients: ClientMetadata[] = setup.clients.map((c) => ({
    client_id: c.clientId,
    redirect_uris: c.redirectUris,
    post_logout_redirect_uris: c.postLogoutRedirectUris,
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
  }));

  const configuration: Configuration = {
    adapter: (model: string) =>
      new KyselyAdapter(
        db,
        model,
        model === 'Interaction' ? { maxRows: setup.maxInteractions } : {},
      ),
    clients,
    clientBasedCORS: (_ctx, origin, client) =>
      originsByClient.get(client.clientId)?.has(origin) ?? false,
    jwks: setup.signingKeys,
    cookies: { keys: setup.cookieKeys },
    claims: { openid: ['sub'], profile: ['name', 'preferred_username'] },
    scopes: ['openid', 'profile', 'offline_access'],
    responseTypes: ['code'],
    pkce: { required: () => true },
    // The id token is where the SPA reads the name (the access token is for the API).
    conformIdTokenClaims: false,
    // The SPA renews with refresh tokens rather than hidden iframes (third-party cookies are
    // blocked when it runs on another origin). Without offline_access they end with the session.
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    async findAccount(_ctx, sub) {
      const account = await findAccount(db, sub);
      if (!account) return undefined;
      return {
        accountId: account.id,
        name: account.name,
        claims: () => ({
          sub: account.id,
          name: account.name,
          preferred_username: account.username,
        }),
      };
    },
    async extraTokenClaims(ctx, token) {
      if (token.kind !== 'AccessToken' || !token.accountId) return undefined;
      // The token endpoint has just found the account (findAccount above): no second query.
      const found = ctx.oidc.account;
      if (found?.accountId === token.accountId && typeof found.name === 'string') {
        return { name: found.name };
      }
      const account = await findAccount(db, token.accountId);
      return account ? { name: account.name } : undefined;
    },
    async loadExistingGrant(ctx) {
      const { client, session } = ctx.oidc;
      if (!client || !session?.accountId) return undefined;
      return firstPartyGrant(ctx.oidc.provider, resourceIndicator, {
        clientId: client.clientId,
        accountId: session.accountId,
        grantId: ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId),
        requestedScope: ctx.oidc.params?.scope,
      });
    },
    interactions: {
      url: (_ctx, interaction) => `${setup.mountPath}/interaction/${interaction.uid}`,
    },
    features: {
      devInteractions: { enabled: false },
      // oidc-provider's userinfo endpoint refuses every access token that has an audience, and
      // ours are all JWTs for the API; the plugin serves userinfo itself (see userinfo.ts).
      userinfo: { enabled: false },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => resourceIndicator,
        useGrantedResource: () => true,
        getResourceServerInfo(_ctx, indicator) {
          if (indicator !== resourceIndicator) throw new errors.InvalidTarget();
          return {
            scope: RESOURCE_SCOPE,
            audience: setup.apiAudience,
            accessTokenFormat: 'jwt',
            accessTokenTTL: setup.accessTokenTtlSeconds,
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (ctx, form) => send(ctx, logoutPage({ appName, form })),
        postLogoutSuccessSource: (ctx) => send(ctx, signedOutPage({ appName })),
      },
    },
    renderError(ctx, out) {
      const message =
        out.error === 'server_error'
          ? 'The sign-in service had an unexpected problem.'
          : `The request was refused: ${out.error_description ?? out.error} (${out.error}).`;
      send(ctx, errorPage({ appName, status: ctx.status, message }));
    },
    ttl: {
      AccessToken: setup.accessTokenTtlSeconds,
      AuthorizationCode: 60,
      IdToken: 3600,
      Interaction: INTERACTION_TTL_SECONDS,
      Session: 14 * DAY,
      Grant: 14 * DAY,
      RefreshToken(ctx, token, client) {
        // A rotated refresh token of a public client keeps the lifetime of the first one, so
        // rotation cannot extend a stolen token forever.
        const rotated = ctx?.oidc?.entities.RotatedRefreshToken;
        if (rotated && client.clientAuthMethod === 'none' && !token.isSenderConstrained()) {
          return rotated.remainingTTL;
        }
        return DAY;
      },
    },
  };

  const provider = new Provider(setup.issuer, configuration);

  // Koa prints errors to stderr unless someone listens; route them to the server's logger.
  (provider as unknown as EventEmitter).on('error', (error: unknown) =>
    logger.error({ err: error }, 'identity: error'),
  );
  provider.on('server_error', (ctx, error) =>
    logger.error({ err: error, path: ctx.path }, 'identity: server error'),
  );
  // Refused requests (bad client, expired code, ...) are worth a warning; error_detail is the
  // provider's reason, which it never sends to the client.
  const warn = (event: string) => (ctx: KoaContextWithOIDC, error: errors.OIDCProviderError) =>
    logger.warn(
      {
        path: ctx.path,
        error: error.error,
        description: error.error_description,
        detail: error.error_detail,
      },
      `identity: ${event}`,
    );
  provider.on('authorization.error', warn('authorization.error'));
  provider.on('grant.error', warn('grant.error'));
  provider.on('end_session.error', warn('end_session.error'));
  provider.on('revocation.error', warn('revocation.error'));
  return provider;
}
