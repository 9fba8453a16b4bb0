import { readdir, readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { newId } from '../../server/core/ids';
import { cpuSeconds, openViewer, type Viewer } from './consoleBench';
import { percentile } from './processes';
import { apiAs, startServer, until, type Api } from './qemuLab';

// The wall's thumbnails (GET /api/vm/{id}/thumbnail): what one server process pays to show every
// running machine to a watcher. One real server process (`tsx server/main.ts`) with the sim driver
// (SIM_SPEED=0) and SQLite; BENCH_GAMESPACES (200) gamespaces of a two-machine workspace, launched
// by the administrator for as many players (POST /api/gamespace naming each, as a registrar
// does), so 400 running machines. Then:
//
// 1. None: BENCH_SECONDS (30) with nobody watching: the server process tree's CPU and RSS.
// 2. Watched: one watcher (this process, the administrator's bearer token) asks for every
//    machine's thumbnail every 2 s with If-None-Match, each machine on its own 2 s cycle at a
//    random phase, as a wall page would. Once every machine has answered a picture, the same
//    BENCH_SECONDS are measured: CPU, RSS, requests and bytes per second to the watcher (bodies;
//    headers not counted), the answers by status.
//    Meanwhile BENCH_TYPISTS (20) console viewers (the real console route, as noVNC connects),
//    one per machine, type a character in turn every BENCH_CHANGE_MS (500 ms), one machine
//    changed at a time; a change's latency runs from the keys being sent to the watcher's first
//    answer with a new ETag for that machine (so it holds the capture's 2 s request interval and
//    the watcher's 2 s poll). p50/p95/max reported.
//
//   BENCH_PORT=7100 npm run bench:thumbnails
//
// BENCH_DRIVER=qemu: the same with real machines: the qemu driver (warm images on), a workspace of
// the one tiny-linux stock machine, and BENCH_GAMESPACES (35: what the driver's default memory cap
// admits on a 24 GiB host) one-machine gamespaces; the typists type into the machines' login
// prompts. The server's CPU is its own process tree's; the QEMU processes are not in it (machines
// outlive their server by design), so their CPU is reported apart, summed over every qemu-system
// process on the host.

const QEMU = process.env.BENCH_DRIVER === 'qemu';
const GAMESPACES = Number(process.env.BENCH_GAMESPACES || (QEMU ? 35 : 200));
/** The workspace's machines: one tiny real machine, or two simulated ones. */
const TEMPLATES = QEMU ? ['tiny-linux'] : ['linux-server', 'tiny-linux'];
const SECONDS = Number(process.env.BENCH_SECONDS || 30);
const TYPISTS = Number(process.env.BENCH_TYPISTS || 20);
const CHANGE_MS = Number(process.env.BENCH_CHANGE_MS || 500);
const POLL_MS = 2_000;
const LAUNCH_CONCURRENCY = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/**
 * Whether process `pid` is a QEMU's: the machines, not the server. The driver names its QEMU
 * processes after their machines (`-name …,process=topoplay-{id}`), so the command line tells.
 */
const isQemu = async (pid: string) =>
  (await readFile(`/proc/${pid}/cmdline`, 'latin1').catch(() => '')).startsWith('qemu-system');

/** CPU seconds of every QEMU process on the host: the machines' own work. */
async function qemuCpuSeconds(): Promise<number> {
  let ticks = 0;
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (!(await isQemu(entry))) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticks += Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  }
  return ticks / 100; // USER_HZ on Linux
}

/** VmRSS of `pid` and its descendants, QEMU processes excluded, in bytes. */
async function rssBytes(pid: number): Promise<number> {
  const parents = new Map<number, number>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    if (await isQemu(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    parents.set(Number(entry), Number(fields[1]));
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) {
    for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  }
  let kib = 0;
  for (const id of tree) {
    const status = await readFile(`/proc/${id}/status`, 'utf8').catch(() => '');
    kib += Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  }
  return kib * 1024;
}

async function launchAll(api: Api): Promise<string[]> {
  const ws = await api<{ id: string }>('POST', 'workspace', {
    name: 'Wall',
    audience: 'everyone',
  });
  for (const name of TEMPLATES) {
    const stock = await api<Array<{ id: string; name: string }>>('GET', `templates?term=${name}`);
    const parent = stock.find((t) => t.name === name);
    if (!parent) throw new Error(`no stock template ${name}`);
    await api('POST', 'template', { templateId: parent.id, workspaceId: ws.id });
  }
  const vms: string[] = [];
  let next = 0;
  const worker = async () => {
    while (next < GAMESPACES) {
      const i = next++;
      const game = await api<{ vms: Array<{ id: string; isRunning: boolean }> }>(
        'POST',
        'gamespace',
        {
          resourceId: ws.id,
          startGamespace: true,
          players: [{ subjectId: newId(), subjectName: `Player ${i}` }],
        },
      );
      if (game.vms.length !== TEMPLATES.length) {
        throw new Error(`gamespace ${i} has ${game.vms.length} machines`);
      }
      vms.push(...game.vms.map((vm) => vm.id));
    }
  };
  await Promise.all(Array.from({ length: LAUNCH_CONCURRENCY }, worker));
  return vms;
}

interface Watch {
  requests: number;
  /** Bodies. */
  bytes: number;
  /** Status lines and headers as HTTP/1.1 writes them. */
  headerBytes: number;
  statuses: Map<number, number>;
  etags: Map<string, string>;
  /** Told of each new ETag of a machine, when the answer arrived. */
  onNew?: (vm: string, at: number) => void;
  stop(): Promise<void>;
}

/** One watcher polling every machine's thumbnail every POLL_MS with If-None-Match. */
function watch(url: string, token: string, vms: string[]): Watch {
  let running = true;
  const state: Watch = {
    requests: 0,
    bytes: 0,
    headerBytes: 0,
    statuses: new Map(),
    etags: new Map(),
    stop: async () => {
      running = false;
      await Promise.all(loops);
    },
  };
  const poll = async (vm: string) => {
    const etag = state.etags.get(vm);
    const res = await fetch(`${url}/api/vm/${vm}/thumbnail`, {
      headers: { authorization: `Bearer ${token}`, ...(etag ? { 'if-none-match': etag } : {}) },
    });
    const body = await res.arrayBuffer();
    const at = performance.now();
    state.requests += 1;
    state.bytes += body.byteLength;
    state.headerBytes += 17 + res.statusText.length;
    res.headers.forEach((value, name) => (state.headerBytes += name.length + value.length + 4));
    state.statuses.set(res.status, (state.statuses.get(res.status) ?? 0) + 1);
    const next = res.headers.get('etag');
    if (res.status === 200 && next && next !== etag) {
      state.etags.set(vm, next);
      state.onNew?.(vm, at);
    }
  };
  const loops = vms.map(async (vm) => {
    await sleep(Math.random() * POLL_MS);
    while (running) {
      const started = performance.now();
      await poll(vm).catch(() => {
        state.statuses.set(0, (state.statuses.get(0) ?? 0) + 1);
      });
      await sleep(Math.max(0, POLL_MS - (performance.now() - started)));
    }
  });
  return state;
}

async function usage(pid: number, seconds: number) {
  const [cpu0, qemu0] = [await cpuSeconds(pid), await qemuCpuSeconds()];
  const t0 = performance.now();
  await sleep(seconds * 1000);
  const elapsed = (performance.now() - t0) / 1000;
  return {
    cpu: (await cpuSeconds(pid)) - cpu0,
    qemu: (await qemuCpuSeconds()) - qemu0,
    elapsed,
    rss: await rssBytes(pid),
  };
}

const share = (cpu: number, elapsed: number) => `${((cpu / elapsed) * 100).toFixed(1)}% of a core`;

async function main() {
  const server = await startServer({
    ...(QEMU ? {} : { HYPERVISOR: 'sim', SIM_SPEED: '0' }),
    DEFAULT_GAMESPACE_LIMIT: '0',
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_CREDENTIALS: '0',
    // The typists are all the administrator: more consoles than one user may open by default.
    CONSOLE_MAX_PER_USER: String(Math.max(8, TYPISTS)),
  });
  const viewers: Viewer[] = [];
  try {
    const api = await apiAs(server.url, 'admin');
    const launchStart = performance.now();
    const vms = await launchAll(api);
    console.log(
      `${GAMESPACES} gamespaces, ${vms.length} running machines, launched in ` +
        `${((performance.now() - launchStart) / 1000).toFixed(1)} s`,
    );
    // The admin's token, for the watcher: the api client keeps it to itself.
    const { signIn } = await import('../server/oidc');
    const { SEED_PASSWORD } = await import('./qemuLab');
    const token = (await signIn(server.url, 'admin', SEED_PASSWORD)).accessToken!;

    await sleep(5_000);
    if (QEMU) {
      // Restored or booting machines work hard at first: measure once they have settled (the
      // QEMU processes under half a core for 5 s), or after three minutes.
      const settledBy = performance.now() + 180_000;
      for (;;) {
        const q0 = await qemuCpuSeconds();
        await sleep(5_000);
        const busy = ((await qemuCpuSeconds()) - q0) / 5;
        if (busy < 0.5 || performance.now() > settledBy) {
          console.log(`machines settled: QEMU processes ${(busy * 100).toFixed(0)}% of a core`);
          break;
        }
      }
    }
    const none = await usage(server.pid, SECONDS);

    const watcher = watch(server.url, token, vms);
    await until(
      'a picture of every machine',
      async () => (watcher.etags.size === vms.length ? true : null),
      120_000,
    );
    // Typists on the first machines: a console each, through the real route.
    for (const vm of vms.slice(0, TYPISTS)) {
      // With control: an administrator's console is view-only until they take it.
      const display = await api<{ url: string }>('GET', `vm-console/${vm}?control=true`);
      viewers.push(await openViewer(display.url));
    }
    const latencies: number[] = [];
    const sent = new Map<string, number>();
    watcher.onNew = (vm, at) => {
      const t = sent.get(vm);
      if (t === undefined) return;
      latencies.push(at - t);
      sent.delete(vm);
    };
    let typing = true;
    let missed = 0;
    const typist = (async () => {
      for (let i = 0; typing; i++) {
        const index = i % viewers.length;
        const vm = vms[index]!;
        // A change still unseen after a round of the typists is counted as missed.
        if (sent.has(vm)) {
          missed += 1;
          sent.delete(vm);
        }
        sent.set(vm, performance.now());
        viewers[index]!.type(String.fromCharCode(97 + (i % 26)));
        await sleep(CHANGE_MS);
      }
    })();
    const requests0 = watcher.requests;
    const bytes0 = watcher.bytes;
    const headerBytes0 = watcher.headerBytes;
    const statuses0 = new Map(watcher.statuses);
    const watched = await usage(server.pid, SECONDS);
    typing = false;
    await typist;
    const requests = watcher.requests - requests0;
    const bytes = watcher.bytes - bytes0;
    const headerBytes = watcher.headerBytes - headerBytes0;
    const statuses = [...watcher.statuses]
      .map(([status, n]) => `${status}: ${n - (statuses0.get(status) ?? 0)}`)
      .join(', ');
    await watcher.stop();

    latencies.sort((a, b) => a - b);
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    console.log(`\nnobody watching, ${SECONDS} s:`);
    console.log(`  server CPU ${share(none.cpu, none.elapsed)}, RSS ${mib(none.rss)}`);
    if (QEMU) console.log(`  QEMU processes ${share(none.qemu, none.elapsed)}`);
    console.log(`one watcher of ${vms.length} thumbnails every 2 s, ${SECONDS} s:`);
    console.log(
      `  server CPU ${share(watched.cpu, watched.elapsed)}, ` +
        `RSS ${mib(watched.rss)} (${mib(watched.rss - none.rss)} more)`,
    );
    if (QEMU) console.log(`  QEMU processes ${share(watched.qemu, watched.elapsed)}`);
    console.log(
      `  ${(requests / watched.elapsed).toFixed(0)} requests/s, ` +
        `${(bytes / watched.elapsed / 1024).toFixed(1)} KiB/s of thumbnails to the watcher ` +
        `(${((bytes + headerBytes) / watched.elapsed / 1024).toFixed(1)} KiB/s with headers); ` +
        `${statuses}`,
    );
    console.log(
      `  ${latencies.length} screen changes on ${viewers.length} machines seen: change to new ` +
        `thumbnail p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, ` +
        `max ${ms(latencies.at(-1) ?? NaN)}; ${missed} not seen within a round`,
    );
    console.log(
      `  load average ${loadavg()
        .map((l) => l.toFixed(1))
        .join(' ')}`,
    );
  } finally {
    await Promise.all(viewers.map((v) => v.close()));
    await server.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
