import { messageOf } from './errors';
import type { Timers } from './timers';

// Worker tasks of the PVE API simulator. PVE answers a long operation (clone, start, stop,
// destroy, SDN reload...) with the UPID of a worker task at once, and its effect lands when the
// worker ends; callers poll the task's status and read its log. Here a task is a timer: its
// effect runs when the time is up, and an error thrown there fails the task with that text as
// its exit status, which is how PVE reports a worker's failure.

export interface SimTask {
  upid: string;
  node: string;
  pid: number;
  pstart: number;
  starttime: number;
  type: string;
  id: string;
  user: string;
  status: 'running' | 'stopped';
  /** 'OK' or the error text, once stopped. */
  exitstatus?: string;
  lines: string[];
}

export interface TaskSpec {
  node: string;
  /** PVE's worker type: qmclone, qmstart, qmdestroy, reloadnetworkall... */
  type: string;
  /** The object it works on (a vmid), '' for none. */
  id: string;
  user: string;
  /** How long it runs; null: until `end` is called on its handle (a console proxy). */
  durationMs: number | null;
  /** Runs at once, inside the API call; an error fails the task right away. */
  begin?: (log: (line: string) => void) => void;
  /** Progress lines logged at even steps while it runs, the last one as it ends. */
  progress?: { steps: number; line: (fraction: number) => string };
  /** The effect, when the time is up; an error fails the task with its message. */
  finish?: (log: (line: string) => void) => void;
  /** Runs however the task ended, after `finish`: releases what the task held. */
  always?: () => void;
}

export interface TaskHandle {
  upid: string;
  /** Ends a running task now, failed when an error text is given. */
  end(error?: string): void;
}

export interface TaskRunner {
  start(spec: TaskSpec): TaskHandle;
  get(upid: string): SimTask | undefined;
}

const hex8 = (n: number): string => n.toString(16).toUpperCase().padStart(8, '0');

export function formatUpid(task: Omit<SimTask, 'upid' | 'status' | 'lines'>): string {
  return `UPID:${task.node}:${hex8(task.pid)}:${hex8(task.pstart)}:${hex8(task.starttime)}:${task.type}:${task.id}:${task.user}:`;
}

export function createTaskRunner(timers: Timers): TaskRunner {
  const tasks = new Map<string, SimTask>();
  // Fake worker pids and process start ticks: increasing, so every UPID is distinct.
  let nextPid = 0x2a000;

  const start = (spec: TaskSpec): TaskHandle => {
    const pid = nextPid++;
    const fields = {
      node: spec.node,
      pid,
      pstart: 0x1000000 + pid,
      starttime: Math.floor(Date.now() / 1000),
      type: spec.type,
      id: spec.id,
      user: spec.user,
    };
    const task: SimTask = { ...fields, upid: formatUpid(fields), status: 'running', lines: [] };
    tasks.set(task.upid, task);
    const log = (line: string) => {
      if (task.status === 'running') task.lines.push(line);
    };
    const cancels: Array<() => void> = [];

    const stop = (error?: string) => {
      if (task.status === 'stopped') return;
      for (const cancel of cancels) cancel();
      task.lines.push(error === undefined ? 'TASK OK' : `TASK ERROR: ${error}`);
      task.exitstatus = error ?? 'OK';
      task.status = 'stopped';
      spec.always?.();
    };

    const complete = () => {
      if (task.status === 'stopped') return;
      try {
        if (spec.progress) log(spec.progress.line(1));
        spec.finish?.(log);
        stop();
      } catch (error) {
        stop(messageOf(error));
      }
    };

    try {
      spec.begin?.(log);
    } catch (error) {
      stop(messageOf(error));
      return { upid: task.upid, end: () => undefined };
    }

    if (spec.durationMs !== null) {
      const duration = spec.durationMs;
      const progress = spec.progress;
      for (let i = 1; progress && i < progress.steps; i++) {
        const fraction = i / progress.steps;
        cancels.push(timers.after(duration * fraction, () => log(progress.line(fraction))));
      }
      cancels.push(timers.after(duration, complete));
    }

    return {
      upid: task.upid,
      end: (error) => (error === undefined ? complete() : stop(error)),
    };
  };

  return { start, get: (upid) => tasks.get(upid) };
}
