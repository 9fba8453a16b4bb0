import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { HubMetrics } from './hub/hub';
import { withTimeout } from './http/health';
import type { DriverStatus } from './hypervisor';
import type { PoolStats } from './store/db';

// Prometheus metrics at GET /metrics, only when METRICS_TOKEN is set, and then only to
// `Authorization: Bearer <METRICS_TOKEN>`. Names start with `topoplay_`; Node's process metrics
// (CPU, memory, event-loop lag, GC) come with them. Each server process counts its own requests,
// hub connections and janitor runs: sum them over replicas. The gauges read from the database
// (active gamespaces, running machines) are the same on every replica: take their max.
// Labels take few values: the route label is the route's pattern (`/api/gamespace/:id`), never
// the URL, and requests no route matched share one label.

/** The route label of requests no route matched (pages of the SPA, unknown paths). */
export const UNMATCHED = 'unmatched';
/** How long a gauge read from the database may take before the scrape goes on without it. */
export const COLLECT_TIMEOUT_MS = 2_000;

export interface MetricsSources {
  /** HYPERVISOR, and what its driver reports (how many of its machines are running). */
  driver: { name: string; status(): Promise<Pick<DriverStatus, 'running'>> };
  activeGamespaces(): Promise<number>;
  /** The database pool now; null on SQLite. */
  poolStats(): PoolStats | null;
}

export interface Metrics {
  registry: Registry;
  hub: HubMetrics;
  janitorRan(outcome: 'ok' | 'failed'): void;
}

const HUB_MESSAGE_TYPES: Record<number, string> = {
  1: 'invocation',
  2: 'streamItem',
  3: 'completion',
  4: 'streamInvocation',
  5: 'cancelInvocation',
  6: 'ping',
  7: 'close',
};

/**
 * The metrics of one server (a registry of its own: tests run several in one process), counting
 * the HTTP requests `app` answers from now on.
 */
export function createMetrics(app: FastifyInstance, sources: MetricsSources): Metrics {
  const registry = new Registry();
  const registers = [registry];
  collectDefaultMetrics({ register: registry, prefix: 'topoplay_' });

  const requests = new Counter({
    name: 'topoplay_http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers,
  });
  const latency = new Histogram({
    name: 'topoplay_http_request_duration_seconds',
    help: 'Time from receiving a request to having sent its answer, by method and route pattern',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED;
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
    done();
  });

  const hubConnections = new Gauge({
    name: 'topoplay_hub_connections',
    help: 'Open hub (WebSocket) connections on this process',
    registers,
  });
  const hubAccepted = new Counter({
    name: 'topoplay_hub_connections_total',
    help: 'Hub connections accepted by this process',
    registers,
  });
  const hubReceived = new Counter({
    name: 'topoplay_hub_messages_received_total',
    help: 'Hub messages from clients, by SignalR message type',
    labelNames: ['type'],
    registers,
  });
  const hubPublished = new Counter({
    name: 'topoplay_hub_events_published_total',
    help: 'Hub events published by this process to a channel or to everyone, by event',
    labelNames: ['event'],
    registers,
  });
  const hubSent = new Counter({
    name: 'topoplay_hub_messages_sent_total',
    help: "Hub events written to this process's connections (one per connection reached)",
    registers,
  });
  const janitorRuns = new Counter({
    name: 'topoplay_janitor_runs_total',
    help: 'Background janitor runs on this process, by outcome (ok also when another ran)',
    labelNames: ['outcome'],
    registers,
  });

  /**
   * A gauge's value from the database, or NaN when it cannot be had in time: the scrape still
   * carries every other metric, and no stale value passes for a current one.
   */
  const current = async (read: () => Promise<number>) => {
    try {
      return await withTimeout(read(), COLLECT_TIMEOUT_MS);
    } catch {
      return Number.NaN;
    }
  };
  new Gauge({
    name: 'topoplay_gamespaces_active',
    help: 'Gamespaces started and neither ended nor expired (the same on every replica)',
    registers,
    async collect() {
      this.set(await current(sources.activeGamespaces));
    },
  });
  new Gauge({
    name: 'topoplay_machines_running',
    help: 'Machines running, by hypervisor driver (the same on every replica)',
    labelNames: ['driver'],
    registers,
    async collect() {
      const running = await current(async () => (await sources.driver.status()).running);
      this.set({ driver: sources.driver.name }, running);
    },
  });

  const pool = (name: string, help: string, value: (stats: PoolStats) => number) =>
    new Gauge({
      name: `topoplay_db_pool_${name}`,
      help: `${help} (PostgreSQL; absent on SQLite)`,
      registers,
      collect() {
        const stats = sources.poolStats();
        if (stats) this.set(value(stats));
      },
    });
  if (sources.poolStats()) {
    pool('connections', 'Open database connections, busy or idle', (s) => s.total);
    pool('idle_connections', 'Idle database connections', (s) => s.idle);
    pool('waiting_queries', 'Queries waiting for a database connection', (s) => s.waiting);
    pool('max_connections', 'The most database connections the pool opens', (s) => s.max);
  }

  return {
    registry,
    hub: {
      connected() {
        hubConnections.inc();
        hubAccepted.inc();
      },
      disconnected: () => hubConnections.dec(),
      received: (type) => hubReceived.inc({ type: HUB_MESSAGE_TYPES[type] ?? 'other' }),
      published: (event) => hubPublished.inc({ event }),
      sent: (count) => hubSent.inc(count),
    },
    janitorRan: (outcome) => janitorRuns.inc({ outcome }),
  };
}

const digest = (text: string) => createHash('sha256').update(text).digest();

/**
 * GET /metrics for Prometheus, to the bearer of `token` only (401 to anyone else). The server
 * authenticates nothing here (`anonymous`): the token is the route's own credential, compared in
 * constant time. Not in the OpenAPI document, which describes the API, not the operations.
 */
export async function metricsRoutes(
  app: FastifyInstance,
  options: { metrics: Metrics; token: string },
): Promise<void> {
  const { registry } = options.metrics;
  // Digests have one length whatever was sent, which timingSafeEqual requires.
  const expected = digest(options.token);
  app.get('/metrics', { config: { auth: 'anonymous' } }, async (request, reply) => {
    const bearer = /^bearer +(\S+) *$/i.exec(request.headers.authorization ?? '');
    if (!bearer || !timingSafeEqual(digest(bearer[1] ?? ''), expected)) {
      reply.header('WWW-Authenticate', 'Bearer');
      return reply.code(401).send('');
    }
    reply.header('Cache-Control', 'no-store');
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}
