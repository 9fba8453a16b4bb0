import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import {
  hubConnectorMachine,
  INITIAL_RETRY_MS,
  RECONNECT_DELAYS_MS,
  type HubConnectorInput,
  type HubConnectorReport,
} from './hubConnectorMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** A connector on `schedule` whose attempts the test settles, reporting to a recording parent. */
function startConnector(schedule: HubConnectorInput['schedule']) {
  const clock = new SimulatedClock();
  const attempts: Array<{ at: number; result: Deferred<string>; aborted: () => boolean }> = [];
  const reports: HubConnectorReport[] = [];
  const parentRef = createActor(
    fromCallback<HubConnectorReport>(({ receive }) => receive((e) => reports.push(e))),
  ).start();
  const actor = createActor(
    hubConnectorMachine.provide({
      actors: {
        openConnection: fromPromise<string, void>(({ signal }) => {
          const result = deferred<string>();
          attempts.push({ at: clock.now(), result, aborted: () => signal.aborted });
          return result.promise;
        }),
      },
    }),
    { clock, input: { schedule, parentRef } },
  ).start();
  const last = () => {
    const attempt = attempts.at(-1);
    if (attempt === undefined) throw new Error('no attempt was made');
    return attempt;
  };
  return {
    actor,
    clock,
    attempts,
    reports,
    async open(id: string) {
      last().result.resolve(id);
      await flush();
    },
    async fail(message = 'WebSocket failed to connect.') {
      last().result.reject(new Error(message));
      await flush();
    },
  };
}

describe('hubConnectorMachine', () => {
  describe("a session's first connection", () => {
    it('is tried at once and reported when open', async () => {
      const c = startConnector('first');
      expect(c.attempts.map((attempt) => attempt.at)).toEqual([0]);
      await c.open('c1');
      expect(c.reports).toEqual([{ type: 'hub.opened', connectionId: 'c1' }]);
      expect(c.actor.getSnapshot().status).toBe('done');
    });

    it('is tried again every INITIAL_RETRY_MS for as long as it fails, each failure reported', async () => {
      const c = startConnector('first');
      for (let failed = 1; failed <= RECONNECT_DELAYS_MS.length + 2; failed += 1) {
        await c.fail();
        expect(c.reports.at(-1)).toEqual({
          type: 'hub.attemptFailed',
          error: 'WebSocket failed to connect.',
          attempts: failed,
        });
        c.clock.increment(INITIAL_RETRY_MS - 1);
        expect(c.attempts).toHaveLength(failed);
        c.clock.increment(1);
        expect(c.attempts).toHaveLength(failed + 1);
      }
    });
  });

  describe('a reconnect', () => {
    it('waits each delay of the schedule before its attempt, then gives up after the last', async () => {
      const c = startConnector('reconnect');
      let elapsed = 0;
      for (const [i, delay] of RECONNECT_DELAYS_MS.entries()) {
        c.clock.increment(delay - 1);
        expect(c.attempts).toHaveLength(i);
        c.clock.increment(1);
        elapsed += delay;
        expect(c.attempts.at(-1)?.at).toBe(elapsed);
        await c.fail();
      }
      // Each failure but the last is reported as such; the last one gives up.
      expect(c.reports.map((report) => report.type)).toEqual([
        ...RECONNECT_DELAYS_MS.slice(1).map(() => 'hub.attemptFailed'),
        'hub.gaveUp',
      ]);
      expect(c.actor.getSnapshot().status).toBe('done');
      c.clock.increment(60 * 60_000);
      expect(c.attempts).toHaveLength(RECONNECT_DELAYS_MS.length);
    });

    it('reports the connection once an attempt succeeds', async () => {
      const c = startConnector('reconnect');
      c.clock.increment(RECONNECT_DELAYS_MS[0] as number);
      await c.fail();
      c.clock.increment(RECONNECT_DELAYS_MS[1] as number);
      await c.open('c2');
      expect(c.reports.at(-1)).toEqual({ type: 'hub.opened', connectionId: 'c2' });
    });
  });

  it('abandons the attempt in flight when stopped', () => {
    const c = startConnector('first');
    c.actor.stop();
    expect(c.attempts[0]?.aborted()).toBe(true);
  });

  it('reaches every state', () => {
    const parentRef = createActor(fromCallback(() => {}));
    expect(
      unreachedStateIds(hubConnectorMachine, {
        // The failures count towards giving up up to the length of the reconnect schedule; the
        // first schedule never gives up, so more failures than that change nothing.
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as { context: { attempts: number } };
          return JSON.stringify([
            snapshot.value,
            Math.min(context.attempts, RECONNECT_DELAYS_MS.length),
          ]);
        },
        inputs: [
          { schedule: 'first', parentRef },
          { schedule: 'reconnect', parentRef },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the retry schedules of spec §4, §7 and §9 as an abstract machine, whose
 * shortest paths drive the real actor on a simulated clock, checking when each attempt is made.
 */
describe('hubConnectorMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'FIRST' }
    | { type: 'RECONNECT' }
    | { type: 'DELAY_PASSED' }
    | { type: 'OPENED' }
    | { type: 'FAILED' }
    | { type: 'LAST_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'hubConnectorModel',
    initial: 'starting',
    states: {
      starting: { on: { FIRST: 'firstOpening', RECONNECT: 'reconnectWaiting' } },
      firstOpening: { on: { OPENED: 'opened', FAILED: 'firstWaiting' } },
      firstWaiting: { on: { DELAY_PASSED: 'firstOpening' } },
      reconnectWaiting: { on: { DELAY_PASSED: 'reconnectOpening' } },
      reconnectOpening: {
        on: { OPENED: 'opened', FAILED: 'reconnectWaiting', LAST_FAILED: 'gaveUp' },
      },
      opened: {},
      gaveUp: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, hubConnectorMachine, {
        states: {
          starting: 'starting',
          firstOpening: 'opening',
          firstWaiting: 'waiting',
          reconnectWaiting: 'waiting',
          reconnectOpening: 'opening',
          opened: 'opened',
          gaveUp: 'gaveUp',
        },
        events: {
          // The schedule is the connector's input, not an event.
          FIRST: [],
          RECONNECT: [],
          DELAY_PASSED: 'xstate.after.retryDelay.hubConnector.waiting',
          OPENED: 'xstate.done.actor.openConnection',
          FAILED: 'xstate.error.actor.openConnection',
          LAST_FAILED: 'xstate.error.actor.openConnection',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let c: ReturnType<typeof startConnector> | undefined;
      const connector = () => {
        if (c === undefined) throw new Error('the connector was not started');
        return c;
      };
      let failures = 0;
      let schedule: HubConnectorInput['schedule'] = 'first';
      /** The wait before the next attempt, as the spec gives it. */
      const nextDelay = () =>
        schedule === 'first' ? INITIAL_RETRY_MS : (RECONNECT_DELAYS_MS[failures] as number);
      const expectAttempts = (made: number, reported: HubConnectorReport['type'] | null) => {
        expect(connector().attempts).toHaveLength(made);
        expect(connector().reports.at(-1)?.type ?? null).toBe(reported);
      };
      await path.test({
        states: {
          starting: () => expect(c).toBeUndefined(),
          firstOpening: () => expectAttempts(failures + 1, failures ? 'hub.attemptFailed' : null),
          firstWaiting: () => expectAttempts(failures, 'hub.attemptFailed'),
          reconnectWaiting: () => expectAttempts(failures, failures ? 'hub.attemptFailed' : null),
          reconnectOpening: () =>
            expectAttempts(failures + 1, failures ? 'hub.attemptFailed' : null),
          opened: () => {
            expectAttempts(failures + 1, 'hub.opened');
            expect(connector().actor.getSnapshot().status).toBe('done');
          },
          gaveUp: () => {
            expectAttempts(RECONNECT_DELAYS_MS.length, 'hub.gaveUp');
            expect(connector().actor.getSnapshot().status).toBe('done');
          },
        },
        events: {
          FIRST: () => {
            schedule = 'first';
            c = startConnector(schedule);
          },
          RECONNECT: () => {
            schedule = 'reconnect';
            c = startConnector(schedule);
          },
          DELAY_PASSED: () => {
            const attempts = connector().attempts.length;
            connector().clock.increment(nextDelay() - 1);
            expect(connector().attempts).toHaveLength(attempts);
            connector().clock.increment(1);
          },
          OPENED: () => connector().open('c1'),
          FAILED: async () => {
            await connector().fail();
            failures += 1;
          },
          LAST_FAILED: async () => {
            // Every attempt of the schedule fails, this one included.
            await connector().fail();
            failures += 1;
            while (failures < RECONNECT_DELAYS_MS.length) {
              connector().clock.increment(nextDelay());
              await connector().fail();
              failures += 1;
            }
          },
        },
      });
    });
  }
});
