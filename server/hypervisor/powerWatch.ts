// Watching power states, the same for every driver that needs it: a machine that stops on its
// own (a guest shutdown, a process that died) is found by the driver's poll, which runs while
// anyone listens to the driver's events: from the first subscribe to the last unsubscribe, or
// to close. The poll announces what changed through the driver's listeners.

/** A driver's look at its machines' power states (DriverBackend.powerPoll). */
export interface PowerPoll {
  /** One look at the power states, announcing the machines that changed on their own. */
  check(): Promise<void>;
  /** Watching begins (again): what an earlier watch saw is forgotten. */
  begin?(): void;
  /** How often the poll looks, in ms. */
  everyMs: number;
  /** A look that failed; the next turn looks again. */
  failed(error: unknown): void;
}

export interface PowerWatch {
  /** Watches until the function returned is called. */
  watch(): () => void;
  /** No more watching, whoever listens. */
  close(): void;
}

export function createPowerWatch(poll: PowerPoll): PowerWatch {
  let watchers = 0;
  let timer: NodeJS.Timeout | null = null;
  let checking = false;
  let closed = false;

  // One look at a time: a slow look is not overtaken by the next turn's.
  const look = (): void => {
    if (checking) return;
    checking = true;
    poll
      .check()
      .catch((error: unknown) => poll.failed(error))
      .finally(() => {
        checking = false;
      });
  };
  const stop = (): void => {
    if (timer) clearInterval(timer);
    timer = null;
  };

  return {
    watch() {
      if (closed) return () => undefined;
      watchers++;
      if (!timer) {
        poll.begin?.();
        timer = setInterval(look, poll.everyMs);
        timer.unref();
        look();
      }
      let ended = false;
      return () => {
        if (ended || closed) return;
        ended = true;
        watchers--;
        if (watchers === 0) stop();
      };
    },
    close() {
      closed = true;
      watchers = 0;
      stop();
    },
  };
}
