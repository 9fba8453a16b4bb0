import { loadavg } from 'node:os';
import { signIn } from '../server/oidc';
import { SEED_PASSWORD, seconds, startBench, type PlayerRun, type Snapshot } from './launch';
import { checkClaims } from './poolClaims';
import { percentile } from './processes';

// Warm pools under a synchronized start: `npm run bench:pool` (about four minutes), with
// REDIS_URL and TEST_DATABASE_URL set. The processes are bench:launch's (tests/bench/launch.ts):
// two server processes sharing one PostgreSQL database and Redis, as behind a load balancer,
// BENCH_PLAYERS (100) players signed in and registered, the author's published lab (two
// machines), player i launching through server i % 2. The sim driver runs at BENCH_SIM_SPEED
// (0.1): ten times slower than its own task times, a deploy 30 s, about what a real lab's cold
// machines take to be usable (Debian on qemu: 48 s, docs/performance.md). Then the deploy, which
// costs the servers nothing, outlasts the servers' own work for the start, and the figures tell
// the two apart. At the sim's own speed (1, a deploy 3 s) the deploys end, and their events
// arrive, while a loaded machine's servers are still answering the start.
//
// Every player launches at once, in rounds that alternate so that a machine's load drifting
// during the run weighs on both alike (cold, pooled, pooled, cold for BENCH_ROUNDS=2):
// - cold: no pool (its size set to 0 and its sets gone);
// - pooled: an administrator sizes the workspace's pool to BENCH_POOL sets (50 by default; at
//   most MAX_POOL_SIZE, src/domain/pools.ts); the bench waits until the pool view says they are all ready and the
//   database has their machines running; the launches claim them through both servers, and
//   those that find none ready deploy as without a pool.
// A player's time runs from the common start until its machines all run: the answer, or the
// gamespace read every 250 ms until they run (a cold launch answers with them deploying). After
// a round every player removes its gamespace.
//
// Checked in the database after each pooled start (poolClaims.ts): each set claimed in it names
// one of its gamespaces and each gamespace claimed at most one; a gamespace that claimed a set
// ready before the start has exactly that set's machines; every gamespace has its own two
// machines under its tag and nets, the ones its player was answered; no machine was answered to
// two players; a claimed set's tag holds nothing any more. Any failed launch or any of these
// broken fails the bench.

const size = Number(process.env.BENCH_POOL || 50);
const n = Number(process.env.BENCH_PLAYERS || 100);
const rounds = Number(process.env.BENCH_ROUNDS || 2);
/** How long the pool may take to fill or empty. */
const POOL_TIMEOUT_MS = 300_000;

type Json = Record<string, unknown>;

/** Polls `read` until `done` holds of its value; throws after `timeoutMs`. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

interface Figures {
  count: number;
  p50: number;
  p95: number;
  max: number;
}

function figures(ms: number[]): Figures {
  const sorted = [...ms].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** The pool full: `size` sets ready, none warming, their machines all running. */
function filled(s: Snapshot): boolean {
  const ready = new Set(s.sets.filter((set) => set.state === 'ready').map((set) => set.id));
  const machines = s.machines.filter((m) => ready.has(m.tag));
  return (
    ready.size === size &&
    !s.sets.some((set) => set.state === 'warming') &&
    machines.length === 2 * size &&
    machines.every((m) => m.state === 'running')
  );
}

const load = () => loadavg()[0]!.toFixed(1);

async function main(): Promise<void> {
  if (!process.env.REDIS_URL || !process.env.TEST_DATABASE_URL) {
    throw new Error('bench:pool needs REDIS_URL and TEST_DATABASE_URL');
  }
  process.env.BENCH_SIM_SPEED ??= '0.1';
  const bench = await startBench(2);
  const problems: string[] = [];
  try {
    const { workspaceId } = await bench.signIn(n);
    const url = bench.urls[0]!;
    const { accessToken: admin } = await signIn(url, 'admin', SEED_PASSWORD);
    const api = async (method: string, path: string, body?: unknown): Promise<Json> => {
      const res = await fetch(`${url}/api/${path}`, {
        method,
        headers: {
          authorization: `Bearer ${admin}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
      return text ? (JSON.parse(text) as Json) : {};
    };
    await api('POST', 'user/register');
    const view = () => api('GET', `admin/pools/${workspaceId}`);
    console.log(
      `${n} players signed in; two servers on PostgreSQL and Redis; sim speed ` +
        `${process.env.BENCH_SIM_SPEED}; pool of ${size}; load average ${load()}`,
    );

    const cold: PlayerRun[] = [];
    const pooled: PlayerRun[] = [];
    const fromPool: PlayerRun[] = [];
    const late: PlayerRun[] = [];
    const deployed: PlayerRun[] = [];
    const cpu = { cold: [] as number[], pooled: [] as number[] };

    /** One synchronized start; every player removes its gamespace afterwards. */
    async function start(kind: 'cold' | 'pooled', before?: Snapshot) {
      const launched = await bench.launch({ untilRunning: true });
      problems.push(...launched.failures);
      cpu[kind].push(launched.used.cpuMs / n);
      const ids = launched.runs.map((r) => r.gamespaceId);
      let line = '';
      if (before) {
        const check = checkClaims(before, await bench.snapshot(workspaceId, ids), launched.runs);
        problems.push(...check.problems);
        const sorted = (set: Set<string>) => launched.runs.filter((r) => set.has(r.gamespaceId));
        fromPool.push(...sorted(check.pooled));
        late.push(...sorted(check.late));
        deployed.push(
          ...launched.runs.filter(
            (r) => !check.pooled.has(r.gamespaceId) && !check.late.has(r.gamespaceId),
          ),
        );
        pooled.push(...launched.runs);
        line =
          `, ${check.claims} claims: ${check.pooled.size} sets ready before the start, ` +
          `${check.late.size} warmed during it; ${check.problems.length} double claims or ` +
          'machines astray';
      } else {
        cold.push(...launched.runs);
      }
      const f = figures(launched.runs.map((r) => r.runningMs));
      console.log(
        `${kind}: ${launched.runs.length} launched, ${launched.failures.length} failed${line}; ` +
          `running p50 ${seconds(f.p50)}, p95 ${seconds(f.p95)}; load average ${load()}`,
      );
      for (const failure of launched.failures.slice(0, 5)) console.log(`  ${failure}`);
      const ended = await bench.end();
      if (ended.length) throw new Error(`removing the gamespaces: ${ended[0]}`);
      await until(
        () => bench.snapshot(workspaceId, ids),
        (s) => !s.machines.some((m) => ids.includes(m.tag)),
        60_000,
      );
    }

    /** Launches of pooled starts that found no ready set (the pool's own count). */
    let misses = 0;
    for (let r = 0; r < rounds; r++) {
      for (const kind of r % 2 ? (['pooled', 'cold'] as const) : (['cold', 'pooled'] as const)) {
        if (kind === 'cold') {
          await api('PUT', `admin/pools/${workspaceId}`, { size: 0 });
          await until(
            () => bench.snapshot(workspaceId),
            (s) => !s.sets.some((set) => set.state !== 'claimed'),
            POOL_TIMEOUT_MS,
          );
          await start('cold');
        } else {
          const filling = performance.now();
          await api('PUT', `admin/pools/${workspaceId}`, { size });
          await until(view, (v) => v.ready === size, POOL_TIMEOUT_MS);
          // The view counts a set ready once its machines exist; the sim's may still deploy.
          const before = await until(() => bench.snapshot(workspaceId), filled, POOL_TIMEOUT_MS);
          console.log(`pool ready in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
          const missed = Number((await view()).misses);
          await start('pooled', before);
          misses += Number((await view()).misses) - missed;
        }
      }
    }

    console.log(
      `\n${rounds * 2} synchronized starts of ${n} players; pooled: ${fromPool.length + late.length} ` +
        `claims (${fromPool.length} of sets ready before the start, ${late.length} of sets the ` +
        `keeper warmed during it), ${misses} misses; ${problems.length} failures, double claims ` +
        'or machines astray',
    );
    console.log(
      '\n| launch | launches | running p50 | p95 | max | answered p50 | p95 |\n' +
        '| --- | ---: | ---: | ---: | ---: | ---: | ---: |',
    );
    const lines: Array<[string, PlayerRun[]]> = [
      ['cold, no pool', cold],
      [`pool of ${size}: every launch`, pooled],
      ['pooled: a set ready before the start', fromPool],
      ['pooled: a set warmed during the start', late],
      ['pooled: none, deployed', deployed],
    ];
    for (const [label, runs] of lines) {
      if (!runs.length) continue;
      const answered = figures(runs.map((r) => r.answeredMs));
      const running = figures(runs.map((r) => r.runningMs));
      console.log(
        `| ${label} | ${running.count} | ${seconds(running.p50)} | ${seconds(running.p95)} | ` +
          `${seconds(running.max)} | ${seconds(answered.p50)} | ${seconds(answered.p95)} |`,
      );
    }
    const c = figures(cold.map((r) => r.runningMs));
    const p = figures(fromPool.map((r) => r.runningMs));
    const a = figures(pooled.map((r) => r.runningMs));
    const ratio = (x: number, y: number) => `${(x / y).toFixed(1)}x`;
    console.log(
      `\ncold / a set ready before the start, to every machine running: p50 ${ratio(c.p50, p.p50)}, ` +
        `p95 ${ratio(c.p95, p.p95)}; cold / every pooled launch: p50 ${ratio(c.p50, a.p50)}, ` +
        `p95 ${ratio(c.p95, a.p95)}`,
    );
    const mean = (xs: number[]) => (xs.reduce((s, x) => s + x, 0) / xs.length).toFixed(1);
    console.log(
      `server CPU per launch: cold ${mean(cpu.cold)} ms, pooled ${mean(cpu.pooled)} ms ` +
        "(the players' reads while they wait included, and in pooled starts the keeper's refill)",
    );
    for (const problem of problems.slice(0, 10)) console.log(`  ${problem}`);
    if (!fromPool.length) problems.push('no launch was handed a pooled set');
  } finally {
    await bench.stop();
  }
  console.log(problems.length ? '\nFAILED: see above.' : '\nNo failure, no double claim.');
  process.exitCode = problems.length ? 1 : 0;
}

await main();
