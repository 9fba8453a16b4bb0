import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../../../server/app';
import { loadConfig } from '../../../server/config';
import { freePort, SEED_PASSWORD } from '../harness';

// The real server (`node --import tsx server/main.ts`) as a child process that a test may kill
// with SIGKILL, and the same server started again on the same data folder and database.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** What server/main.ts logs once it listens. */
const READY = 'Topoplay is running at';

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** Resolves once the process has exited, however it ended. */
  exited: Promise<void>;
}

export interface ServerStore {
  dataDir: string;
  database: { url: string; schema?: string };
}

/** The settings of a server on this store and port, as its environment. */
function serverEnv(store: ServerStore, port: number): Record<string, string> {
  const url = `http://127.0.0.1:${port}`;
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    TOPOPLAY_URL: url,
    TOPOPLAY_DATA: store.dataDir,
    TOPOPLAY_SPA: `${store.dataDir}/no-spa`,
    TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
    DATABASE_URL: store.database.url,
    DATABASE_SCHEMA: store.database.schema ?? '',
    REDIS_URL: '',
    JANITOR_ENABLED: 'false',
    SIM_SPEED: '0',
    // The test signs in and submits from 127.0.0.1 far more than one client would.
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_CREDENTIALS: '0',
    // `info`, so that the line saying it listens is written.
    LOG_LEVEL: 'info',
  };
}

/** Starts the server and resolves once it listens (it logs so), or rejects if it exits first. */
export async function startServerProcess(
  store: ServerStore,
  port?: number,
): Promise<ServerProcess> {
  const listenOn = port ?? (await freePort());
  const url = `http://127.0.0.1:${listenOn}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    cwd: ROOT,
    env: { ...process.env, ...serverEnv(store, listenOn) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // Read until it listens (kept for the error if it dies first), then drained unread, so that a
  // chatty server never blocks on a full pipe.
  let output = '';
  let listening = false;
  const collect = (chunk: Buffer) => {
    if (!listening) output += chunk.toString();
  };
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      collect(chunk);
      if (!listening && output.includes(READY)) {
        listening = true;
        resolve();
      }
    });
    child.stderr?.on('data', collect);
    void exited.then(() => reject(new Error(`server exited before listening:\n${output}`)));
  });
  output = '';
  return { url, child, exited };
}

/** SIGKILL: no shutdown hook runs, as when the machine or the container dies. */
export async function kill9(server: ServerProcess): Promise<void> {
  server.child.kill('SIGKILL');
  await server.exited;
}

export interface InProcessServer {
  url: string;
  close(): Promise<void>;
}

/**
 * The server started again after a crash, with the same settings and the same start-up
 * (server/serve.ts: buildApp, then listen) as the process, but in this one: the server's modules
 * are loaded here already, which spares a second process loading and transpiling them all.
 */
export async function startServerInProcess(
  store: ServerStore,
  port: number,
): Promise<InProcessServer> {
  const config = loadConfig({ ...process.env, ...serverEnv(store, port) });
  const { app, close } = await buildApp(config, { logger: false });
  await app.listen({ port: config.port, host: config.host });
  return { url: config.publicUrl, close };
}
