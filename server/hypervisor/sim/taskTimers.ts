// The sim's tasks in one process: a task is written on its machine's row and ends when it is due,
// either when someone reads the machine (settle) or when this process's timer for it fires; the
// process whose UPDATE ends it announces the machine as the task left it.

import { randomUUID } from 'node:crypto';
import type { Clock, Timer } from '../../clock';
import { DriverError, type Machine, type PowerState } from '../types';
import { toMachine } from './machine';
import type { SimMachineRow, SimMachineStore } from './port';
import { isDue, scaled, TASK_MS, TASK_NAMES, type TaskKind } from './tasks';

/** A machine id in the reference's "n" format: 32 lowercase hex characters. */
export const newId = (): string => randomUUID().replace(/-/g, '');

export interface SimTaskDeps {
  store: SimMachineStore;
  clock: Clock;
  speed: number;
  announce(machine: Machine): void;
  /** Work that outlives a call; the driver's close() waits for it. */
  track(work: Promise<unknown>): void;
  isClosed(): boolean;
}

export function createSimTasks({ store, clock, speed, announce, track, isClosed }: SimTaskDeps) {
  // One timer per pending task this process knows about, keyed by task id.
  const timers = new Map<string, Timer>();

  function cancelTimer(taskId: string): void {
    const timer = timers.get(taskId);
    if (timer) clock.clearTimeout(timer);
    timers.delete(taskId);
  }

  /**
   * Ends a due task; the winner of the UPDATE announces the machine as the task left it (a
   * machine read now may already be running the next operation, which announces itself).
   */
  async function finishDue(id: string, taskId: string): Promise<SimMachineRow | undefined> {
    cancelTimer(taskId);
    const finished = await store.finishTask(id, taskId);
    if (!finished) return store.byId(id);
    announce(toMachine(finished, clock.now()));
    return finished;
  }

  function schedule(row: SimMachineRow): void {
    if (isClosed() || !row.taskId || timers.has(row.taskId)) return;
    const delay = Math.max(0, row.taskStarted + row.taskDuration - clock.now());
    // The clock's timers do not keep a process alive that is otherwise done.
    const timer = clock.setTimeout(() => {
      timers.delete(row.taskId);
      track(finishDue(row.id, row.taskId));
    }, delay);
    timers.set(row.taskId, timer);
  }

  /** The row as it is now: a due task is ended, a pending one has a timer here. */
  async function settle(row: SimMachineRow): Promise<SimMachineRow | undefined> {
    if (!row.taskId) return row;
    if (isDue(row.taskStarted, row.taskDuration, clock.now())) return finishDue(row.id, row.taskId);
    schedule(row);
    return row;
  }

  async function settled(rows: SimMachineRow[]): Promise<SimMachineRow[]> {
    const now = await Promise.all(rows.map(settle));
    return now.filter((r): r is SimMachineRow => r !== undefined);
  }

  /** The task fields of a new task; the row carries them until the task ends. */
  function newTask(kind: TaskKind, outcome: PowerState) {
    return {
      taskId: newId(),
      taskName: TASK_NAMES[kind],
      taskStarted: clock.now(),
      taskDuration: scaled(TASK_MS[kind], speed),
      taskOutcome: outcome,
    };
  }

  /** After a task was written: at speed 0 it ends inside the call, otherwise on its timer. */
  async function launched(row: SimMachineRow): Promise<Machine> {
    if (row.taskDuration <= 0) {
      const ended = await finishDue(row.id, row.taskId);
      if (!ended) throw new DriverError('not-found', 'no such machine');
      return toMachine(ended, clock.now());
    }
    schedule(row);
    return toMachine(row, clock.now());
  }

  /** The row once a task still running on it has ended, silently: the next task announces. */
  async function supersede(row: SimMachineRow): Promise<SimMachineRow> {
    if (!row.taskId) return row;
    cancelTimer(row.taskId);
    await store.finishTask(row.id, row.taskId);
    const fresh = await store.byId(row.id);
    if (!fresh) throw new DriverError('not-found', 'no such machine');
    return fresh;
  }

  /** No timer fires any more (the driver closes). */
  function stopTimers(): void {
    for (const timer of timers.values()) clock.clearTimeout(timer);
    timers.clear();
  }

  return {
    cancelTimer,
    finishDue,
    schedule,
    settle,
    settled,
    newTask,
    launched,
    supersede,
    stopTimers,
  };
}
