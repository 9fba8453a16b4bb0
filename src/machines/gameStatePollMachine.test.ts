import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, SimulatedClock } from 'xstate';
import type { GameState } from '../api/play';
import { gameStatePollMachine, POLL_INTERVAL_MS } from './gameStatePollMachine';
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
