// Calls that arrive together, as one statement. On PostgreSQL every statement is a socket write
// that wakes a backend, a parse and a plan, and outside a transaction a commit; when a thousand
// players start a lab at once, the server spent a third of its time in those writes and the
// database in as many wake-ups. A batcher collects the calls made while the event loop handles
// one round of I/O (it runs them at setImmediate, once every request read in that round has gone
// as far as it can) and hands them to `run` together. While `maxInFlight` batches are under way
// the calls wait for the next, so that a busy database gets fewer, larger statements rather than
// a queue of small ones.
//
// Each call keeps its own answer and its own error: `run` answers one outcome per call, and when
// it fails as a whole (one call's value the database refuses fails the statement for all) every
// call is run again on its own by `single`.

/** One call's answer, or its error. */
export type Outcome<R> = { value: R } | { error: unknown };

export interface BatchOptions {
  /** Batches under way at once; calls arriving meanwhile wait for the next. */
  maxInFlight?: number;
  /** The most calls one batch takes. */
  maxSize?: number;
}

export const DEFAULT_MAX_IN_FLIGHT = 2;
export const DEFAULT_MAX_SIZE = 500;

interface Call<A, R> {
  args: A;
  resolve(value: R): void;
  reject(error: unknown): void;
}

/**
 * A function whose calls are run in batches. `run` gets two calls or more and answers one
 * outcome per call, in order; a single call, and every call of a batch that `run` fails as a
 * whole, goes to `single`.
 */
export function createBatcher<A, R>(
  run: (calls: A[]) => Promise<Array<Outcome<R>>>,
  single: (call: A) => Promise<R>,
  options: BatchOptions = {},
): (call: A) => Promise<R> {
  const maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
  const maxSize = options.maxSize ?? DEFAULT_MAX_SIZE;
  let pending: Array<Call<A, R>> = [];
  let inFlight = 0;
  let scheduled = false;

  const settle = (call: Call<A, R>, work: () => Promise<R>) =>
    Promise.resolve().then(work).then(call.resolve, call.reject);

  async function runBatch(calls: Array<Call<A, R>>): Promise<void> {
    if (calls.length === 1) {
      await settle(calls[0]!, () => single(calls[0]!.args));
      return;
    }
    let outcomes: Array<Outcome<R>>;
    try {
      outcomes = await run(calls.map((c) => c.args));
    } catch {
      // One call's value may have failed the statement: each on its own, with its own answer.
      await Promise.all(calls.map((call) => settle(call, () => single(call.args))));
      return;
    }
    calls.forEach((call, i) => {
      const outcome = outcomes[i]!;
      if ('error' in outcome) call.reject(outcome.error);
      else call.resolve(outcome.value);
    });
  }

  function flush() {
    scheduled = false;
    while (pending.length > 0 && inFlight < maxInFlight) {
      const calls = pending.length <= maxSize ? pending : pending.slice(0, maxSize);
      pending = pending.length <= maxSize ? [] : pending.slice(maxSize);
      inFlight++;
      void runBatch(calls).finally(() => {
        inFlight--;
        schedule();
      });
    }
  }

  function schedule() {
    if (scheduled || pending.length === 0 || inFlight >= maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  return (args) =>
    new Promise<R>((resolve, reject) => {
      pending.push({ args, resolve, reject });
      schedule();
    });
}
