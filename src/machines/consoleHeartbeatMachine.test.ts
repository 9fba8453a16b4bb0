import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import { consoleHeartbeatMachine, PING_INTERVAL_MS } from './consoleHeartbeatMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** The heartbeat over pings that wait for the test to answer them. */
function startHeartbeat() {
  const clock = new SimulatedClock();
  const pings: Array<{ at: number; result: Deferred<void> }> = [];
  const actor = createActor(
    consoleHeartbeatMachine.provide({
      actors: {
        ping: fromPromise<void, void>(() => {
          const result = deferred<void>();
          pings.push({ at: clock.now(), result });
          return result.promise;
        }),
      },
    }),
    { clock },
  ).start();
  const answer = async (outcome: 'ok' | 'failed') => {
    const ping = pings.at(-1);
    if (ping === undefined) throw new Error('no ping was sent');
    if (outcome === 'ok') ping.result.resolve();
    else ping.result.reject(new Error('Unauthorized'));
    await flush();
  };
  return { actor, clock, pings, answer };
}

describe('consoleHeartbeatMachine', () => {
  it('pings a minute after it starts, not before', () => {
    const { clock, pings } = startHeartbeat();
    clock.increment(PING_INTERVAL_MS - 1);
    expect(pings).toHaveLength(0);
    clock.increment(1);
    expect(pings.map((ping) => ping.at)).toEqual([PING_INTERVAL_MS]);
  });

  it('counts the next minute from the answer, so pings never overlap', async () => {
    const { clock, pings, answer } = startHeartbeat();
    clock.increment(PING_INTERVAL_MS);
    clock.increment(PING_INTERVAL_MS * 3);
    expect(pings).toHaveLength(1);

    await answer('ok');
    clock.increment(PING_INTERVAL_MS);
    expect(pings.map((ping) => ping.at)).toEqual([PING_INTERVAL_MS, PING_INTERVAL_MS * 5]);
  });

  it('goes on after a failed ping, on the same schedule', async () => {
    const { clock, pings, answer } = startHeartbeat();
    clock.increment(PING_INTERVAL_MS);
    await answer('failed');
    clock.increment(PING_INTERVAL_MS - 1);
    expect(pings).toHaveLength(1);
    clock.increment(1);
    expect(pings).toHaveLength(2);
  });

  it('stops pinging when stopped with its page', () => {
    const { actor, clock, pings } = startHeartbeat();
    actor.stop();
    clock.increment(PING_INTERVAL_MS * 2);
    expect(pings).toHaveLength(0);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(consoleHeartbeatMachine, {
        serializeState: (s) => JSON.stringify(s.value),
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the heartbeat as the wire reference's console page keeps it (one ping a
 * minute, whatever the answer), driving the real actor on a simulated clock.
 */
describe('consoleHeartbeatMachine against the reference model', () => {
  type ModelEvent = { type: 'MINUTE_PASSED' } | { type: 'PINGED' } | { type: 'PING_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'heartbeatModel',
    initial: 'waiting',
    states: {
      waiting: { on: { MINUTE_PASSED: 'pinging' } },
      pinging: { on: { PINGED: 'waiting', PING_FAILED: 'waiting' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, consoleHeartbeatMachine, {
        states: { waiting: 'waiting', pinging: 'pinging' },
        events: {
          MINUTE_PASSED: 'xstate.after.pingInterval.consoleHeartbeat.waiting',
          PINGED: 'xstate.done.actor.ping',
          PING_FAILED: 'xstate.error.actor.ping',
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
      const heartbeat = startHeartbeat();
      let minutes = 0;
      await path.test({
        states: {
          waiting: () => {
            expect(heartbeat.pings).toHaveLength(minutes);
            expect(heartbeat.actor.getSnapshot().matches('waiting')).toBe(true);
          },
          pinging: () => {
            expect(heartbeat.pings).toHaveLength(minutes);
            expect(heartbeat.actor.getSnapshot().matches('pinging')).toBe(true);
          },
        },
        events: {
          MINUTE_PASSED: () => {
            heartbeat.clock.increment(PING_INTERVAL_MS);
            minutes += 1;
          },
          PINGED: () => heartbeat.answer('ok'),
          PING_FAILED: () => heartbeat.answer('failed'),
        },
      });
    });
  }
});
