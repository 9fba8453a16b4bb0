import { fork, execSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { BATCHED_PRESENCE_QUERY } from '../../server/hub/presence';
import { invocationFrame, RECORD_SEPARATOR } from '../../server/hub/protocol';
import { freePort, nextMessage, percentile } from './processes';

// Hub benchmark: `npm run bench:hub` (takes about five minutes): joining one channel, and
// fan-out in it.
//
// For each client count N, two server processes side by side, ours and a bare `ws` server for
// comparison, each with its own client process of N lightweight raw WebSocket clients, all
// listening in one channel. Each client gets its own ticket (minted over HTTP with an API key),
// connects and does the JSON handshake; once all have, they invoke Listen, in waves of
// LISTEN_WAVE. The join is timed in both phases: connecting, and listening until every Listen has
// its completion; each phase goes in steps (JOIN_STEP clients) alternating between the two
// servers, so that other load on the machine weighs on both alike. Hub clients ask for presence
// in the batched form (`?presence=batched`, as the SPA does) and so get who is present before
// their completion; with BENCH_PRESENCE=reference they speak the reference's per-member presence
// instead (they never greet). Hub clients are one user, the administrator, or with BENCH_USERS
// that many users in turn (administrators too, who may listen anywhere). The bare server
// answers Listen with a completion and nothing else. Then one VmEvent is published to the
// channel ROUNDS times through the real publishing path (`app.hub.toGroup(channel).send(...)`,
// triggered by a bench-only HTTP route); each round is timed in the client process from the
// trigger until every client has the event. The bare server broadcasts the same bytes to every
// socket with ws.send. Rounds alternate between the two servers so that other load on the
// machine weighs on both alike: compare the ratios more than the absolute figures.
// Memory per idle connection is each server's growth after connecting, after GC: the heap
// figure is the reliable one (RSS keeps what the joins' presence traffic used, or shrinks).
//
// Environment: BENCH_CLIENTS (default 100,1000,10000), BENCH_ROUNDS (20; 0 measures the join
// only: `BENCH_CLIENTS=10000 BENCH_ROUNDS=0 npm run bench:hub`, or 1000 for a quick run),
// BENCH_PRESENCE (batched | reference), BENCH_USERS (1).
// 10,000 clients need more than 10,000 file descriptors in each process: check `ulimit -n`
// and raise it (`ulimit -n 20000`) before running.

const SELF = fileURLToPath(import.meta.url);
const CHANNEL = 'b0000000000000000000000000000001';
const WARMUP_ROUNDS = 3;
const CONNECT_CONCURRENCY = 128;
const LISTEN_WAVE = 250;
const JOIN_STEP = 1_000;
const EVENT_MARKER = '{"type":1,"target":"VmEvent"';

type Impl = 'hub' | 'bare';
type PresenceForm = 'batched' | 'reference';

interface Memory {
  heapUsed: number;
  rss: number;
}

type ServerMessage = { ready: true; url: string; apiKeys: string[] } | { memory: Memory };

type ClientCommand =
  | {
      cmd: 'connect';
      url: string;
      n: number;
      /** Client i connects as the user of key i modulo their number. */
      apiKeys: string[];
      impl: Impl;
      presence: PresenceForm;
    }
  | { cmd: 'listen'; n: number }
  | { cmd: 'round'; url: string; round: number };

type ClientMessage =
  { connected: number; seconds: number } | { listened: number; seconds: number } | { ms: number };

/** A VmEvent of a realistic size; the round number tells clients which publish it is. */
const eventPayload = (round: number) => ({
  action: 'VM.CHANGE',
  actor: { id: '9fd3e1c2a7b84c0e9d5f6a7b8c9d0e1f', name: 'Gamespace Agent' },
  model: {
    id: '6c1f2e3d4c5b6a79887766554433221a',
    name: 'kali-desktop#b0000000000000000000000000000001',
    host: 'pve-node-02',
    path: '/vms/kali-desktop',
    reference: 'kali-desktop',
    diskPath: '',
    stats: '',
    status: 'deployed',
    state: 1,
    question: null,
    task: null,
    isolationId: CHANNEL,
    round,
  },
});

// ---------------------------------------------------------------------------------------------
// Server processes

async function hubServer(): Promise<void> {
  // Imported here so that the other processes do not load the whole server.
  const { buildApp } = await import('../../server/app');
  const { loadConfig } = await import('../../server/config');
  const port = Number(process.argv[4]);
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-bench-'));
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    TOPOPLAY_URL: `http://127.0.0.1:${port}`,
    TOPOPLAY_DATA: dataDir,
    TOPOPLAY_SPA: join(dataDir, 'no-spa'),
    TOPOPLAY_SEED_PASSWORD: 'bench-password',
    DATABASE_URL: join(dataDir, 'bench.db'),
    LOG_LEVEL: 'error',
    // Every simulated client comes from 127.0.0.1: one address standing for a thousand people.
    RATE_LIMIT_ANONYMOUS: '0',
    // Thousands of loopback connections: no cap per client address.
    MAX_CLIENT_CONNECTIONS: '0',
  });
  const app = await buildApp(config, { logger: false });
  // Bench-only trigger: publishes through the service route code uses.
  app.app.post<{ Querystring: { round: string } }>(
    '/bench/publish',
    { config: { auth: 'anonymous' } },
    async (request) => {
      app.hub.toGroup(CHANNEL).send('VmEvent', eventPayload(Number(request.query.round)));
      return true;
    },
  );
  await app.app.listen({ port, host: '127.0.0.1' });
  // The administrator, and as many more administrators (who may listen anywhere) as asked for.
  const users = Number(process.argv[5]);
  const admin = await app.store.db
    .selectFrom('users')
    .selectAll()
    .where('name', '=', 'Administrator')
    .executeTakeFirstOrThrow();
  const apiKeys: string[] = [];
  await app.store.db.transaction().execute(async (tx) => {
    for (let i = 0; i < users; i++) {
      const userId = i === 0 ? admin.id : newId();
      if (i > 0) {
        await tx
          .insertInto('users')
          .values({ ...admin, id: userId, name: `Bench User ${i}` })
          .execute();
      }
      const apiKey = newApiKey();
      apiKeys.push(apiKey);
      await tx
        .insertInto('apiKeys')
        .values({ id: newId(), userId, name: 'bench', hash: sha256Hex(apiKey), whenCreated: 0 })
        .execute();
    }
  });
  serve({ ready: true, url: `http://127.0.0.1:${port}`, apiKeys }, async () => {
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
}

async function bareServer(): Promise<void> {
  const port = Number(process.argv[4]);
  const http = createServer((req, res) => {
    const round = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('round'));
    const frame = Buffer.from(invocationFrame('VmEvent', eventPayload(round)));
    for (const client of wss.clients) client.send(frame, { binary: false });
    res.end('true');
  });
  const wss = new WebSocketServer({ server: http, path: '/hub' });
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      // Just enough protocol for the same clients: the handshake and Listen's completion.
      for (const record of data.toString().split(RECORD_SEPARATOR)) {
        if (record.includes('"protocol"')) socket.send(`{}${RECORD_SEPARATOR}`);
        else if (record.includes('"invocationId"')) {
          const { invocationId } = JSON.parse(record) as { invocationId: string };
          socket.send(`{"type":3,"invocationId":"${invocationId}"}${RECORD_SEPARATOR}`);
        }
      }
    });
  });
  await new Promise<void>((resolve) => http.listen(port, '127.0.0.1', resolve));
  serve({ ready: true, url: `http://127.0.0.1:${port}`, apiKeys: [] }, async () => {
    for (const client of wss.clients) client.terminate();
    http.close();
  });
}

/** Answers the orchestrator: memory after GC on request; exits on 'stop'. */
function serve(ready: ServerMessage, stop: () => Promise<void>) {
  process.send?.(ready);
  process.on('message', async (message: string) => {
    if (message === 'memory') {
      const gc = (globalThis as { gc?: () => void }).gc;
      for (let i = 0; i < 4; i++) {
        gc?.();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const { heapUsed, rss } = process.memoryUsage();
      process.send?.({ memory: { heapUsed, rss } } satisfies ServerMessage);
    } else if (message === 'stop') {
      await stop();
      process.exit(0);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Client process

async function clients(): Promise<void> {
  const sockets: WebSocket[] = [];
  const waiters = new Map<WebSocket, { marker: string; resolve: () => void }>();
  let round = -1;
  let received = 0;
  let onComplete: (() => void) | null = null;

  function onMessage(this: WebSocket, data: Buffer) {
    const waiter = waiters.get(this);
    if (waiter && data.includes(waiter.marker)) {
      waiters.delete(this);
      waiter.resolve();
    }
    // Presence of the other clients is skipped with a native search, without decoding.
    if (!data.includes(EVENT_MARKER)) return;
    for (const record of data.toString().split(RECORD_SEPARATOR)) {
      if (!record.startsWith(EVENT_MARKER)) continue;
      const message = JSON.parse(record) as { arguments: [{ model: { round: number } }] };
      if (message.arguments[0].model.round === round && ++received === sockets.length) {
        onComplete?.();
      }
    }
  }

  const waitFor = (socket: WebSocket, marker: string) =>
    new Promise<void>((resolve) => waiters.set(socket, { marker, resolve }));

  /** A ticket (for the hub), the WebSocket, and the handshake. */
  async function open(
    url: string,
    apiKey: string,
    impl: Impl,
    presence: PresenceForm,
  ): Promise<WebSocket> {
    let query = '';
    if (impl === 'hub') {
      const res = await fetch(`${url}/api/user/ticket`, { headers: { 'x-api-key': apiKey } });
      query = `?access_token=${((await res.json()) as { ticket: string }).ticket}`;
      if (presence === 'batched') {
        query += `&${BATCHED_PRESENCE_QUERY.name}=${BATCHED_PRESENCE_QUERY.value}`;
      }
    }
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/hub${query}`, {
      perMessageDeflate: false,
      skipUTF8Validation: true,
    });
    socket.on('message', onMessage);
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.once('open', () => resolve());
    });
    const handshaken = waitFor(socket, `{}${RECORD_SEPARATOR}`);
    socket.send(`{"protocol":"json","version":1}${RECORD_SEPARATOR}`);
    await handshaken;
    return socket;
  }

  // Many clients joining at once, as when a class starts: a wave's Listens are in flight
  // together.
  /** Clients opened so far, whose users take turns. */
  let opened = 0;
  let listened = 0;
  /** The next `n` clients Listen. */
  async function listenNext(n: number) {
    const listen = `{"type":1,"invocationId":"1","target":"Listen","arguments":["${CHANNEL}"]}${RECORD_SEPARATOR}`;
    const end = Math.min(sockets.length, listened + n);
    for (; listened < end; listened += LISTEN_WAVE) {
      const wave = sockets.slice(listened, Math.min(end, listened + LISTEN_WAVE));
      const joined = wave.map((socket) => waitFor(socket, '"type":3'));
      for (const socket of wave) socket.send(listen);
      await Promise.all(joined);
    }
  }

  // The hub drops clients silent for 30 s; real clients ping every 15 s, each on its own
  // schedule. Each socket here pings 10 s after its previous ping (by the clock, so that a busy
  // event loop delays pings but never skips them).
  const ping = `{"type":6}${RECORD_SEPARATOR}`;
  const pinged: number[] = [];
  setInterval(() => {
    const due = Date.now() - 10_000;
    for (let i = 0; i < sockets.length; i++) {
      if ((pinged[i] ??= Date.now()) < due) {
        pinged[i] = Date.now();
        sockets[i]!.send(ping);
      }
    }
  }, 100).unref();

  process.on('message', async (command: ClientCommand) => {
    if (command.cmd === 'connect') {
      const start = performance.now();
      let next = 0;
      const worker = async () => {
        while (next < command.n) {
          next++;
          const key = command.apiKeys[opened++ % command.apiKeys.length] ?? '';
          sockets.push(await open(command.url, key, command.impl, command.presence));
        }
      };
      await Promise.all([...Array(Math.min(CONNECT_CONCURRENCY, command.n))].map(worker));
      const seconds = (performance.now() - start) / 1000;
      process.send?.({ connected: sockets.length, seconds } satisfies ClientMessage);
    } else if (command.cmd === 'listen') {
      const start = performance.now();
      await listenNext(command.n);
      const seconds = (performance.now() - start) / 1000;
      process.send?.({ listened, seconds } satisfies ClientMessage);
    } else {
      // Joining left garbage behind (the presence messages): collect it before timing.
      if (command.round === 0) (globalThis as { gc?: () => void }).gc?.();
      round = command.round;
      received = 0;
      const done = new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`round ${round}: ${received} of ${sockets.length} received`)),
          60_000,
        );
        onComplete = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      const start = performance.now();
      await fetch(`${command.url}/bench/publish?round=${round}`, { method: 'POST' });
      await done;
      process.send?.({ ms: performance.now() - start } satisfies ClientMessage);
    }
  });
}

// ---------------------------------------------------------------------------------------------
// Orchestrator

function start(args: string[], gc = false): ChildProcess {
  return fork(SELF, args, { execArgv: [...process.execArgv, ...(gc ? ['--expose-gc'] : [])] });
}

interface Result {
  impl: Impl;
  samples: number[];
  heapPerConnection: number;
  rssPerConnection: number;
  connectSeconds: number;
  listenSeconds: number;
}

interface Setup {
  impl: Impl;
  server: ChildProcess;
  client: ChildProcess;
  url: string;
  before: Memory;
  after?: Memory;
  connectSeconds: number;
  listenSeconds: number;
}

async function memoryOf(server: ChildProcess): Promise<Memory> {
  server.send('memory');
  return (await nextMessage<{ memory: Memory }>(server)).memory;
}

/**
 * Both servers run side by side and the rounds alternate between them, so that load from other
 * programs on the machine weighs on both alike.
 */
interface Options {
  rounds: number;
  presence: PresenceForm;
  /** How many users the hub clients are, in turn (at most N). */
  users: number;
}

async function measure(n: number, { rounds, presence, users }: Options): Promise<Result[]> {
  const setups: Setup[] = [];
  try {
    const apiKeys: Record<Impl, string[]> = { bare: [], hub: [] };
    for (const impl of ['bare', 'hub'] as const) {
      const args = ['server', impl, String(await freePort()), String(Math.min(users, n))];
      const server = start(args, true);
      const ready = await nextMessage<Extract<ServerMessage, { ready: true }>>(server);
      const before = await memoryOf(server);
      const client = start(['clients'], true);
      apiKeys[impl] = ready.apiKeys;
      setups.push({
        impl,
        server,
        client,
        url: ready.url,
        before,
        connectSeconds: 0,
        listenSeconds: 0,
      });
    }
    // Both servers take JOIN_STEP clients in turn, the first in turn changing every step.
    const steps = Math.ceil(n / JOIN_STEP);
    for (let step = 0; step < steps; step++) {
      const count = Math.min(JOIN_STEP, n - step * JOIN_STEP);
      for (const setup of step % 2 ? [...setups].reverse() : setups) {
        setup.client.send({
          cmd: 'connect',
          url: setup.url,
          n: count,
          apiKeys: apiKeys[setup.impl],
          impl: setup.impl,
          presence,
        } satisfies ClientCommand);
        setup.connectSeconds += (
          await nextMessage<{ connected: number; seconds: number }>(setup.client)
        ).seconds;
      }
    }
    for (let step = 0; step < steps; step++) {
      for (const setup of step % 2 ? [...setups].reverse() : setups) {
        setup.client.send({ cmd: 'listen', n: JOIN_STEP } satisfies ClientCommand);
        setup.listenSeconds += (
          await nextMessage<{ listened: number; seconds: number }>(setup.client)
        ).seconds;
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    for (const setup of setups) setup.after = await memoryOf(setup.server);

    const samples: Record<Impl, number[]> = { bare: [], hub: [] };
    // No rounds asked for, no warm-up either: the join alone is measured.
    for (let r = 0; rounds > 0 && r < WARMUP_ROUNDS + rounds; r++) {
      const order = r % 2 ? [...setups].reverse() : setups;
      for (const setup of order) {
        setup.client.send({ cmd: 'round', url: setup.url, round: r } satisfies ClientCommand);
        const { ms } = await nextMessage<{ ms: number }>(setup.client);
        if (r >= WARMUP_ROUNDS) samples[setup.impl].push(ms);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    return setups.map((setup) => ({
      impl: setup.impl,
      samples: samples[setup.impl],
      heapPerConnection: (setup.after!.heapUsed - setup.before.heapUsed) / n,
      rssPerConnection: (setup.after!.rss - setup.before.rss) / n,
      connectSeconds: setup.connectSeconds,
      listenSeconds: setup.listenSeconds,
    }));
  } finally {
    for (const { client, server } of setups) {
      client.kill();
      server.send('stop');
      await new Promise((resolve) => server.once('exit', resolve));
    }
  }
}

/** One event to n clients in one channel, `rounds` publishes: p95 of the hub and of bare ws. */
export async function hubFanOut(
  n: number,
  rounds: number,
): Promise<{ p95: number; bareP95: number }> {
  const results = await measure(n, { rounds, presence: 'batched', users: 1 });
  const p95 = (impl: Impl) =>
    percentile(
      [...results.find((r) => r.impl === impl)!.samples].sort((a, b) => a - b),
      95,
    );
  return { p95: p95('hub'), bareP95: p95('bare') };
}

async function orchestrate(): Promise<void> {
  const sizes = (process.env.BENCH_CLIENTS || '100,1000,10000').split(',').map(Number);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 20);
  const presence: PresenceForm =
    process.env.BENCH_PRESENCE === 'reference' ? 'reference' : 'batched';
  const users = Math.max(1, Number(process.env.BENCH_USERS || 1));
  const limit = Number(execSync('ulimit -n', { shell: '/bin/sh' }).toString().trim());
  const needed = Math.max(...sizes) + 500;
  if (Number.isFinite(limit) && limit < needed) {
    console.error(`ulimit -n is ${limit}; ${needed} needed: run \`ulimit -n ${needed}\` first.`);
    process.exit(1);
  }
  const joinRows: string[] = [];
  const fanOutRows: string[] = [];
  const ms = (v: number) => v.toFixed(1);
  const kb = (v: number) => (v / 1024).toFixed(1);
  const s = (v: number) => v.toFixed(2);
  const vs = (v: number, b: number) => `${(v / b).toFixed(2)}x`;
  const label = (impl: Impl) => (impl === 'hub' ? 'Topoplay hub' : 'bare ws');
  for (const n of sizes) {
    const results = await measure(n, { rounds, presence, users });
    const bare = results.find((r) => r.impl === 'bare')!;
    const joinOf = (r: Result) => r.connectSeconds + r.listenSeconds;
    for (const r of results) {
      joinRows.push(
        `| ${n} | ${label(r.impl)} | ${s(r.connectSeconds)} | ${s(r.listenSeconds)} | ${s(joinOf(r))} | ${vs(joinOf(r), joinOf(bare))} | ${vs(r.listenSeconds, bare.listenSeconds)} | ${kb(r.heapPerConnection)} | ${kb(r.rssPerConnection)} |`,
      );
    }
    if (rounds > 0) {
      const stats = results.map((r) => {
        const sorted = [...r.samples].sort((a, b) => a - b);
        return {
          ...r,
          p50: percentile(sorted, 50),
          p95: percentile(sorted, 95),
          max: sorted.at(-1)!,
        };
      });
      const bareStats = stats.find((r) => r.impl === 'bare')!;
      for (const r of stats) {
        fanOutRows.push(
          `| ${n} | ${label(r.impl)} | ${ms(r.p50)} | ${ms(r.p95)} | ${ms(r.max)} | ${vs(r.p50, bareStats.p50)} | ${vs(r.p95, bareStats.p95)} |`,
        );
      }
    }
    console.error(`done: ${n} clients`);
  }
  const load = execSync('cat /proc/loadavg', { shell: '/bin/sh' }).toString().split(' ')[0];
  const lines = [
    `Join: N clients connect (the hub's with a ticket each) and handshake, then Listen on one channel in waves of ${LISTEN_WAVE}, ${JOIN_STEP} at a time alternating between the two servers; hub clients in the ${presence} presence form, as ${users === 1 ? 'one user' : `up to ${users} users in turn`}. Seconds connecting, then listening until each Listen's completion (summed over the steps). Memory: each server's growth per idle connection. Load average at the end: ${load}.`,
    '',
    '| clients | server | connect s | listen s | join s | join vs bare | listen vs bare | heap KB/conn | RSS KB/conn |',
    '|---:|---|---:|---:|---:|---:|---:|---:|---:|',
    ...joinRows,
  ];
  if (rounds > 0) {
    lines.push(
      '',
      `Fan-out: one event to N clients in one channel, ${rounds} publishes per server (after ${WARMUP_ROUNDS} warm-up), alternating between the two servers; time from the publish request until every client has the event.`,
      '',
      '| clients | server | p50 ms | p95 ms | max ms | p50 vs bare | p95 vs bare |',
      '|---:|---|---:|---:|---:|---:|---:|',
      ...fanOutRows,
    );
  }
  console.log(lines.join('\n'));
}

const role = process.argv[2];
// A child ends with the orchestrator, even when the orchestrator fails.
process.on('disconnect', () => process.exit(1));
if (role === 'server') await (process.argv[3] === 'hub' ? hubServer() : bareServer());
else if (role === 'clients') await clients();
// The orchestrator runs only when this file is the program (bench:api imports it).
else if (process.argv[1] === SELF) await orchestrate();
