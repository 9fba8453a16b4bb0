import { percentile } from './processes';
import { readRatio, seconds, startBench } from './launch';

// npm run bench:api: the guard against regressions, in about a minute, run by CI (`npm test`).
// Three figures, each a ratio or a time taken within one run on this machine, each with a floor
// at about half of its target, so that a change that halves a figure fails CI instead of going
// unseen. It is a benchmark with a generous floor, not a timed test: the targets themselves are
// measured by the full benchmarks (bench:launch, bench:hub), whose figures docs/performance.md
// keeps with the commands that reproduce them.
//
// 1. A synchronized launch of BENCH_PLAYERS (100) players on one server (SQLite, the sim driver
//    with SIM_SPEED=0), as bench:launch runs it: p95 of launch to all machines deployed.
// 2. The read of one gamespace (GET /api/gamespace/{id}, bearer, every protection on) against a
//    bare Fastify route reading one SQLite row, in alternating rounds: its share of the bare rate.
// 3. Hub fan-out: one event to 1,000 clients in one channel, p95 against a bare ws server.
//
// BENCH_API_STRICT=0 prints the figures without failing (for a machine known to be busy).

const FLOORS = {
  /** Target 5 s for 1,000 players (bench:launch); 100 take under a second here. */
  launchP95Ms: 5_000,
  /** Target 75% of the bare route's rate. */
  readShare: 0.375,
  /** Target p95 within 2x of bare ws at 1,000 clients. */
  hubP95Ratio: 4,
};

async function main() {
  const n = Number(process.env.BENCH_PLAYERS || 100);
  const started = performance.now();
  const problems: string[] = [];
  const lines: string[] = [];

  const bench = await startBench(1);
  try {
    await bench.signIn(n);
    const launched = await bench.launch();
    const p95 = percentile(launched.sorted, 95);
    lines.push(
      `launch of ${n} players: p95 ${seconds(p95)}, failures ${launched.failures.length} ` +
        `(floor: p95 at most ${seconds(FLOORS.launchP95Ms)}, no failure)`,
    );
    if (launched.failures.length || launched.checked.machines !== 2 * n) {
      problems.push(`launch: ${launched.failures.length} failures, ${launched.failures[0] ?? ''}`);
    }
    if (!(p95 <= FLOORS.launchP95Ms)) problems.push(`launch p95 ${seconds(p95)}`);

    const { bare, topoplay } = await readRatio({ url: bench.urls[0]!, ...launched.sample }, 2, 4);
    const share = topoplay.rate / bare.rate;
    lines.push(
      `read: ${topoplay.rate.toFixed(0)} req/s against the bare route's ${bare.rate.toFixed(0)}, ` +
        `${(share * 100).toFixed(1)}% (floor ${FLOORS.readShare * 100}%), p99 ${topoplay.p99} ms`,
    );
    if (topoplay.bad) problems.push(`read: ${topoplay.bad} errors`);
    if (!(share >= FLOORS.readShare)) problems.push(`read share ${(share * 100).toFixed(1)}%`);
  } finally {
    await bench.stop();
  }

  const { hubFanOut } = await import('./hub');
  const hub = await hubFanOut(1_000, 10);
  const ratio = hub.p95 / hub.bareP95;
  lines.push(
    `hub fan-out to 1,000 clients: p95 ${hub.p95.toFixed(1)} ms against bare ws ` +
      `${hub.bareP95.toFixed(1)} ms, ${ratio.toFixed(2)}x (floor ${FLOORS.hubP95Ratio}x)`,
  );
  if (!(ratio <= FLOORS.hubP95Ratio)) problems.push(`hub fan-out ${ratio.toFixed(2)}x`);

  for (const line of lines) console.log(line);
  console.log(`(${((performance.now() - started) / 1000).toFixed(0)} s)`);
  if (problems.length) {
    console.log(`\nBelow the floor: ${problems.join('; ')}`);
    if (process.env.BENCH_API_STRICT !== '0') process.exitCode = 1;
  } else {
    console.log('\nEvery figure above its floor.');
  }
}

await main();
