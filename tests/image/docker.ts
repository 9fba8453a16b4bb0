import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

// The Docker engine and Compose as `npm run check:image` uses them: through their command-line
// clients, as a person would.

export const ROOT = join(import.meta.dirname, '../..');
/** Where the check keeps what outlives a run: the engine's log, the stand-ins' root file systems. */
export const CACHE =
  process.env.TOPOPLAY_STANDIN_CACHE ??
  join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'topoplay', 'standins');

/** Runs `program` with `args`; its output, trimmed. Throws with its error output when it fails. */
function run(program: string, args: string[]): string {
  return execFileSync(program, args, {
    cwd: ROOT,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  }).trim();
}

export const docker = (args: string[]) => run('docker', args);

/** Runs docker with its output on this terminal (long steps: builds, the stand-ins). */
export function dockerLoud(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const run = spawnSync('docker', args, { cwd: ROOT, stdio: 'inherit', env });
  if (run.status !== 0) throw new Error(`docker ${args.join(' ')} exited with ${run.status}`);
}

const answers = (command: string, args: string[]) =>
  spawnSync(command, args, { stdio: 'ignore' }).status === 0;

export const engineAnswers = () => answers('docker', ['info']);

/**
 * Makes sure an engine answers: when none does and dockerd is installed (Debian's docker.io),
 * starts it with its log in CACHE. The started daemon's pid, to stop it at the end, or null when
 * one was running already. Throws when there is no engine to run.
 */
export async function ensureEngine(): Promise<number | null> {
  if (engineAnswers()) return null;
  if (!answers('sh', ['-c', 'command -v dockerd'])) {
    throw new Error(
      'No Docker engine answers, and dockerd is not installed (apt-get install docker.io).',
    );
  }
  mkdirSync(CACHE, { recursive: true });
  const log = join(CACHE, 'dockerd.log');
  const daemon = spawn('dockerd', [], {
    detached: true,
    stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')],
  });
  daemon.unref();
  console.log(`check:image: started dockerd (pid ${daemon.pid}, log ${log})`);
  const deadline = Date.now() + 60_000;
  while (!engineAnswers()) {
    if (daemon.exitCode !== null || Date.now() > deadline)
      throw new Error(`dockerd did not come up; see ${log}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return daemon.pid ?? null;
}

/**
 * Runs Compose with `args`: v2 (`docker compose`) where it is installed, else Debian's
 * docker-compose 1.x.
 */
export function compose(args: string[]): string {
  if (answers('docker', ['compose', 'version'])) return run('docker', ['compose', ...args]);
  if (answers('docker-compose', ['version'])) return run('docker-compose', args);
  throw new Error(
    'Neither `docker compose` nor docker-compose is installed (apt-get install docker-compose).',
  );
}
