import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../server/config';
import { newId } from '../../../server/core/ids';
import { testEngines } from '../databases';
import { startTestServer, type TestServer } from '../harness';
import { apiKey, connect, type Client } from '../hubClients';

// GET /metrics (server/metrics.ts): off without METRICS_TOKEN, then only for its bearer; the
// Prometheus text format with topoplay_ names, route patterns as labels and the counts the
// issue lists (requests, hub, gamespaces, machines, janitor, database pool, event loop).

const TOKEN = 'metrics-test-token-0123456789';

/** The value of one sample (`name{labels} value`) in a Prometheus text answer. */
function sample(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('METRICS_TOKEN', () => {
  it('takes 16 characters or more without spaces, and never repeats a refused one', () => {
    expect(loadConfig({ METRICS_TOKEN: TOKEN }).metricsToken).toBe(TOKEN);
    expect(loadConfig({}).metricsToken).toBe('');
    for (const token of ['fifteen-chars-x', 'sixteen chars ok']) {
      expect(() => loadConfig({ METRICS_TOKEN: token })).toThrow(
        new ConfigError([
          'METRICS_TOKEN must be at least 16 characters, without spaces (not repeated here: it may hold a password)',
        ]),
      );
    }
  });
});

describe('metrics without METRICS_TOKEN', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it('answers 404 at /metrics, as for any unknown path there, whatever the credential', async () => {
    for (const headers of [{}, { authorization: `Bearer ${TOKEN}` }]) {
      const res = await fetch(`${server.url}/metrics`, { headers });
      expect(res.status).toBe(404);
      expect(await res.text()).toBe('');
    }
    expect(server.app.routes.some((r) => r.url === '/metrics')).toBe(false);
  });
});

describe.each(testEngines())('metrics with METRICS_TOKEN on %s', (engine) => {
  let server: TestServer;
  const clients: Client[] = [];
  let player: Record<string, string>;
  let creator: Record<string, string>;

  const scrape = async (authorization = `Bearer ${TOKEN}`) =>
    fetch(`${server.url}/metrics`, { headers: { authorization } });
  const metrics = async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    return res.text();
  };
  const api = async (
    headers: Record<string, string>,
    method: string,
    path: string,
    body?: object,
  ) =>
    fetch(`${server.url}/api${path}`, {
      method,
      headers: { ...headers, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  beforeAll(async () => {
    server = await startTestServer({
      engine,
      env: {
        METRICS_TOKEN: TOKEN,
        SIM_SPEED: '0',
        // The first background run at once: its count is what the test reads.
        JANITOR_ENABLED: 'true',
        JANITOR_START_SECONDS: '0',
        JANITOR_INTERVAL_SECONDS: '3600',
      },
    });
    player = apiKey(await server.apiKeyFor('player'));
    creator = apiKey(await server.apiKeyFor('creator'));
  });
  afterAll(async () => {
    for (const client of clients) await client.stop();
    await server?.close();
  });

  it('answers only the bearer of the token, with 401 to anyone else', async () => {
    for (const authorization of ['', 'Bearer wrong-token-0123456789', TOKEN, `Basic ${TOKEN}`]) {
      const res = await scrape(authorization);
      expect(res.status, authorization).toBe(401);
      expect(await res.text()).toBe('');
    }
    // The scheme's name is case-insensitive (RFC 9110).
    expect((await scrape(`bearer ${TOKEN}`)).status).toBe(200);
    const res = await scrape();
    expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it("includes Node's process metrics, event-loop lag among them, under topoplay_", async () => {
    const text = await metrics();
    for (const name of [
      'topoplay_process_cpu_seconds_total',
      'topoplay_process_resident_memory_bytes',
      'topoplay_nodejs_eventloop_lag_seconds',
      'topoplay_nodejs_eventloop_lag_p99_seconds',
    ]) {
      expect(sample(text, name), name).toBeGreaterThanOrEqual(0);
    }
    const names = text
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
      .map((l) => l.split(/[{ ]/)[0]);
    expect(names.filter((n) => !n?.startsWith('topoplay_'))).toEqual([]);
  });

  it('counts requests by route pattern, never by URL', async () => {
    const id = newId();
    for (let i = 0; i < 3; i++) await api(player, 'GET', `/gamespace/${id}`);
    const page = `/no-such-page-${newId()}`;
    await fetch(`${server.url}${page}`);
    const text = await metrics();
    const labels = '{method="GET",route="/api/gamespace/:id",status="400"}';
    expect(sample(text, 'topoplay_http_requests_total', labels)).toBe(3);
    expect(
      sample(
        text,
        'topoplay_http_request_duration_seconds_count',
        '{method="GET",route="/api/gamespace/:id"}',
      ),
    ).toBe(3);
    expect(
      sample(text, 'topoplay_http_requests_total', '{method="GET",route="unmatched",status="503"}'),
    ).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(id);
    expect(text).not.toContain(page);
  });

  it('counts hub connections and the messages they receive and are sent', async () => {
    // Two editors of one workspace: presence is announced on the workspace's channel.
    const ws = (await (await api(creator, 'POST', '/workspace', { name: 'Counted' })).json()) as {
      id: string;
    };
    const before = await metrics();
    const first = await connect(server.url, creator);
    clients.push(first);
    await first.connection.invoke('Listen', ws.id);
    const second = await connect(server.url, creator);
    clients.push(second);
    await second.connection.invoke('Listen', ws.id);
    // The second one's arrival is announced to the first.
    await first.next((e) => e.name === 'PresenceEvent');
    const text = await metrics();
    const delta = (name: string, labels = '') =>
      (sample(text, name, labels) ?? 0) - (sample(before, name, labels) ?? 0);
    expect(sample(text, 'topoplay_hub_connections')).toBe(2);
    expect(delta('topoplay_hub_connections_total')).toBe(2);
    expect(delta('topoplay_hub_messages_received_total', '{type="invocation"}')).toBe(2);
    expect(delta('topoplay_hub_events_published_total', '{event="PresenceEvent"}')).toBe(2);
    expect(delta('topoplay_hub_messages_sent_total')).toBe(1);

    await second.stop();
    await expect.poll(async () => sample(await metrics(), 'topoplay_hub_connections')).toBe(1);
  });

  it('shows the active gamespaces and the running machines by driver', async () => {
    const ws = (await (await api(creator, 'POST', '/workspace', { name: 'Metered' })).json()) as {
      id: string;
    };
    await api(creator, 'PUT', '/workspace', { id: ws.id, name: 'Metered', audience: 'everyone' });
    const stock = (await (await api(creator, 'GET', '/templates?term=linux-server')).json()) as {
      id: string;
      name: string;
    }[];
    const parent = stock.find((t) => t.name === 'linux-server');
    expect(parent).toBeDefined();
    await api(creator, 'POST', '/template', { templateId: parent?.id, workspaceId: ws.id });

    const before = await metrics();
    expect(sample(before, 'topoplay_gamespaces_active')).toBe(0);
    const running = sample(before, 'topoplay_machines_running', '{driver="sim"}') ?? -1;
    expect(running).toBeGreaterThanOrEqual(0);

    const launch = await api(player, 'POST', '/gamespace', {
      resourceId: ws.id,
      startGamespace: true,
    });
    expect(launch.status).toBe(200);
    const after = await metrics();
    expect(sample(after, 'topoplay_gamespaces_active')).toBe(1);
    expect(sample(after, 'topoplay_machines_running', '{driver="sim"}')).toBe(running + 1);
  });

  it('counts janitor runs', async () => {
    await expect
      .poll(async () => sample(await metrics(), 'topoplay_janitor_runs_total', '{outcome="ok"}'))
      .toBeGreaterThanOrEqual(1);
  });

  it(`shows the database pool ${engine === 'postgres' ? 'of PostgreSQL' : 'only on PostgreSQL'}`, async () => {
    const text = await metrics();
    if (engine === 'sqlite') {
      expect(text).not.toContain('topoplay_db_pool_');
      return;
    }
    expect(sample(text, 'topoplay_db_pool_max_connections')).toBe(10);
    expect(sample(text, 'topoplay_db_pool_connections')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'topoplay_db_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    // The scrape's own queries may be waiting for a connection being opened.
    expect(sample(text, 'topoplay_db_pool_waiting_queries')).toBeGreaterThanOrEqual(0);
  });
});
