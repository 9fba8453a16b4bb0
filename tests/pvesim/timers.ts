// The PVE API simulator's timers, kept in one place so that closing the simulator ends every one
// of them (tasks, lock waits, VNC ticket expiry) and a test run leaves nothing behind.

export interface Timers {
  /** Runs `fn` once after `ms`; returns the cancel. */
  after(ms: number, fn: () => void): () => void;
  /** Cancels every timer still pending. */
  clear(): void;
}

export function createTimers(): Timers {
  const pending = new Set<NodeJS.Timeout>();
  return {
    after(ms, fn) {
      const timer = setTimeout(() => {
        pending.delete(timer);
        fn();
      }, ms);
      pending.add(timer);
      return () => {
        clearTimeout(timer);
        pending.delete(timer);
      };
    },
    clear() {
      for (const timer of pending) clearTimeout(timer);
      pending.clear();
    },
  };
}
