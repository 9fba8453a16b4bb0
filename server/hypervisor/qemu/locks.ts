// One piece of work at a time per key: a machine's deploy, starts, stops and changes do not
// interleave, nor do two capacity checks. Work under different keys runs at once.

export type Serialized = <T>(key: string, work: () => Promise<T>) => Promise<T>;

export function createLocks(): { serialized: Serialized; idle(): Promise<void> } {
  const locks = new Map<string, Promise<unknown>>();
  return {
    async serialized<T>(key: string, work: () => Promise<T>): Promise<T> {
      const before = locks.get(key) ?? Promise.resolve();
      const next = before.then(work, work);
      const settled = next.catch(() => undefined);
      locks.set(key, settled);
      try {
        return await next;
      } finally {
        if (locks.get(key) === settled) locks.delete(key);
      }
    },
    /** Resolves once the work under way has ended. */
    async idle() {
      await Promise.all([...locks.values()]);
    },
  };
}
