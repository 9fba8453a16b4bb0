import type { ChildProcess } from 'node:child_process';

// What the benchmarks' orchestrators share: talking to their child processes, free ports, and
// percentiles. Kept apart from the server code, which only the server processes load.

/** The child's next IPC message; rejects if it exits first. */
export function nextMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`child exited with ${code}`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as T);
    });
  });
}

// Ports as the server tests take them (below the range outgoing connections use).
export { freePort } from '../server/ports';

/** The p-th percentile of sorted samples (nearest rank). */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN;
