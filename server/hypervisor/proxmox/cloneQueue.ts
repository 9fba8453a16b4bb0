import { realClock } from '../../clock';

// Clones wait their turn. PVE locks a VM template's config while it is being cloned, and a second
// clone of it meanwhile waits a few seconds and then fails ("can't lock file
// '/var/lock/qemu-server/lock-9000.conf' - got timeout"): fifty players launching at once would
// see most launches fail. So this driver runs one clone (or any other job that locks a base image)
// at a time per key, the base image and the storage it goes to, in the order they came; a job
// that still meets a lock (held by another server or an admin) backs off and tries again instead
// of failing. While a job waits, it is told how many are ahead of it, for its machine's progress.

export interface CloneQueueOptions {
  /** Whether an error means a lock was busy, so that trying again later may work. */
  isBusy(error: unknown): boolean;
  /** Injected for tests. */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
  /** The first back-off; it doubles on each busy try up to maxDelayMs. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** After this long of busy tries, the job fails with its last error. */
  giveUpMs?: number;
  now?: () => number;
}

export interface CloneQueue {
  /**
   * Runs the job once every job queued before it under the same key has ended; `waiting` hears
   * how many are ahead each time that changes (0 when it runs).
   */
  run<T>(key: string, job: () => Promise<T>, waiting?: (ahead: number) => void): Promise<T>;
  /** Jobs queued or running under a key. */
  length(key: string): number;
}

interface Lane {
  /** Jobs not yet ended, in order; the first one runs. */
  entries: Array<{ waiting?: (ahead: number) => void }>;
  tail: Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createCloneQueue(options: CloneQueueOptions): CloneQueue {
  const sleep = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? realClock.now;
  const base = options.baseDelayMs ?? 250;
  const max = options.maxDelayMs ?? 5_000;
  const giveUp = options.giveUpMs ?? 15 * 60_000;
  const lanes = new Map<string, Lane>();

  /** The job, tried again after a back-off with jitter while the lock it needs is busy. */
  async function patiently<T>(job: () => Promise<T>): Promise<T> {
    const started = now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await job();
      } catch (error) {
        if (!options.isBusy(error) || now() - started > giveUp) throw error;
        const delay = Math.min(max, base * 2 ** attempt);
        await sleep(delay / 2 + random() * (delay / 2));
      }
    }
  }

  const tell = (lane: Lane) =>
    lane.entries.forEach((entry, ahead) => {
      entry.waiting?.(ahead);
    });

  return {
    run<T>(key: string, job: () => Promise<T>, waiting?: (ahead: number) => void): Promise<T> {
      const lane = lanes.get(key) ?? { entries: [], tail: Promise.resolve() };
      lanes.set(key, lane);
      const entry = { waiting };
      lane.entries.push(entry);
      waiting?.(lane.entries.length - 1);
      const result = lane.tail.then(() => patiently(job));
      const done = () => {
        lane.entries.splice(lane.entries.indexOf(entry), 1);
        if (lane.entries.length === 0) lanes.delete(key);
        else tell(lane);
      };
      lane.tail = result.then(done, done);
      return result;
    },
    length: (key) => lanes.get(key)?.entries.length ?? 0,
  };
}
