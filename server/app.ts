import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { LogController, type FastifyInstance, type FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import fastifyMultipart from '@fastify/multipart';
import { allowedOrigins, authority, usesEmbeddedIdentity, type Config } from './config';
import { realClock, type Clock } from './clock';
import { openStore, type Store } from './store/db';
import { sharedSecret } from './store/secrets';
import { createMemoryCache, type Cache } from './core/cache';
import { createRedisCache } from './core/redisCache';
import { createUserService } from './core/users';
import { createWorkspaceService } from './core/workspaces';
import { createTemplateService } from './core/templates';
import { createGamespaceService, gameState } from './core/gamespaces';
import { createGradingService } from './core/grading';
import { createPlayService } from './core/play/service';
import { createJanitor } from './core/janitor';
import { gradingRoutes } from './http/gamespace/gradingRoutes';
import { createVmService, type VmPublisher, type VmService } from './core/vms';
import { createDriver, type HypervisorDriver } from './hypervisor';
import { createConsoleTickets } from './console/tickets';
import { consoleRoutes } from './console/routes';
import { seedStockTemplates } from './core/stockTemplates';
import type { Publisher } from './core/fields';
import { seedFirstRun, type SeedResult } from './core/seed';
import { removeStaleStaging } from './core/staging';
import { createAuthenticator, subjectOf } from './auth/authenticate';
import type { ListenerRevoker } from './core/membership';
import { registerIdentity } from './identity';
import { registerErrorHandling } from './http/errors';
import { registerAuth, routedPath } from './http/auth';
import { grantRoutes } from './http/grants';
import { userRoutes } from './http/user/routes';
import { workspaceRoutes } from './http/workspace/routes';
import { challengeRoutes } from './http/challenge/routes';
import { createChallengeService } from './core/challenges';
import { templateRoutes } from './http/template/routes';
import { gamespaceRoutes } from './http/gamespace/routes';
import { ANONYMOUS_BODY_LIMIT, registerBodyHandling } from './http/body';
import { serverWithLimits } from './http/connections';
import { adminRoutes } from './http/admin/routes';
import { vmRoutes } from './http/vm/routes';
import { createIsoStore } from './core/isos';
import { fileRoutes } from './http/file/routes';
import { workspaceIsoRoutes } from './http/workspace/isoRoutes';
import { createDocumentService, type DocumentAccess } from './core/documents';
import { createImageService, MAX_IMAGE_BYTES } from './core/images';
import { documentRoutes } from './http/document/routes';
import { createMemoryBackplane, type Backplane } from './hub/backplane';
import { createStateCache, observeGroups } from './core/play/stateCache';
import { createRedisBackplane } from './hub/redisBackplane';
import { createChannelAccess } from './hub/access';
import { createHub, MAX_MESSAGE_BYTES, type Hub } from './hub/hub';
import { hubRoutes } from './hub/routes';
import { registerRateLimits } from './http/rateLimit';
import { registerRequestGuards, registerSecurityHeaders } from './http/security';
import { markDocumentationAnonymous, registerOpenApi } from './http/openapi';
import { healthRoutes } from './http/health';
import { loggerOptions, registerRequestIds, requestId } from './logging';
import { createMetrics, metricsRoutes } from './metrics';
import { countActive } from './core/gamespaces';

export interface App {
  app: FastifyInstance;
  store: Store;
  cache: Cache;
  /** The real-time hub; route code publishes through `app.hub` (the same object). */
  hub: Hub;
  /** The hypervisor driver (HYPERVISOR); tests deploy gamespace machines through it. */
  driver: HypervisorDriver;
  vms: VmService;
  config: Config;
  seeded: SeedResult | null;
  /** Every route the server answers, as registered (the authorization matrix reads it). */
  routes: RouteEntry[];
  close(): Promise<void>;
}

export interface RouteEntry {
  method: string;
  url: string;
  /** The route's authentication policy; API routes without one use 'default'. */
  auth: string;
}

const VERSION = '0.1.0';

export interface BuildOptions {
  /** false: no log at all (most tests). */
  logger?: boolean;
  /** Where log lines go instead of stdout (tests read them). */
  logDestination?: NodeJS.WritableStream;
  /** The sim driver's tasks and the console's checks run on it; tests move time on by hand. */
  clock?: Clock;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
  const store = await openStore({ url: config.databaseUrl, schema: config.databaseSchema });
  const clock = options.clock ?? realClock;
  const app = Fastify({
    logger: options.logger === false ? false : await loggerOptions(config, options.logDestination),
    // Our own: a caller's x-request-id only when it is a safe token (server/logging.ts).
    genReqId: requestId,
    trustProxy: config.trustProxy,
    // One line per request drowns what matters (first-run accounts, errors) on a console.
    logController: new LogController({
      disableRequestLogging: config.logLevel !== 'debug' && config.logLevel !== 'trace',
    }),
    // Requests for no route read this much at most; routes set their own (server/http/body.ts).
    bodyLimit: ANONYMOUS_BODY_LIMIT,
    serverFactory: serverWithLimits({
      headersTimeoutMs: config.http.headersTimeoutMs,
      // Behind a reverse proxy every connection comes from the proxy.
      maxConnectionsPerClient: config.trustProxy ? 0 : config.http.maxConnectionsPerClient,
    }),
  });
  // Set when close() begins. Answers sent from then on (requests that were under way) ask their
  // clients to close the connection, so that the server drains as soon as they are sent rather
  // than when idle keep-alive connections time out.
  let closing = false;
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  // Before the table below records each route's policy: the API's description is for everyone.
  app.addHook('onRoute', markDocumentationAnonymous);
  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const auth =
      (route.config as { auth?: string } | undefined)?.auth ??
      (route.url.startsWith('/api/') ? 'default' : 'anonymous');
    for (const method of methods) routes.push({ method, url: route.url, auth });
  });
  registerRequestIds(app);
  // With Redis, every server process shares the cache (tickets) and the hub's groups.
  const onRedisError = (err: unknown) => app.log.warn({ err }, 'redis');
  const redis = config.redisUrl
    ? { url: config.redisUrl, prefix: config.redisPrefix, onError: onRedisError }
    : null;
  const cache: Cache = redis ? createRedisCache(redis) : createMemoryCache();
  // Kept game states are dropped on every message to their gamespace's group, from any process.
  const stateCache = createStateCache({ ttlMs: config.stateCacheMs });
  const backplane: Backplane = observeGroups(
    redis ? await createRedisBackplane(redis) : createMemoryBackplane(),
    (group) => stateCache.forget(group),
  );

  // Bodies: size limits per route, JSON with a depth limit, text/plain strings, case-insensitive
  // property names (wire reference §0), and how long a client may take to send them.
  registerBodyHandling(app, {
    bodyTimeoutMs: config.http.bodyTimeoutMs,
    idleTimeoutMs: config.http.idleBodyTimeoutMs,
  });

  registerErrorHandling(app);
  // Before every route, and before authentication: headers on every answer, and abuse limits
  // that refuse a request before it costs a credential lookup.
  const identityPath = new URL(authority(config)).pathname.replace(/\/+$/, '');
  await registerSecurityHeaders(app, {
    authority: authority(config),
    appHost: config.appHost,
    mksHost: config.mksHost,
    identityPath,
  });
  const limits = await registerRateLimits(app, { limits: config.limits, redis });

  const defaults = {
    workspaceLimit: config.defaultWorkspaceLimit,
    gamespaceLimit: config.defaultGamespaceLimit,
  };
  const users = createUserService(store, defaults);
  // The authoring services publish hub events through this; `hub` is created below, before any
  // request can reach them.
  const publisher: Publisher = {
    publish: (group, event, payload) => hub.toGroup(group).send(event, payload),
  };
  // VmEvents have their own port: the authoring services' Publisher does not carry them.
  const vmPublisher: VmPublisher = {
    publish: (group, event, payload) => hub.toGroup(group).send(event, payload),
  };
  const consoleTickets = createConsoleTickets(cache);
  const driver = createDriver(config, {
    db: store.db,
    dataDir: config.dataDir,
    console: consoleTickets,
    log: app.log,
    clock,
  });
  // Prometheus metrics, only with METRICS_TOKEN (server/metrics.ts).
  const metrics = config.metricsToken
    ? createMetrics(app, {
        driver: { name: config.hypervisor, runningCount: () => driver.runningCount() },
        activeGamespaces: () => countActive(store.db, Date.now()),
        poolStats: () => store.poolStats(),
      })
    : null;
  const vms = createVmService(store.db, { driver, publisher: vmPublisher });
  // Tasks that end on their own (a deploy finishing) reach the editors and players watching.
  const stopRelay = vms.relayDriverEvents();
  const docsDir = join(config.dataDir, 'docs');
  // Revocations go through the hub, created below before any request can reach a service.
  const listeners: ListenerRevoker = { revoke: (target) => hub.revoke(target) };
  // Documents and images are the workspace service's to authorize, and go with a workspace.
  const documentAccess: DocumentAccess = {
    exists: (id) => workspaces.exists(id),
    canEdit: (actor, id) => workspaces.canEdit(actor, id),
  };
  const documents = createDocumentService(store.db, {
    docsDir,
    access: documentAccess,
    publisher: { publish: (group, payload) => hub.toGroup(group).send('DocumentEvent', payload) },
  });
  const images = createImageService({ docsDir, access: documentAccess });
  const workspaces = createWorkspaceService(store.db, {
    publisher,
    listeners,
    machines: vms.workspaceMachines,
    files: [documents, images],
    docsDir,
  });
  const templates = createTemplateService(store.db, { publisher, machines: vms.templateMachines });
  const origins = allowedOrigins(config);

  const hub = createHub({
    backplane,
    canListen: createChannelAccess(store.db, workspaces),
    log: app.log,
    keepAliveMs: config.hubKeepAliveMs,
    clientTimeoutMs: config.hubClientTimeoutMs,
    documents,
    metrics: metrics?.hub,
    // A revocation rechecks a connection's user as stored now (roles, disabled); an agent
    // connection lasts as long as its gamespace.
    async reloadActor(actor) {
      if (actor.isAgent) {
        const game = await store.db
          .selectFrom('gamespaces')
          .select('id')
          .where('id', '=', actor.id)
          .executeTakeFirst();
        return game ? actor : null;
      }
      const current = await authenticator.actorForSubject(subjectOf(actor));
      // A stored user who is stored no more was deleted (DELETE /api/user/{id}).
      return actor.persisted && !current.persisted ? null : current;
    },
  });
  app.decorate('hub', hub);
  // Added before the WebSocket plugin's own preClose, so clients are told they may reconnect
  // before their sockets are closed.
  app.addHook('preClose', () => hub.close());
  await app.register(fastifyWebsocket, {
    options: { maxPayload: MAX_MESSAGE_BYTES },
    // `ws` closes the connection itself after a protocol error (1009 for a too-large message).
    errorHandler: (error) => app.log.debug({ err: error }, 'hub socket error'),
  });

  let jwks: { keys: object[] } | undefined;
  if (usesEmbeddedIdentity(config)) {
    ({ jwks } = await registerIdentity(app, {
      issuer: authority(config),
      db: store.db,
      apiAudience: config.oidc.audience,
      appName: config.appName,
      accessTokenTtlSeconds: config.oidc.accessTokenTtlSeconds,
      maxPendingSignIns: config.oidc.maxPendingSignIns,
      signInThrottle: limits.signIn,
      clients: [
        {
          clientId: config.oidc.clientId,
          redirectUris: origins.flatMap((o) => [`${o}/oidc`, `${o}/oidc-silent`]),
          postLogoutRedirectUris: origins.map((o) => `${o}/`),
        },
      ],
      logger: app.log,
    }));
  }

  const cookieSecret = new Uint8Array(
    Buffer.from(await sharedSecret(store.db, 'auth.cookieSecret'), 'base64'),
  );
  const authenticator = createAuthenticator({
    db: store.db,
    users,
    cache,
    defaults,
    issuer: authority(config),
    audience: config.oidc.audience,
    jwks,
    rolesClaimPath: config.oidc.rolesClaimPath,
    cookieSecret,
    cookieMinutes: config.mksCookieMinutes,
  });
  registerAuth(app, authenticator, grantRoutes({ tagOfVm: vms.tagFor }));
  registerRequestGuards(app);
  // Multipart bodies (images, ISO uploads) are streamed: each route reads its parts itself. The
  // defaults suit document images (one file, one byte over their limit so that a too-large file
  // is told apart); routes with bigger files pass their own limits.
  await app.register(fastifyMultipart, {
    limits: { fileSize: MAX_IMAGE_BYTES + 1, files: 1, fields: 10, parts: 20 },
  });

  // Before the API's routes, so that the description (`/api/openapi.json`, `/api`) sees them all.
  await registerOpenApi(app, { version: VERSION });
  await app.register(healthRoutes, {
    sources: {
      pendingMigrations: () => store.pendingMigrations(),
      // A read through the cache's own Redis connection: what tickets and locks depend on.
      redis: config.redisUrl ? () => cache.get('health:probe') : null,
      hypervisor: () => driver.ready(),
    },
  });
  if (metrics) await app.register(metricsRoutes, { metrics, token: config.metricsToken });
  await app.register(userRoutes, {
    users,
    listeners,
    authenticator,
    defaults,
    cookieMinutes: config.mksCookieMinutes,
    commit: config.commit,
    version: VERSION,
  });
  await app.register(workspaceRoutes, { workspaces });
  await app.register(challengeRoutes, { challenges: createChallengeService(store.db, workspaces) });
  await app.register(templateRoutes, { templates });
  // Playing (wire reference §4.2, §4.5): launches deploy through the driver; machines are removed
  // through the VM service, which tells the gamespace's group.
  const play = createPlayService(store.db, {
    driver,
    cache,
    publisher,
    listeners,
    vmPublisher,
    deleteMachines: vms.workspaceMachines.gamespaceEnded,
    docsDir,
    stateCache,
  });
  await app.register(gamespaceRoutes, { gamespaces: createGamespaceService(store.db), play });
  await app.register(hubRoutes, { hub, authenticator, cache });
  // Grading (wire reference §4.4) answers GameState and tells the gamespace's group.
  const grading = createGradingService({
    db: store.db,
    dialect: store.dialect,
    publisher,
    gameState: (row) => gameState(row, { db: store.db, driver, docsDir, now: Date.now() }),
  });
  await app.register(gradingRoutes, { grading });
  // The janitor (§4.6): expiry and machine cleanup in the background, one server at a time.
  const janitor = createJanitor({
    db: store.db,
    driver,
    cache,
    log: app.log,
    changed: play.changed,
    schedule: config.janitor,
    ran: metrics?.janitorRan,
  });
  if (config.janitor.enabled) janitor.start();
  await app.register(adminRoutes, { hub, janitor });
  await app.register(vmRoutes, { vms, workspaces });
  await app.register(consoleRoutes, { driver, tickets: consoleTickets, clock });
  // ISO files: uploads into the data folder's isos/, listed for templates to mount.
  const isos = createIsoStore(store.db, {
    dataDir: config.dataDir,
    cache,
    maxBytes: config.uploadMaxBytes,
    freeMarginBytes: config.uploadFreeMarginBytes,
    xorriso: config.xorriso,
    canEdit: (actor, id) => workspaces.canEdit(actor, id),
    workspaceExists: (id) => workspaces.exists(id),
  });
  await app.register(fileRoutes, { isos });
  await app.register(workspaceIsoRoutes, { isos });
  await app.register(documentRoutes, { documents, images });

  app.get('/assets/settings.json', { config: { auth: 'anonymous' } }, async (request, reply) => {
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
  });

  const index = join(config.spaDir, 'index.html');
  const hasSpa = existsSync(index);
  if (hasSpa) {
    await app.register(fastifyStatic, {
      root: config.spaDir,
      wildcard: true,
      index: false,
      redirect: false,
      list: false,
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
  app.get('/', { config: { auth: 'anonymous' } }, (_request, reply) => sendIndex(reply));

  // History fallback: any other GET for a page gets the SPA; API and protocol paths get 404.
  const reserved = /^\/(api|identity|hub|docs|assets|metrics)(\/|$)/;
  app.setNotFoundHandler((request, reply) => {
    const path = routedPath(request);
    if ((request.method === 'GET' || request.method === 'HEAD') && !reserved.test(path)) {
      return sendIndex(reply);
    }
    return reply.code(404).send('');
  });

  const seeded = usesEmbeddedIdentity(config)
    ? await seedFirstRun({
        db: store.db,
        users,
        defaults,
        dataDir: config.dataDir,
        knownPassword: config.seedPassword,
        url: config.publicUrl,
      })
    : null;
  await seedStockTemplates(store.db);
  // Uploads a killed process left half-written.
  for (const root of [join(config.dataDir, 'isos'), docsDir]) await removeStaleStaging(root);

  return {
    app,
    store,
    cache,
    hub,
    driver,
    vms,
    config,
    seeded,
    routes,
    async close() {
      closing = true;
      // New connections are refused from here on (Fastify would only stop listening after its
      // preClose hooks): a load balancer moves on at once, and a hub client told below that it
      // may reconnect does not come back here.
      app.server.close();
      // Requests under way get the grace period to finish; then whatever is still open is cut,
      // WebSockets (consoles) included, so that app.close() below can end.
      const cut = setTimeout(() => {
        app.log.warn('shutdown: grace period over, closing the connections still open');
        app.server.closeAllConnections();
        for (const socket of app.websocketServer.clients) socket.terminate();
      }, config.shutdownGraceMs);
      try {
        await janitor.stop();
        // Hub clients are told they may reconnect (the preClose hook above), then Fastify waits
        // for the requests under way.
        await app.close();
      } finally {
        clearTimeout(cut);
      }
      stopRelay();
      await driver.close();
      await backplane.close();
      await cache.close();
      await store.close();
    },
  };
}
