import { describe, expect, it } from 'vitest';
import { deployOfRow, deployTaskOfRow, isDeploying } from './deploys';
import { TASK_NAMES } from './tasks';

const row = (taskName: string) => ({
  taskId: 'task-1',
  taskName,
  taskStarted: 1_000,
  taskDuration: 2_000,
});

describe('sim deploys', () => {
  it('tells a deploy from the other tasks a row may carry', () => {
    expect(isDeploying(row(TASK_NAMES.deploy))).toBe(true);
    expect(isDeploying(row(TASK_NAMES.start))).toBe(false);
    expect(isDeploying({ ...row(TASK_NAMES.deploy), taskId: '' })).toBe(false);
  });

  it('restores a stored deploy as copying, its progress from the clock', () => {
    expect(deployOfRow(row(TASK_NAMES.deploy), 2_000).value).toBe('copying');
    expect(deployTaskOfRow(row(TASK_NAMES.deploy), 2_000)).toEqual({
      id: 'task-1',
      name: 'deploying',
      progress: 50,
      started: 1_000,
    });
    expect(deployTaskOfRow(row(TASK_NAMES.deploy), 500)?.progress).toBe(0);
  });
});
