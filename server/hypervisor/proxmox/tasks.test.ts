import { describe, expect, it } from 'vitest';
import { isLockError, parseUpid, PveError } from './client';
import { failure, useFakePve } from './testing/fakePve';

// The PVE client's task waiting against a local HTTPS server (testing/fakePve.ts): what a task id
// says, polling a task until it stops, its progress from the task log, and how it ends.

const UPID = 'UPID:pve1:0000A1B2:0012C3D4:65A1B2C3:qmclone:9000:topoplay@pve!driver:';

const fake = useFakePve();
const { sleeps, client } = fake;

describe('tasks', () => {
  it('parses a UPID', () => {
    expect(parseUpid(UPID)).toEqual({
      node: 'pve1',
      type: 'qmclone',
      id: '9000',
      user: 'topoplay@pve!driver',
      startTime: 0x65a1b2c3,
    });
    expect(() => parseUpid('UPID:pve1:nonsense')).toThrow(PveError);
  });

  /** A fake task: its status and log advance by one step at each status poll. */
  function serveTask(steps: { lines: string[]; exitstatus?: string }[]) {
    let step = -1;
    const logStarts: number[] = [];
    fake.handler = (request) => {
      const current = steps[Math.min(step, steps.length - 1)]!;
      if (request.path === `/api2/json/nodes/pve1/tasks/${UPID}/status`) {
        step += 1;
        const now = steps[Math.min(step, steps.length - 1)]!;
        const stopped = now.exitstatus !== undefined;
        return {
          body: {
            data: {
              upid: UPID,
              node: 'pve1',
              type: 'qmclone',
              status: stopped ? 'stopped' : 'running',
              ...(stopped ? { exitstatus: now.exitstatus } : {}),
            },
          },
        };
      }
      if (request.path === `/api2/json/nodes/pve1/tasks/${UPID}/log`) {
        const start = Number(request.query.get('start'));
        logStarts.push(start);
        const lines = current.lines.map((t, i) => ({ n: i + 1, t })).slice(start);
        return { body: { data: current.lines.length === 0 ? [{ n: 1, t: 'no content' }] : lines } };
      }
      return { status: 501, message: 'not implemented' };
    };
    return { logStarts };
  }

  it('polls until the task stops and reports the percentages of its log', async () => {
    const lines = [
      'create full clone of drive scsi0 (local-lvm:base-9000-disk-0)',
      'transferred 1.0 GiB of 4.0 GiB (25.00%)',
      'transferred 3.0 GiB of 4.0 GiB (75.00%)',
      'transferred 4.0 GiB of 4.0 GiB (100.00%)',
      'TASK OK',
    ];
    const { logStarts } = serveTask([
      { lines: [] },
      { lines: lines.slice(0, 2) },
      { lines: lines.slice(0, 3) },
      { lines, exitstatus: 'OK' },
    ]);
    const progress: number[] = [];
    await client().waitTask(UPID, { intervalMs: 250, onProgress: (p) => progress.push(p) });
    expect(progress).toEqual([25, 75, 100]);
    // Each read starts past the lines already read; the made-up "no content" line is not one.
    expect(logStarts).toEqual([0, 0, 2, 3]);
    expect(sleeps).toEqual([250, 250, 250]);
  });

  it("polls at the client's task interval unless told otherwise", async () => {
    serveTask([{ lines: [] }, { lines: [], exitstatus: 'OK' }]);
    await client({ taskIntervalMs: 40 }).waitTask(UPID);
    expect(sleeps).toEqual([40]);
  });

  it('rejects with the exit status of a failed task', async () => {
    serveTask([{ lines: [] }, { lines: ['error'], exitstatus: 'clone failed: out of space' }]);
    const error = await failure(client().waitTask(UPID, { intervalMs: 10 }));
    expect(error.kind).toBe('task-failed');
    expect(error.message).toBe('clone failed: out of space');
  });

  it('rejects a task that could not get its lock as kind locked', async () => {
    const exit = "can't lock file '/var/lock/qemu-server/lock-9000.conf' - got timeout";
    serveTask([{ lines: [], exitstatus: exit }]);
    const error = await failure(client().waitTask(UPID));
    expect(error.kind).toBe('locked');
    expect(isLockError(error)).toBe(true);
  });

  it('resolves for a task that ended with warnings', async () => {
    serveTask([{ lines: ['WARN: something'], exitstatus: 'WARNINGS: 1' }]);
    await expect(client().waitTask(UPID)).resolves.toBeUndefined();
  });

  it('gives up waiting after its timeout', async () => {
    serveTask([{ lines: [] }]);
    const error = await failure(client().waitTask(UPID, { timeoutMs: 0 }));
    expect(error.kind).toBe('timeout');
  });
});
