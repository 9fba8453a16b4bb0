import type { PveTaskStatus, WaitTaskOptions } from './clientTypes';
import type { PveConnection } from './connection';
import { LOCK_TEXT, PveError, type PveErrorKind } from './pveErrors';

// PVE's tasks: what a task id (UPID) says, and waiting for a task to stop, with its progress read
// from the task log as clones and disk moves write it.

export const DEFAULT_TASK_INTERVAL_MS = 1_000;
/** Task log lines read per request. */
const LOG_PAGE = 500;

const UPID =
  /^UPID:([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?):([0-9A-Fa-f]{8}):([0-9A-Fa-f]{8,9}):([0-9A-Fa-f]{8}):([^:\s]+):([^:\s]*):([^:\s]+):$/;

/** The parts of a task id `UPID:{node}:{pid}:{pstart}:{starttime}:{type}:{id}:{user}:`;
 *  startTime in epoch seconds. */
export function parseUpid(upid: string): {
  node: string;
  type: string;
  id: string;
  user: string;
  startTime: number;
} {
  const match = UPID.exec(upid);
  if (!match) throw new PveError('invalid', `not a PVE task id: ${upid}`);
  const [, node = '', , , start = '', type = '', id = '', user = ''] = match;
  return { node, type, id, user, startTime: parseInt(start, 16) };
}

/** A UPID as a path segment: it only holds characters a path may carry, but be safe. */
const pathSegment = (value: string): string =>
  encodeURIComponent(value).replace(/%3A/gi, ':').replace(/%40/g, '@').replace(/%21/g, '!');

/** The success of a task's exit status: 'OK', or 'WARNINGS: n' (it ended, with warnings). */
const taskSucceeded = (exitstatus: string): boolean =>
  exitstatus === 'OK' || exitstatus.startsWith('WARNINGS');

/** The last "(42.00%)" in task log lines, as clones and disk moves write them. */
function lastPercent(lines: readonly string[]): number | null {
  let found: number | null = null;
  for (const line of lines) {
    for (const match of line.matchAll(/\((\d{1,3}(?:\.\d+)?)%\)/g)) {
      found = Math.min(100, Math.max(0, Number(match[1])));
    }
  }
  return found;
}

interface LogLine {
  n: number;
  t: string;
}

/** New task log lines after `start`, and where the next read starts. */
async function readLog(connection: PveConnection, taskPath: string, start: number) {
  const lines = await connection.call<LogLine[]>('GET', `${taskPath}/log`, {
    start,
    limit: LOG_PAGE,
  });
  // PVE answers an empty log with one made-up line "no content" numbered 1; it is not a line.
  const real = lines.length === 1 && lines[0]!.t === 'no content' && start === 0 ? [] : lines;
  const next = real.reduce((last, line) => Math.max(last, line.n), start);
  return { texts: real.map((line) => line.t), next };
}

/** Resolves for a task that ended well; otherwise the exit status as a PveError. */
function settleTask(taskPath: string, status: PveTaskStatus): void {
  const exit = status.exitstatus ?? '';
  if (taskSucceeded(exit)) return;
  const message = exit || 'the task stopped without an exit status';
  const kind: PveErrorKind = LOCK_TEXT.test(message) ? 'locked' : 'task-failed';
  throw new PveError(kind, message, { path: taskPath, reason: message });
}

/** Polls a task's status every `taskIntervalMs` (unless told otherwise) until it stops. */
export async function waitTask(
  connection: PveConnection,
  taskIntervalMs: number,
  upid: string,
  waitOptions: WaitTaskOptions = {},
): Promise<void> {
  const { node } = parseUpid(upid);
  const taskPath = `/nodes/${pathSegment(node)}/tasks/${pathSegment(upid)}`;
  const interval = waitOptions.intervalMs ?? taskIntervalMs;
  // Real time, as the client's own sleeps: the PVE client is built apart from the driver's clock.
  const deadline =
    waitOptions.timeoutMs === undefined ? Infinity : Date.now() + waitOptions.timeoutMs;
  let logStart = 0;
  let reported: number | null = null;
  for (;;) {
    const status = await connection.call<PveTaskStatus>('GET', `${taskPath}/status`);
    if (waitOptions.onProgress) {
      // Progress is for show: a log that cannot be read must not fail the wait.
      const read = await readLog(connection, taskPath, logStart).catch(() => null);
      const percent = read ? lastPercent(read.texts) : null;
      if (read) logStart = read.next;
      if (percent !== null && percent !== reported) {
        reported = percent;
        waitOptions.onProgress(percent);
      }
    }
    if (status.status === 'stopped') return settleTask(taskPath, status);
    if (Date.now() >= deadline) {
      throw new PveError('timeout', `PVE task ${upid} still runs`, { path: taskPath });
    }
    await connection.sleep(interval);
  }
}
