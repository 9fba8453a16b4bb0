import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import type { GameState } from '../api/play';
import { gameStatePollMachine, POLL_INTERVAL_MS } from './gameStatePollMachine';
import { deferred, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

function startPoll(answers: Array<GameState | Error>) {
  const clock = new SimulatedClock();
  const loads: string[] = [];
  const aborted: boolean[] = [];
  const polled: GameState[] = [];
  const actor = createActor(
    gameStatePollMachine.provide({
      actors: {
        loadGamespace: fromPromise<GameState, { id: string }>(async ({ input, signal }) => {
          loads.push(input.id);
          signal.addEventListener('abort', () => aborted.push(true));
          const answer = answers.shift();
          if (answer === undefined) return new Promise<GameState>(() => undefined);
          if (answer instanceof Error) throw answer;
          return answer;
        }),
      },
    }),
    { clock, input: { gamespaceId: 'g-1' } },
  );
  actor.on('game.polled', ({ state }) => polled.push(state));
  actor.start();
  /** One interval passes and its read is answered. */
  const tick = async () => {
    clock.increment(POLL_INTERVAL_MS);
    await flush();
  };
  return { actor, clock, loads, aborted, polled, tick };
}

const started: GameState = { id: 'g-1', isActive: true, vms: [{ id: 'vm-1', name: 'kali' }] };
const graded: GameState = { ...started, challenge: { score: 50 } };

describe('gameStatePollMachine', () => {
  it('reads nothing before the first interval has passed', async () => {
    const { clock, loads } = startPoll([started]);
    clock.increment(POLL_INTERVAL_MS - 1);
    await flush();
    expect(loads).toEqual([]);
  });

  it('reads the gamespace every interval and reports each change once', async () => {
    const { loads, polled, tick } = startPoll([started, started, graded]);
    await tick();
    expect(loads).toEqual(['g-1']);
    expect(polled).toEqual([started]);
    await tick();
    expect(loads).toHaveLength(2);
    expect(polled).toEqual([started]);
    await tick();
    expect(polled).toEqual([started, graded]);
  });

  it('keeps polling after a failed read', async () => {
    const { loads, polled, tick } = startPoll([new Error('Failed to fetch'), graded]);
    await tick();
    expect(polled).toEqual([]);
    expect(loads).toHaveLength(1);
    await tick();
    expect(loads).toHaveLength(2);
    expect(polled).toEqual([graded]);
  });

  it('stops reading when stopped, aborting the read in flight', async () => {
    const { actor, clock, loads, aborted } = startPoll([]);
    clock.increment(POLL_INTERVAL_MS);
    await flush();
    expect(loads).toHaveLength(1);
    actor.stop();
    expect(aborted).toEqual([true]);
    clock.increment(POLL_INTERVAL_MS * 3);
    await flush();
    expect(loads).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gameStatePollMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ gamespaceId: 'g-1' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the poll's rhythm on a simulated clock, each read answered by the test with
 * a changed state, the same state, or a failure; only a change is reported.
 */
describe('gameStatePollMachine against its model', () => {
  type ModelEvent =
    { type: 'INTERVAL_ELAPSED' } | { type: 'CHANGED' } | { type: 'UNCHANGED' } | { type: 'FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'gameStatePollModel',
    initial: 'waiting',
    states: {
      waiting: { on: { INTERVAL_ELAPSED: 'reading' } },
      reading: { on: { CHANGED: 'waiting', UNCHANGED: 'waiting', FAILED: 'waiting' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gameStatePollMachine, {
        states: { waiting: 'waiting', reading: 'loading' },
        events: {
          INTERVAL_ELAPSED: 'xstate.after.pollInterval.gameStatePoll.waiting',
          CHANGED: 'xstate.done.actor.loadGamespace',
          UNCHANGED: 'xstate.done.actor.loadGamespace',
          FAILED: 'xstate.error.actor.loadGamespace',
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
      const reads: Deferred<GameState>[] = [];
      const polled: GameState[] = [];
      const actor = createActor(
        gameStatePollMachine.provide({
          actors: {
            loadGamespace: fromPromise<GameState, { id: string }>(() => {
              const read = deferred<GameState>();
              reads.push(read);
              return read.promise;
            }),
          },
        }),
        { clock, input: { gamespaceId: 'g-1' } },
      );
      actor.on('game.polled', ({ state }) => polled.push(state));
      actor.start();
      let intervals = 0;
      /** The state the server holds: each change scores one more point. */
      let current: GameState = { ...started, challenge: { score: 0 } };
      const reported: GameState[] = [];
      const expectPoll = (value: string) => () => {
        expect(actor.getSnapshot().value).toBe(value);
        expect(reads).toHaveLength(intervals);
        expect(polled).toEqual(reported);
      };
      const answer = async (outcome: 'changed' | 'same' | 'failed') => {
        const read = reads.at(-1);
        if (outcome === 'failed') read?.reject(new Error('Failed to fetch'));
        else {
          // The first answer is a change: nothing was reported before it.
          if (outcome === 'changed' || reported.length === 0) {
            current = { ...current, challenge: { score: reported.length + 1 } };
            reported.push(current);
          }
          read?.resolve(current);
        }
        await flush();
      };
      await path.test({
        states: { waiting: expectPoll('waiting'), reading: expectPoll('loading') },
        events: {
          INTERVAL_ELAPSED: () => {
            intervals += 1;
            clock.increment(POLL_INTERVAL_MS);
          },
          CHANGED: () => answer('changed'),
          UNCHANGED: () => answer('same'),
          FAILED: () => answer('failed'),
        },
      });
    });
  }
});
