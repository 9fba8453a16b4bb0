import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// What the release suites share: builds, a server process started the way an operator starts it,
// and its port seen from outside.

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** What server/serve.ts logs once it listens. */
const READY = 'Topoplay is running at';

/** `vite build` with these arguments, in the repository; throws with Vite's output if it fails. */
export function viteBuild(args: string[]): void {
  const vite = join(ROOT, 'node_modules', 'vite', 'bin', 'vite.js');
  const run = spawnSync(process.execPath, [vite, 'build', ...args, '--logLevel', 'warn'], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  if (run.status !== 0)
    throw new Error(`vite build ${args.join(' ')}:\n${run.stdout}${run.stderr}`);
}

/**
 * An environment in which `npm` and `node` are this Node.js (npm's script runs `node`, found on
 * PATH), whatever the shell that started the tests had first.
 */
export function nodeEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, PATH: `${dirname(process.execPath)}:${process.env.PATH}`, ...env };
}

export interface Started {
  child: ChildProcess;
  /** Everything the process wrote so far, stdout and stderr. */
  output(): string;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Runs a command and resolves once the server it starts listens, or rejects if it exits first. */
export async function startServer(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<Started> {
  const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => resolve(code)),
  );
  await new Promise<void>((resolve, reject) => {
    const listening = () => {
      if (!output.includes(READY)) return;
      child.stdout?.off('data', listening);
      resolve();
    };
    child.stdout?.on('data', listening);
    void exited.then(() => reject(new Error(`server exited before listening:\n${output}`)));
  });
  return { child, output: () => output, exited };
}

/** Whether a TCP connection to the loopback port is refused (nothing listens there). */
export function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
  });
}

/** Whether a new server can listen on the loopback port, which a process still holding it prevents. */
export function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
