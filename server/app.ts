import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { realClock, type Clock } from './clock';
import type { Config } from './config';
import type { Cache } from './core/cache';
import type { SeedResult } from './plugins/seed';
import type { VmService } from './core/vms';
import { ANONYMOUS_BODY_LIMIT } from './http/body';
import { serverWithLimits } from './http/connections';
import { lazySerializers } from './http/lazySerializers';
import { keepAjvHeaderNames, lazyValidators } from './http/lazyValidators';
import { markDocumentationAnonymous } from './http/openapi';
import type { Hub } from './hub/hub';
import type { HypervisorDriver } from './hypervisor';
import { loggerOptions, requestId } from './logging';
import { authPlugin } from './plugins/auth';
import { cachePlugin } from './plugins/cache';
import { gameEventsPlugin } from './plugins/gameEvents';
import { healthPlugin } from './plugins/health';
import { httpPlugin } from './plugins/http';
import { hubPlugin } from './plugins/hub';
import { hypervisorPlugin } from './plugins/hypervisor';
import { identityPlugin } from './plugins/identity';
import { janitorPlugin } from './plugins/janitor';
import { metricsPlugin } from './plugins/metrics';
import { multipartPlugin } from './plugins/multipart';
import { openApiPlugin } from './plugins/openapi';
import { poolsPlugin } from './plugins/pools';
import { repositoriesPlugin } from './plugins/repositories';
import { routesPlugin } from './plugins/routes';
import { seedPlugin } from './plugins/seed';
import { servicesPlugin } from './plugins/services';
import { settingsPlugin } from './plugins/settings';
import { spaPlugin } from './plugins/spa';
import { storePlugin } from './plugins/store';
import type { Store } from './store/db';

// The server as a list of plugins (server/plugins/), each decorating the instance with what it
// makes and declaring what it needs. They load in this order, which is also the order of the
// hooks every request goes through; each closes what it opened in the reverse order.

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
  /**
   * The server's time: every core service, the sim driver's tasks, the console's checks, the
   * janitor's runs and a launch's wait for its machines run on it; tests move time on by hand.
   */
  clock?: Clock;
}

export async function buildApp(config: Config, options: BuildOptions = {}): Promise<App> {
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
    // Fastify gives a plugin 10 s by default. The qemu driver's may need more: on a host whose
    // KVM opens but runs no guest, its two accelerator probes take 8 s each before it settles on
    // software emulation, and a first start builds the tiny stock image from Debian's packages.
    pluginTimeout: 120_000,
    // Response serializers are built on a route's first answer, request validators on the
    // first request that needs them, rather than all at start.
    schemaController: {
      compilersFactory: { buildSerializer: lazySerializers(), buildValidator: lazyValidators() },
    },
    serverFactory: serverWithLimits({
      headersTimeoutMs: config.http.headersTimeoutMs,
      // Behind a reverse proxy every connection comes from the proxy.
      maxConnectionsPerClient: config.trustProxy ? 0 : config.http.maxConnectionsPerClient,
    }),
  });
  keepAjvHeaderNames(app);
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

  try {
    await app.register(settingsPlugin, { config, clock: options.clock ?? realClock });
    await app.register(storePlugin);
    await app.register(repositoriesPlugin);
    await app.register(gameEventsPlugin);
    await app.register(cachePlugin);
    await app.register(httpPlugin);
    await app.register(hypervisorPlugin);
    await app.register(metricsPlugin);
    await app.register(poolsPlugin);
    await app.register(servicesPlugin);
    await app.register(hubPlugin);
    await app.register(identityPlugin);
    await app.register(authPlugin);
    await app.register(multipartPlugin);
    await app.register(janitorPlugin);
    await app.register(openApiPlugin, { version: VERSION });
    await app.register(healthPlugin);
    await app.register(routesPlugin, { version: VERSION });
    await app.register(spaPlugin);
    await app.register(seedPlugin);
  } catch (error) {
    // What the plugins loaded so far opened (the database, Redis, the driver) is closed again.
    await app.close().catch(() => {});
    throw error;
  }

  return {
    app,
    store: app.store,
    cache: app.cache,
    hub: app.hub,
    driver: app.driver,
    vms: app.services.vms,
    config,
    seeded: app.seeded,
    routes,
    async close() {
      closing = true;
      // New connections are refused from here on (Fastify would only stop listening after its
      // preClose hooks): a load balancer moves on at once, and a hub client told below that it
      // may reconnect does not come back here.
      app.server.close();
      // Requests under way get the grace period to finish; then whatever is still open is cut,
      // WebSockets (consoles) included, so that the requests' drain below can end.
      const cut = setTimeout(() => {
        app.log.warn('shutdown: grace period over, closing the connections still open');
        app.server.closeAllConnections();
        for (const socket of app.websocketServer.clients) socket.terminate();
      }, config.shutdownGraceMs);
      // The server's own close (Fastify's first onClose hook) ends once the requests are done;
      // the plugins' own resources close after it, in the reverse order of their loading.
      app.server.once('close', () => clearTimeout(cut));
      try {
        await app.janitor.stop();
        // Hub clients are told they may reconnect (the hub plugin's preClose), then Fastify waits
        // for the requests under way, then every plugin closes what it opened: the driver
        // events' relay, the driver, the backplane, the cache, and the store last.
        await app.close();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
