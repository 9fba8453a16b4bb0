// Sim tasks: an operation on a machine takes a while, as on a real hypervisor. A task is stored as
// its start and duration, so its progress is a function of the clock and survives restarts.

/** Realistic durations at speed 1, in milliseconds. */
export const TASK_MS = {
  deploy: 3_000,
  start: 1_500,
  stop: 1_500,
  save: 8_000,
  revert: 2_000,
  /** Per disk: copies run one after another. */
  diskCopy: 10_000,
} as const;

export type TaskKind = 'deploy' | 'start' | 'stop' | 'save' | 'revert';

/** The names the UI shows while a task runs (wire reference §2.5 VmTask.name). */
export const TASK_NAMES: Record<TaskKind, string> = {
  deploy: 'deploying',
  start: 'starting',
  stop: 'stopping',
  save: 'saving',
  revert: 'reverting',
};

/** A duration at the given speed; speed 0 makes every task finish at once. */
export function scaled(ms: number, speed: number): number {
  return speed > 0 ? Math.round(ms / speed) : 0;
}

export const isDue = (started: number, duration: number, now: number): boolean =>
  now >= started + duration;

/**
 * 0..100 from the clock: 100 only once the task is due, so a task that is still pending never
 * reads as complete; before its start (a queued disk copy) it reads 0.
 */
export function progressOf(started: number, duration: number, now: number): number {
  if (isDue(started, duration, now)) return 100;
  const elapsed = Math.max(0, now - started);
  return Math.min(99, Math.floor((elapsed * 100) / duration));
}
