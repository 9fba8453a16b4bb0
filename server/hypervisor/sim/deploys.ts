import { deployMachine, deployTaskOf, type DeploySnapshot } from '../deploy';
import type { MachineTask } from '../types';
import type { SimMachineRow } from './port';
import { progressOf, TASK_NAMES } from './tasks';

// The sim's deploy goes through the deploy machine (../deploy.ts) as one timed step. Its disks are
// linked to the template's, so it copies nothing of its own: it is copying for the deploy's
// duration (TASK_MS.deploy at the driver's speed), then it is configured, started when its
// template says so, and deployed in one go (at speed 0, inside the call). The step is kept on the machine's row (its task
// fields), not in an actor, so that a deploy outlives a restart and every process sharing the
// store sees it: the deploy is restored from the row whenever the machine is read.

type TaskFields = Pick<SimMachineRow, 'taskId' | 'taskName' | 'taskStarted' | 'taskDuration'>;

/** Whether the task on a row is the machine's deploy. */
export const isDeploying = (row: TaskFields): boolean =>
  row.taskId !== '' && row.taskName === TASK_NAMES.deploy;

/** The deploy a row stands for at `now`: copying, its progress from the clock. */
export function deployOfRow(row: TaskFields, now: number): DeploySnapshot {
  return deployMachine.resolveState({
    value: 'copying',
    context: {
      taskId: row.taskId,
      started: row.taskStarted,
      method: 'copy',
      ahead: null,
      // As every sim task's: 100 once due, while the row still waits for its end to be written.
      progress: progressOf(row.taskStarted, row.taskDuration, now),
      error: null,
    },
  });
}

/** The task a deploying row's machine shows at `now`. */
export const deployTaskOfRow = (row: TaskFields, now: number): MachineTask | null =>
  deployTaskOf(deployOfRow(row, now));
