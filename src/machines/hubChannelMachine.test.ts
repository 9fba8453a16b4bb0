import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import { hubChannelMachine, REJOIN_RETRY_MS, type HubChannelReport } from './hubChannelMachine';
import { deferred, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A join whose Listen calls answer with `outcomes` in turn (an Error fails the call). */
function startJoin(outcomes: Array<'ok' | Error>) {
  const clock = new SimulatedClock();
  const calls: string[] = [];
  const reports: HubChannelReport[] = [];
  const parent = createActor(
    fromCallback<EventObject>(({ receive }) => {
      receive((event) => reports.push(event as HubChannelReport));
    }),
  ).start();
  const join = createActor(
    hubChannelMachine.provide({
      actors: {
        joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(
          async ({ input }) => {
            calls.push(`Listen(${input.channelId})@${input.connectionId}`);
            const outcome = outcomes.shift() ?? 'ok';
            if (outcome instanceof Error) throw outcome;
          },
        ),
      },
    }),
    { clock, input: { channelId: 'ws-1', connectionId: 'c1', parentRef: parent } },
  ).start();
  return { join, clock, calls, reports };
}

describe('hubChannelMachine', () => {
  it('listens on the channel and tells the hub connection it joined', async () => {
    const { join, calls, reports } = startJoin(['ok']);
    expect(join.getSnapshot().hasTag('joined')).toBe(false);
    await flush();
    expect(calls).toEqual(['Listen(ws-1)@c1']);
    expect(join.getSnapshot().hasTag('joined')).toBe(true);
    expect(reports).toEqual([{ type: 'hub.channelJoined', channelId: 'ws-1' }]);
  });

  it('reports a failed join and tries again after REJOIN_RETRY_MS until it succeeds', async () => {
    const { join, clock, calls, reports } = startJoin([
      new Error('ActionForbidden'),
      new Error('ActionForbidden'),
      'ok',
    ]);
    await flush();
    expect(reports).toEqual([
      {
        type: 'hub.channelJoinFailed',
        channelId: 'ws-1',
        error: 'You are not allowed to do this.',
      },
    ]);
    clock.increment(REJOIN_RETRY_MS - 1);
    expect(calls).toHaveLength(1);
    clock.increment(1);
    expect(calls).toHaveLength(2);
    await flush();
    clock.increment(REJOIN_RETRY_MS);
    await flush();
    expect(calls).toHaveLength(3);
    expect(join.getSnapshot().hasTag('joined')).toBe(true);
    expect(reports.map((report) => report.type)).toEqual([
      'hub.channelJoinFailed',
      'hub.channelJoinFailed',
      'hub.channelJoined',
    ]);
    expect(REJOIN_RETRY_MS).toBe(1_000);
  });

  it('stops retrying once stopped', async () => {
    const { join, clock, calls } = startJoin([new Error('ActionForbidden')]);
    await flush();
    join.stop();
    clock.increment(REJOIN_RETRY_MS * 5);
    expect(calls).toHaveLength(1);
  });

  it('reaches every state', () => {
    const parentRef = createActor(fromCallback<EventObject>(() => undefined));
    expect(
      unreachedStateIds(hubChannelMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ channelId: 'ws-1', connectionId: 'c1', parentRef }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: one channel's join (spec §7: retried 1 s after a failure) with each Listen
 * answered by the test, checking the calls made and what the hub connection was told.
 */
describe('hubChannelMachine against its model', () => {
  type ModelEvent = { type: 'JOINED' } | { type: 'FAILED' } | { type: 'RETRY_ELAPSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'hubChannelModel',
    initial: 'joining',
    states: {
      joining: { on: { JOINED: 'joined', FAILED: 'waiting' } },
      waiting: { on: { RETRY_ELAPSED: 'joining' } },
      // Time passing changes nothing once joined.
      joined: { on: { RETRY_ELAPSED: 'joined' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, hubChannelMachine, {
        states: { joining: 'joining', waiting: 'retryScheduled', joined: 'joined' },
        events: {
          JOINED: 'xstate.done.actor.joinChannel',
          FAILED: 'xstate.error.actor.joinChannel',
          RETRY_ELAPSED: 'xstate.after.rejoinRetry.hubChannel.retryScheduled',
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
      const clock = new SimulatedClock();
      const calls: Deferred<void>[] = [];
      const reports: HubChannelReport[] = [];
      const parentRef = createActor(
        fromCallback<EventObject>(({ receive }) => {
          receive((event) => reports.push(event as HubChannelReport));
        }),
      ).start();
      const join = createActor(
        hubChannelMachine.provide({
          actors: {
            joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(() => {
              const call = deferred<void>();
              calls.push(call);
              return call.promise;
            }),
          },
        }),
        { clock, input: { channelId: 'ws-1', connectionId: 'c1', parentRef } },
      ).start();
      let attempts = 1;
      const told: HubChannelReport[] = [];
      /** The model state last checked: only the wait for a retry makes one. */
      let current = 'joining';
      const expectJoin = (state: string, joined: boolean) => () => {
        current = state;
        expect(join.getSnapshot().hasTag('joined')).toBe(joined);
        expect(calls).toHaveLength(attempts);
        expect(reports).toEqual(told);
      };
      await path.test({
        states: {
          joining: expectJoin('joining', false),
          waiting: expectJoin('waiting', false),
          joined: expectJoin('joined', true),
        },
        events: {
          JOINED: async () => {
            told.push({ type: 'hub.channelJoined', channelId: 'ws-1' });
            calls.at(-1)?.resolve();
            await flush();
          },
          FAILED: async () => {
            told.push({ type: 'hub.channelJoinFailed', channelId: 'ws-1', error: 'Refused' });
            calls.at(-1)?.reject(new Error('Refused'));
            await flush();
          },
          RETRY_ELAPSED: () => {
            if (current === 'waiting') attempts += 1;
            clock.increment(REJOIN_RETRY_MS);
          },
        },
      });
    });
  }
});
