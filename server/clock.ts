// The server's time: what every core service stores and compares times with, and what waits or
// takes time on its own (the sim driver's tasks, the console's machine checks). Passed in rather
// than read from the global clock and timers, so that a test can move time on by hand instead of
// waiting for it (tests/server/manualClock.ts).

/** A pending timer, as returned by `setTimeout`; only `clearTimeout` looks inside. */
export type Timer = object;

export interface Clock {
  now(): number;
  /** Calls `callback` once after `ms`; the timer does not keep the process alive. */
  setTimeout(callback: () => void, ms: number): Timer;
  clearTimeout(timer: Timer): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms) {
    // Background work: a server that is otherwise done (closed, or a test) is not kept running.
    return setTimeout(callback, ms).unref();
  },
  clearTimeout(timer) {
    clearTimeout(timer as NodeJS.Timeout);
  },
};

/** Calls `callback` every `ms` until the returned function is called. */
export function every(clock: Clock, ms: number, callback: () => void): () => void {
  let timer: Timer | null = null;
  const arm = () => {
    timer = clock.setTimeout(() => {
      arm();
      callback();
    }, ms);
  };
  arm();
  return () => {
    if (timer) clock.clearTimeout(timer);
    timer = null;
  };
}
