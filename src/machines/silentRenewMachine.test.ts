import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import {
  SILENT_RENEW_RETRY_MS,
  silentRenewMachine,
  type SilentRenewReport,
} from './silentRenewMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** The retry over an identity client whose signinSilent the test answers. */
function startSilentRenew() {
  const clock = new SimulatedClock();
  const renewals: Array<{ at: number; result: Deferred<void> }> = [];
  const reports: SilentRenewReport[] = [];
  const parentRef = createActor(
    fromCallback<SilentRenewReport>(({ receive }) => receive((e) => reports.push(e))),
  ).start();
  const actor = createActor(
    silentRenewMachine.provide({
      actors: {
        renewSilently: fromPromise<void, void>(() => {
          const result = deferred<void>();
          renewals.push({ at: clock.now(), result });
          return result.promise;
        }),
      },
    }),
    { clock, input: { parentRef } },
  ).start();
  const last = () => {
    const renewal = renewals.at(-1);
    if (renewal === undefined) throw new Error('no renew was tried');
    return renewal;
  };
  return {
    actor,
    clock,
    renewals,
    reports,
    timedOut: () => actor.send({ type: 'silentRenew.timedOut' }),
    async renewed() {
      last().result.resolve();
      await flush();
    },
    async failed(reason: unknown) {
      last().result.reject(reason);
      await flush();
    },
  };
}

describe('silentRenewMachine', () => {
  it('tries a timed-out renew again after the retry delay, not before', () => {
    const s = startSilentRenew();
    s.timedOut();
    s.clock.increment(SILENT_RENEW_RETRY_MS - 1);
    expect(s.renewals).toHaveLength(0);
    s.clock.increment(1);
    expect(s.renewals.map((renewal) => renewal.at)).toEqual([SILENT_RENEW_RETRY_MS]);
  });

  it('reports nothing when the retry succeeds: the identity client reports the user', async () => {
    const s = startSilentRenew();
    s.timedOut();
    s.clock.increment(SILENT_RENEW_RETRY_MS);
    await s.renewed();
    expect(s.reports).toEqual([]);
  });

  it('reports a failed retry as a failure that did not time out', async () => {
    const s = startSilentRenew();
    s.timedOut();
    s.clock.increment(SILENT_RENEW_RETRY_MS);
    await s.failed(new Error('login_required'));
    expect(s.reports).toEqual([
      { type: 'silentRenew.failed', message: 'login_required', timedOut: false },
    ]);
  });

  it('ignores timeouts while a retry is scheduled or under way', () => {
    const s = startSilentRenew();
    s.timedOut();
    s.clock.increment(SILENT_RENEW_RETRY_MS - 1);
    s.timedOut();
    s.clock.increment(1);
    s.timedOut();
    s.clock.increment(SILENT_RENEW_RETRY_MS * 2);
    expect(s.renewals).toHaveLength(1);
  });

  it('drops a scheduled retry when stopped (the token left authenticated)', () => {
    const s = startSilentRenew();
    s.timedOut();
    s.actor.stop();
    s.clock.increment(SILENT_RENEW_RETRY_MS);
    expect(s.renewals).toHaveLength(0);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(silentRenewMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ parentRef: createActor(fromCallback(() => {})) }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the identity client's retry rule (spec §9: a timed-out silent renew is tried
 * again after 5 s), driving the real actor on a simulated clock.
 */
describe('silentRenewMachine against the spec model', () => {
  type ModelEvent =
    { type: 'TIMED_OUT' } | { type: 'RETRY_DUE' } | { type: 'RENEWED' } | { type: 'RENEW_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'silentRenewModel',
    initial: 'idle',
    states: {
      idle: { on: { TIMED_OUT: 'retryScheduled' } },
      retryScheduled: { on: { RETRY_DUE: 'renewing', TIMED_OUT: 'retryScheduled' } },
      renewing: { on: { RENEWED: 'idle', RENEW_FAILED: 'idle', TIMED_OUT: 'renewing' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, silentRenewMachine, {
        states: { idle: 'idle', retryScheduled: 'retryScheduled', renewing: 'renewing' },
        events: {
          TIMED_OUT: 'silentRenew.timedOut',
          RETRY_DUE: 'xstate.after.silentRenewRetry.silentRenew.retryScheduled',
          RENEWED: 'xstate.done.actor.renewSilently',
          RENEW_FAILED: 'xstate.error.actor.renewSilently',
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
      const s = startSilentRenew();
      let retries = 0;
      let failures = 0;
      // Each retry due is one renew tried, each failed one is one report.
      const expectRetry = (state: string) => {
        expect(s.actor.getSnapshot().value).toBe(state);
        expect(s.renewals).toHaveLength(retries);
        expect(s.reports).toHaveLength(failures);
      };
      await path.test({
        states: {
          idle: () => expectRetry('idle'),
          retryScheduled: () => expectRetry('retryScheduled'),
          renewing: () => expectRetry('renewing'),
        },
        events: {
          TIMED_OUT: () => s.timedOut(),
          RETRY_DUE: () => {
            s.clock.increment(SILENT_RENEW_RETRY_MS);
            retries += 1;
          },
          RENEWED: () => s.renewed(),
          RENEW_FAILED: async () => {
            await s.failed(new Error('login_required'));
            failures += 1;
          },
        },
      });
    });
  }
});
