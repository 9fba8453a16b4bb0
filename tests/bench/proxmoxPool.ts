import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { buildApp, type App } from '../../server/app';
import { loadConfig } from '../../server/config';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { TINY_TEMPLATE } from '../../server/core/stockTemplates';
import { startPveSimulator, type PveSimulator } from '../pvesim/simulator';
import { percentile } from './processes';

// Warm pools on the proxmox driver: `npx tsx tests/bench/proxmoxPool.ts` (about six minutes). One
// server (SQLite) on the PVE API simulator with the timings of the "fifty" test of
// tests/server/hypervisor/proxmox.test.ts: linked clones of 40 ms that meet PVE's clone lock on
// the base image (a clone waits 30 ms for a lock another holds, then fails, and the driver's queue
// tries again), tasks of 30 ms, an SDN apply of 120 ms, a guest agent answering 1 s after its
// machine starts. A lab of two machines (web with a flag from the challenge, db) on one net.
//
// BENCH_PLAYERS (50) players launch at once through a registrar (Gameboard's way), in rounds that
// alternate (cold, pooled, pooled, cold, ... for BENCH_ROUNDS, default 2):
// - cold: no pool; each launch clones, configures and starts its machines;
// - pooled: the workspace's pool sized to BENCH_POOL (50) and waited for until every set is ready
//   (deployed, running, its guest agent answering); each launch claims a set: its vnets are
//   relabelled for the gamespace, its VMs renamed, its flag written into the guest.
// A player's time runs from the common start until the gamespace's machines all run (the launch
// answers, then the driver's machines of the gamespace are read every 250 ms). A cold machine then
// still boots (its agent answers a second later here, tens of seconds on a real guest), which the
// figure leaves out: the ratio is the least a pool gains. Every gamespace is removed after its
// round. Ports: BENCH_PORT (7400) for the simulator, the next for the server.

const players = Number(process.env.BENCH_PLAYERS || 50);
const poolSize = Number(process.env.BENCH_POOL || 50);
const rounds = Number(process.env.BENCH_ROUNDS || 2);
const basePort = Number(process.env.BENCH_PORT || 7400);
const SEED_PASSWORD = 'bench-seed-password';

type Json = Record<string, unknown>;

async function until<T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 300_000) {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (performance.now() > deadline) throw new Error(`gave up waiting: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function main() {
  const sim: PveSimulator = await startPveSimulator({
    port: basePort,
    cloneMs: 40,
    lockWaitMs: 30,
    taskMs: 30,
    sdnReloadMs: 120,
    agentDelayMs: 1_000,
  });
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-bench-pve-pool-'));
  const url = `http://127.0.0.1:${basePort + 1}`;
  const config = loadConfig({
    PORT: String(basePort + 1),
    HOST: '127.0.0.1',
    TOPOPLAY_URL: url,
    TOPOPLAY_DATA: dataDir,
    TOPOPLAY_SPA: join(dataDir, 'no-spa'),
    TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
    LOG_LEVEL: 'info',
    JANITOR_ENABLED: 'false',
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_CREDENTIALS: '0',
    HYPERVISOR: 'proxmox',
    PROXMOX_URL: sim.url,
    PROXMOX_TOKEN_ID: sim.tokenId,
    PROXMOX_TOKEN_SECRET: sim.tokenSecret,
  });
  // The claims' own figures, from the server's log (pools: `a launch claimed a pooled set`).
  const claims: Array<{ retagMs: number; settingsMs: number }> = [];
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.includes('a launch claimed a pooled set')) continue;
        const entry = JSON.parse(line) as { retagMs: number; settingsMs: number };
        claims.push({ retagMs: entry.retagMs, settingsMs: entry.settingsMs });
      }
      done();
    },
  });
  const app: App = await buildApp(config, { logDestination });
  await app.app.listen({ port: basePort + 1, host: '127.0.0.1' });
  const db = app.store.db;
  const userId = async (username: string) =>
    (
      await db
        .selectFrom('identityAccounts')
        .select('id')
        .where('username', '=', username)
        .executeTakeFirstOrThrow()
    ).id;
  const keyFor = async (username: string) => {
    const key = newApiKey();
    await db
      .insertInto('apiKeys')
      .values({
        id: newId(),
        userId: await userId(username),
        name: 'bench',
        hash: sha256Hex(key),
        whenCreated: Date.now(),
      })
      .execute();
    return { 'x-api-key': key };
  };
  async function call(who: Record<string, string>, method: string, path: string, body?: unknown) {
    const res = await fetch(`${url}/api${path}`, {
      method,
      headers: body === undefined ? who : { ...who, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return (text ? JSON.parse(text) : undefined) as Json;
  }

  try {
    await db
      .updateTable('users')
      .set({ registrar: 1, gamespaceLimit: 0 })
      .where('id', '=', await userId('player'))
      .execute();
    const registrar = await keyFor('player');
    const admin = await keyFor('admin');
    const creator = await keyFor('creator');
    const ws = await call(creator, 'POST', '/workspace', { name: 'Bench', audience: 'everyone' });
    const workspaceId = String(ws.id);
    await call(creator, 'PUT', `/challenge/${workspaceId}`, {
      text: 'Find the flag.',
      transforms: [{ key: 'flag', value: 'hex:12' }],
    });
    for (const [name, guestinfo] of [
      ['web', 'flag=##flag##'],
      ['db', 'role=db'],
    ] as const) {
      await db
        .insertInto('templates')
        .values({
          id: newId(),
          name,
          description: '',
          audience: '',
          iso: '',
          networks: 'lan',
          guestinfo,
          isHidden: 0,
          isPublished: 0,
          isLinked: 0,
          detail: JSON.stringify(TINY_TEMPLATE.detail),
          parentId: null,
          replicas: 1,
          variant: 0,
          workspaceId,
          whenCreated: Date.now(),
        })
        .execute();
    }
    const pool = () => call(admin, 'GET', `/admin/pools/${workspaceId}`);
    const results: Record<'cold' | 'pooled', number[]> = { cold: [], pooled: [] };
    let claimedTotal = 0;

    for (let round = 0; round < rounds; round++) {
      const pooled = round % 4 === 1 || round % 4 === 2;
      if (pooled) {
        await call(admin, 'PUT', `/admin/pools/${workspaceId}`, { size: poolSize });
        await until(pool, (p) => p.ready === poolSize);
      } else {
        await call(admin, 'PUT', `/admin/pools/${workspaceId}`, { size: 0 });
        await until(pool, (p) => p.ready === 0 && p.warming === 0);
      }
      const claimedBefore = Number((await pool()).claimedLastHour ?? 0);
      const start = performance.now();
      const times = await Promise.all(
        Array.from({ length: players }, async (_, i) => {
          const state = await call(registrar, 'POST', '/gamespace', {
            resourceId: workspaceId,
            startGamespace: true,
            players: [{ subjectId: `r${round}-p${i}`, subjectName: `p${i}` }],
          });
          const id = String(state.id);
          await until(
            () => app.driver.machinesOf(id),
            (ms) => ms.length === 2 && ms.every((m) => m.state === 'running' && !m.task),
            120_000,
          );
          return { id, ms: performance.now() - start };
        }),
      );
      const kind = pooled ? 'pooled' : 'cold';
      results[kind].push(...times.map((t) => t.ms));
      const claimed = Number((await pool()).claimedLastHour ?? 0) - claimedBefore;
      claimedTotal += pooled ? claimed : 0;
      const sorted = times.map((t) => t.ms).sort((a, b) => a - b);
      const taken = claims.splice(0);
      const ofClaims = (key: 'retagMs' | 'settingsMs') =>
        Math.round(
          percentile(
            taken.map((c) => c[key]).sort((a, b) => a - b),
            50,
          ),
        );
      const split = pooled
        ? `; claims: retag p50 ${ofClaims('retagMs')} ms, settings p50 ${ofClaims('settingsMs')} ms`
        : '';
      console.info(
        `round ${round + 1} ${kind}: p50 ${Math.round(percentile(sorted, 50))} ms, p95 ` +
          `${Math.round(percentile(sorted, 95))} ms, max ${Math.round(sorted.at(-1)!)} ms` +
          (pooled ? `, ${claimed} sets claimed` : '') +
          split,
      );
      // Keepers stay off while the round's gamespaces go.
      await call(admin, 'PUT', `/admin/pools/${workspaceId}`, { size: 0 });
      await Promise.all(times.map((t) => call(admin, 'DELETE', `/gamespace/${t.id}`)));
      await until(
        async () =>
          (await app.driver.find('')).filter((m) => times.some((t) => m.name.endsWith(t.id))),
        (left) => left.length === 0,
      );
    }

    const summary = (ms: number[]) => {
      const sorted = [...ms].sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
    };
    const cold = summary(results.cold);
    const warm = summary(results.pooled);
    console.info(
      `${players} players, pool of ${poolSize}: cold p50 ${Math.round(cold.p50)} ms, p95 ` +
        `${Math.round(cold.p95)} ms; pooled p50 ${Math.round(warm.p50)} ms, p95 ` +
        `${Math.round(warm.p95)} ms; cold/pooled p50 ${(cold.p50 / warm.p50).toFixed(1)}x, p95 ` +
        `${(cold.p95 / warm.p95).toFixed(1)}x; ${claimedTotal} sets claimed`,
    );
    if (results.pooled.length > 0 && claimedTotal === 0) throw new Error('no launch claimed a set');
  } finally {
    const closing = performance.now();
    await app.close();
    console.info(`server closed in ${Math.round(performance.now() - closing)} ms`);
    await sim.close();
    console.info(`simulator closed in ${Math.round(performance.now() - closing)} ms`);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
