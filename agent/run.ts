import { spawn } from 'node:child_process';

// Runs one trigger as a process, as the reference agent does: the first word is the executable,
// the others its arguments (no shell: a command never gains pipes or expansions it did not
// ask for). `noop` is refused. The process gets a time limit; what it wrote is the answer.

export interface Outcome {
  result: string;
  error: string;
}

/** The most of each stream kept (a dispatch answer is stored and shown in a console). */
const MAX_OUTPUT = 64 * 1024;

export function runTrigger(trigger: string, timeoutMs: number): Promise<Outcome> {
  const [command, ...args] = trigger.trim().split(/\s+/);
  if (!command || command === 'noop') {
    return Promise.resolve({ result: '', error: `not run: '${trigger}'` });
  }
  return new Promise((resolve) => {
    let stdout = '';
    let stderr = '';
    let settled = false;
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (kept: string, chunk: Buffer) =>
      kept.length >= MAX_OUTPUT ? kept : (kept + chunk.toString('utf8')).slice(0, MAX_OUTPUT);
    child.stdout.on('data', (chunk: Buffer) => (stdout = keep(stdout, chunk)));
    child.stderr.on('data', (chunk: Buffer) => (stderr = keep(stderr, chunk)));
    const finish = (extra: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ result: stdout, error: extra ? `${stderr}${stderr ? '\n' : ''}${extra}` : stderr });
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      finish(`time limit of ${Math.round(timeoutMs / 1000)} s reached: stopped`);
    }, timeoutMs);
    child.on('error', (err) => finish(`could not run '${command}': ${err.message}`));
    child.on('close', (code, signal) =>
      finish(code === 0 ? '' : code !== null ? `exit code ${code}` : `stopped by ${signal}`),
    );
  });
}
