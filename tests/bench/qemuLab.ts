import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { screenText } from '../../server/hypervisor/qemu/qmp';
import { buildTinyImage } from '../../server/hypervisor/qemu/tinyImage';
import { signIn } from '../server/oidc';
import { freePort } from './processes';
import { cloudHostname } from '../../server/hypervisor/cloudInit';
import { LABS_DATA, LABS_IMAGES } from '../labs/images';

// What the qemu benchmark needs around its measurements: a real server process with the qemu
// driver on folders of its own, signed-in API clients, the machines' screens and memory, and a
// cleanup that leaves no QEMU process, switch or folder behind.

export const SEED_PASSWORD = 'bench-seed-password';
const CACHE = resolve('node_modules/.cache/topoplay-images');
const POLL_MS = 100;
/** The Debian desktop image's files (the disk and its boot files), as `npm run images` builds them. */
const DESKTOP_FILES = /^debian-desktop\./;
/** The built Debian desktop image, linked when present; BUILD_DESKTOP builds it. */
export const DESKTOP_IMAGE = join(LABS_IMAGES, 'debian-desktop.qcow2');
export const BUILD_DESKTOP = `TOPOPLAY_DATA=${LABS_DATA} npx tsx scripts/images.ts`;

export interface BenchServer {
  url: string;
  stateDir: string;
  /** The server process (`tsx server/main.ts`). */
  pid: number;
  /** Stops the server, kills every process under its state folder, removes its folders. */
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Servers still running: an interrupted run stops them (and their machines) before it exits. */
const running = new Set<BenchServer>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void Promise.all([...running].map((server) => server.stop())).finally(() => process.exit(130));
  });
}

/** Polls `check` every POLL_MS until it answers a value, or throws after `timeoutMs`. */
export async function until<T>(
  what: string,
  check: () => Promise<T | null | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => null);
    if (value !== null && value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(POLL_MS);
  }
}

/** Pids of processes whose command line names `folder`: the machines and the switch. */
async function processesUnder(folder: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const cmdline = await readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.replace(/\0/g, ' ').includes(`${folder}/`)) pids.push(Number(entry));
  }
  return pids;
}

/**
 * `tsx server/main.ts` with the qemu driver (unless `env` names another), SQLite and in-memory hub in a fresh data folder, the
 * tiny image (built once into the cache) linked into its own images folder, the images of
 * `moreImages` (a folder) beside it, and the Debian desktop image when it was built
 * (DESKTOP_IMAGE); resolves once it is ready.
 */
export async function startServer(
  env: Record<string, string> = {},
  moreImages?: string,
): Promise<BenchServer> {
  // Another driver (env.HYPERVISOR) has no use for the image.
  if ((env.HYPERVISOR ?? 'qemu') === 'qemu') await buildTinyImage(CACHE);
  // Short: the machines' unix sockets live under the state folder.
  const root = mkdtempSync(join(tmpdir(), 'tqb-'));
  const imagesDir = join(root, 'images');
  mkdirSync(imagesDir);
  const folders: Array<[string, RegExp?]> = [[CACHE], [LABS_IMAGES, DESKTOP_FILES]];
  if (moreImages) folders.push([moreImages]);
  for (const [folder, only] of folders) {
    if (!existsSync(folder)) continue;
    for (const file of readdirSync(folder)) {
      const link = join(imagesDir, file);
      if (file.endsWith('.tmp') || file.startsWith('.') || existsSync(link)) continue;
      if (only && !only.test(file)) continue;
      symlinkSync(join(folder, file), link);
    }
  }
  const stateDir = join(root, 's');
  // BENCH_PORT: a port of one's own on a shared host; a free one otherwise.
  const port = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : await freePort();
  const url = `http://127.0.0.1:${port}`;
  // BENCH_LOG_LEVEL=info shows the server's log (where a restore's or a claim's time goes).
  const logLevel = process.env.BENCH_LOG_LEVEL || 'warn';
  const child: ChildProcess = spawn(resolve('node_modules/.bin/tsx'), ['server/main.ts'], {
    stdio: ['ignore', logLevel === 'warn' ? 'ignore' : 'inherit', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: url,
      TOPOPLAY_DATA: join(root, 'data'),
      TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
      DATABASE_URL: '',
      REDIS_URL: '',
      LOG_LEVEL: logLevel,
      HYPERVISOR: 'qemu',
      QEMU_IMAGES_DIR: imagesDir,
      QEMU_STATE_DIR: stateDir,
      JANITOR_ENABLED: 'false',
      ...env,
    },
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const stop = async () => {
    running.delete(server);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    // Machines and the switch outlive a server by design: these are this run's own.
    for (const pid of await processesUnder(stateDir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone in the meantime.
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  const server: BenchServer = { url, stateDir, pid: child.pid ?? 0, stop };
  running.add(server);
  try {
    await until(
      'the server to be ready',
      async () => {
        if (child.exitCode !== null) throw new Error('the server exited');
        return (await fetch(`${url}/api/health/ready`)).ok || null;
      },
      120_000,
    );
  } catch (error) {
    await stop();
    throw error;
  }
  return server;
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly body: string,
  ) {
    super(message);
  }
}

export type Api = <T = Record<string, unknown>>(
  method: string,
  path: string,
  body?: unknown,
) => Promise<T>;

/** A client signed in through the embedded identity provider as one of the seeded accounts. */
export async function apiAs(url: string, username: string): Promise<Api> {
  const { accessToken } = await signIn(url, username, SEED_PASSWORD);
  if (!accessToken) throw new Error(`${username} could not sign in`);
  const api: Api = async <T>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}/api/${path}`, {
      method,
      headers: {
        authorization: `Bearer ${accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) {
      throw new ApiError(
        `${method} ${path}: ${res.status} ${text.slice(0, 300)}`,
        res.status,
        text,
      );
    }
    return (text ? JSON.parse(text) : null) as T;
  };
  await api('POST', 'user/register');
  return api;
}

export interface GameVm {
  id: string;
  name: string;
  isRunning: boolean;
}

export const machineDir = (stateDir: string, vmId: string) => join(stateDir, 'machines', vmId);

/** The prompt the tiny image shows: its hostname is the machine's name, made a hostname. */
export const promptOf = (vm: GameVm) => `${cloudHostname(vm.name.replace(/#.*$/, ''))}:~# `;

/** Resolves when the machine's screen shows its prompt. */
export function promptShown(stateDir: string, vm: GameVm, timeoutMs = 180_000): Promise<true> {
  const prompt = promptOf(vm);
  const qmpSocket = join(machineDir(stateDir, vm.id), 'qmp.sock');
  return until(
    `${prompt} on ${vm.name}`,
    async () => (await screenText(qmpSocket)).some((row) => row.includes(prompt)) || null,
    timeoutMs,
  );
}

/** Resolves when the machine's screen shows a row that includes `text`. */
export function screenShows(
  stateDir: string,
  vm: GameVm,
  text: string,
  timeoutMs = 300_000,
): Promise<true> {
  const qmpSocket = join(machineDir(stateDir, vm.id), 'qmp.sock');
  return until(
    `${text} on ${vm.name}`,
    async () => (await screenText(qmpSocket)).some((row) => row.includes(text)) || null,
    timeoutMs,
  );
}

/**
 * The machine's serial port, read from now on: `waitFor(pattern)` resolves with the first match
 * in what it has printed since. Connect right after the launch: what the port printed before
 * anyone listened is gone.
 */
export function serialOf(stateDir: string, vm: GameVm) {
  const socket = connect(join(machineDir(stateDir, vm.id), 'serial.sock'));
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => {
    text += chunk;
  });
  socket.on('error', () => undefined);
  return {
    waitFor: (pattern: RegExp, timeoutMs = 300_000) =>
      until(
        `${String(pattern)} on ${vm.name}'s serial port`,
        async () => pattern.exec(text),
        timeoutMs,
      ),
    close: () => socket.destroy(),
  };
}

/** Resident memory of a machine's QEMU process, MiB. */
export async function rssMiB(stateDir: string, vmId: string): Promise<number> {
  const pid = (await readFile(join(machineDir(stateDir, vmId), 'qemu.pid'), 'utf8')).trim();
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1];
  if (!kb) throw new Error(`no VmRSS for QEMU process ${pid}`);
  return Number(kb) / 1024;
}

/** Machines of the state folder: their folders, and their live QEMU processes. */
export async function machinesLeft(stateDir: string): Promise<{ dirs: number; qemu: number }> {
  const machines = join(stateDir, 'machines');
  const dirs = (await readdir(machines).catch(() => [])).length;
  const qemu = (await processesUnder(machines)).length;
  return { dirs, qemu };
}
