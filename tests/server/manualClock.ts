import type { Clock, Timer } from '../../server/clock';

// A clock that moves only when a test moves it: a 3-second task ends when the test says that
// 3 seconds have passed, at once and on a machine of any speed. Hand it to the server
// (`startTestServer({ clock })`) or to a driver, then `advance` it and wait for what should follow
// (`vi.waitFor`, `expect.poll`, a hub event).

interface Pending {
  due: number;
  /** Timers due at the same moment fire in the order they were set. */
  order: number;
  callback: () => void;
}

export interface ManualClock extends Clock {
  /**
   * Moves time on by `ms`, calling every timer that falls due on the way, in order, each with
   * `now()` at its due time; timers set by those callbacks fire too if they fall due in time.
   */
  advance(ms: number): void;
  /** How many timers are waiting: a test can wait until the code under test has set one. */
  pending(): number;
}

export function createManualClock(start = Date.now()): ManualClock {
  let now = start;
  let order = 0;
  const timers = new Set<Pending>();

  const next = (until: number): Pending | undefined => {
    let first: Pending | undefined;
    for (const t of timers) {
      if (t.due > until) continue;
      if (!first || t.due < first.due || (t.due === first.due && t.order < first.order)) first = t;
    }
    return first;
  };

  return {
    now: () => now,
    setTimeout(callback, ms) {
      const timer: Pending = { due: now + Math.max(0, ms), order: order++, callback };
      timers.add(timer);
      return timer;
    },
    clearTimeout(timer: Timer) {
      timers.delete(timer as Pending);
    },
    advance(ms) {
      const until = now + ms;
      for (let t = next(until); t; t = next(until)) {
        timers.delete(t);
        now = t.due;
        t.callback();
      }
      now = until;
    },
    pending: () => timers.size,
  };
}
