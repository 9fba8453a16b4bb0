import { describe, expect, it, vi } from 'vitest';
import { createCloneQueue, type CloneQueueOptions } from './cloneQueue';

// The clone queue keeps PVE from refusing clones of a base image that is locked by another clone:
// jobs of one key run one at a time in order, jobs that still meet a lock back off and try again.
// Jobs here are promises the test settles by hand, and the back-off's sleep, random and clock are
// injected, so nothing waits for real time.

interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every job that can run now run: waits until the microtasks queued so far are done. */
const drain = () => new Promise<void>((resolve) => setImmediate(resolve));

/** What PVE answers while another clone holds a template's lock. */
class LockBusy extends Error {}

const isBusy = (error: unknown) => error instanceof LockBusy;

/** A queue whose back-off sleeps not at all and records each delay. */
function queueWithRecordedSleep(options: Partial<CloneQueueOptions> = {}) {
  const delays: number[] = [];
  const queue = createCloneQueue({
    isBusy,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 1,
    ...options,
  });
  return { queue, delays };
}

/** A job that meets a busy lock `busyTries` times, then returns `value`. */
function busyThen<T>(busyTries: number, value: T) {
  let tries = 0;
  const job = vi.fn(async () => {
    tries++;
    if (tries <= busyTries) throw new LockBusy(`lock busy (try ${tries})`);
    return value;
  });
  return job;
}

describe('clone queue order', () => {
  it('runs the jobs of one key one at a time, in the order they came', async () => {
    const { queue } = queueWithRecordedSleep();
    const started: string[] = [];
    const jobs = new Map(['a', 'b', 'c'].map((name) => [name, deferred<string>()]));
    const results = [...jobs].map(([name, job]) =>
      queue.run('9000@local', () => {
        started.push(name);
        return job.promise;
      }),
    );

    await vi.waitFor(() => expect(started).toEqual(['a']));
    await drain();
    expect(started).toEqual(['a']);

    jobs.get('a')!.resolve('A');
    await vi.waitFor(() => expect(started).toEqual(['a', 'b']));
    await drain();
    expect(started).toEqual(['a', 'b']);

    jobs.get('b')!.resolve('B');
    jobs.get('c')!.resolve('C');
    await expect(Promise.all(results)).resolves.toEqual(['A', 'B', 'C']);
    expect(started).toEqual(['a', 'b', 'c']);
  });

  it('runs jobs of different keys at the same time', async () => {
    const { queue } = queueWithRecordedSleep();
    const started: string[] = [];
    const first = deferred<void>();
    const second = deferred<void>();
    const done = Promise.all([
      queue.run('9000@local', () => {
        started.push('9000');
        return first.promise;
      }),
      queue.run('9001@local', () => {
        started.push('9001');
        return second.promise;
      }),
    ]);

    await vi.waitFor(() => expect([...started].sort()).toEqual(['9000', '9001']));
    first.resolve();
    second.resolve();
    await done;
  });

  it('tells a waiting job how many are ahead, down to 0 when it runs', async () => {
    const { queue } = queueWithRecordedSleep();
    const heard = new Map<string, number[]>();
    const jobs = new Map(['a', 'b', 'c'].map((name) => [name, deferred<void>()]));
    const results = [...jobs].map(([name, job]) => {
      heard.set(name, []);
      return queue.run(
        'key',
        () => job.promise,
        (ahead) => heard.get(name)!.push(ahead),
      );
    });
    expect(Object.fromEntries(heard)).toEqual({ a: [0], b: [1], c: [2] });
    expect(queue.length('key')).toBe(3);

    jobs.get('a')!.resolve();
    await vi.waitFor(() => expect(heard.get('c')).toEqual([2, 1]));
    expect(heard.get('b')).toEqual([1, 0]);
    expect(queue.length('key')).toBe(2);

    jobs.get('b')!.resolve();
    await vi.waitFor(() => expect(heard.get('c')).toEqual([2, 1, 0]));
    expect(queue.length('key')).toBe(1);

    jobs.get('c')!.resolve();
    await Promise.all(results);
    expect(queue.length('key')).toBe(0);
  });

  it('runs a job at once under a key whose jobs have all ended', async () => {
    const { queue } = queueWithRecordedSleep();
    await queue.run('key', async () => 'first');
    const heard: number[] = [];
    await expect(
      queue.run(
        'key',
        async () => 'again',
        (ahead) => heard.push(ahead),
      ),
    ).resolves.toBe('again');
    expect(heard).toEqual([0]);
  });
});

describe('clone queue back-off', () => {
  it('tries a job again after a back-off that doubles up to maxDelayMs', async () => {
    const { queue, delays } = queueWithRecordedSleep({ baseDelayMs: 100, maxDelayMs: 1_000 });
    const job = busyThen(6, 'cloned');

    await expect(queue.run('key', job)).resolves.toBe('cloned');
    expect(job).toHaveBeenCalledTimes(7);
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
  });

  it('jitters each delay between half of it and all of it', async () => {
    const options = { baseDelayMs: 100, maxDelayMs: 1_000 };
    const low = queueWithRecordedSleep({ ...options, random: () => 0 });
    const mid = queueWithRecordedSleep({ ...options, random: () => 0.5 });

    await low.queue.run('key', busyThen(3, 'x'));
    await mid.queue.run('key', busyThen(3, 'x'));
    expect(low.delays).toEqual([50, 100, 200]);
    expect(mid.delays).toEqual([75, 150, 300]);
  });

  it('keeps later jobs of the key waiting while a job backs off', async () => {
    const sleeps: Array<Deferred<void>> = [];
    const queue = createCloneQueue({
      isBusy,
      random: () => 1,
      sleep: () => {
        const sleep = deferred<void>();
        sleeps.push(sleep);
        return sleep.promise;
      },
    });
    const started: string[] = [];
    const first = queue.run('key', busyThen(1, 'first'));
    const second = queue.run('key', async () => {
      started.push('second');
      return 'second';
    });

    await vi.waitFor(() => expect(sleeps).toHaveLength(1));
    await drain();
    expect(started).toEqual([]);

    sleeps[0]!.resolve();
    await expect(Promise.all([first, second])).resolves.toEqual(['first', 'second']);
  });

  it('fails only the job whose error is not a busy lock, and runs the next one', async () => {
    const { queue, delays } = queueWithRecordedSleep();
    const failing = vi.fn(async () => {
      throw new Error('storage full');
    });
    const failed = queue.run('key', failing);
    const next = queue.run('key', async () => 'cloned');

    await expect(failed).rejects.toThrow('storage full');
    await expect(next).resolves.toBe('cloned');
    expect(failing).toHaveBeenCalledTimes(1);
    expect(delays).toEqual([]);
  });

  it('gives up after giveUpMs of busy tries with the last error, and runs the next job', async () => {
    let clock = 0;
    const delays: number[] = [];
    const queue = createCloneQueue({
      isBusy,
      random: () => 1,
      baseDelayMs: 100,
      maxDelayMs: 400,
      giveUpMs: 1_000,
      now: () => clock,
      sleep: async (ms) => {
        delays.push(ms);
        clock += ms;
      },
    });
    const job = busyThen(Number.POSITIVE_INFINITY, 'never');
    const gaveUp = queue.run('key', job);
    const next = queue.run('key', async () => 'cloned');

    // Busy at 0, 100, 300 and 700 ms: still within 1 s, so it sleeps; busy at 1100 ms: it ends.
    await expect(gaveUp).rejects.toThrow('lock busy (try 5)');
    expect(delays).toEqual([100, 200, 400, 400]);
    expect(job).toHaveBeenCalledTimes(5);
    await expect(next).resolves.toBe('cloned');
  });
});
