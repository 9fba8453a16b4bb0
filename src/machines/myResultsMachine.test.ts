import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { GameResult } from '../api/results';
import { UNSET_DATE } from '../domain/time';
import { myResultsMachine } from './myResultsMachine';
import {
  selectAreMyResultsLoading,
  selectHasNoGamesYet,
  selectMyGames,
  selectMyResultsError,
} from './myResultsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const GAME: GameResult = {
  gamespaceId: 'g1',
  workspaceId: 'ws1',
  name: 'Lab',
  managerId: 'u1',
  managerName: 'Ann',
  players: [{ id: 'u1', name: 'Ann', isManager: true }],
  isTeam: false,
  whenCreated: '2026-11-30T10:00:00+00:00',
  startTime: '2026-11-30T10:00:00+00:00',
  endTime: UNSET_DATE,
  expirationTime: UNSET_DATE,
  secondsUsed: 60,
  isRunning: true,
  score: 10,
  maxPoints: 100,
  questionSets: [],
  attempts: 1,
  maxAttempts: 0,
};

function start() {
  const loads: Deferred<GameResult[]>[] = [];
  const actor = createActor(
    myResultsMachine.provide({
      actors: {
        loadMyResults: fromPromise(() => {
          const load = deferred<GameResult[]>();
          loads.push(load);
          return load.promise;
        }),
      },
    }),
  ).start();
  return { actor, loads, snapshot: () => actor.getSnapshot() };
}

describe('myResultsMachine', () => {
  it("lists the user's games once loaded", async () => {
    const m = start();
    expect(selectAreMyResultsLoading(m.snapshot())).toBe(true);
    expect(selectHasNoGamesYet(m.snapshot())).toBe(false);
    m.loads[0]?.resolve([GAME]);
    await flush();
    expect(selectMyGames(m.snapshot())).toEqual([GAME]);
    expect(selectHasNoGamesYet(m.snapshot())).toBe(false);
  });

  it('says when there is no game yet', async () => {
    const m = start();
    m.loads[0]?.resolve([]);
    await flush();
    expect(selectHasNoGamesYet(m.snapshot())).toBe(true);
  });

  it('says why the list failed, and Retry asks again', async () => {
    const m = start();
    m.loads[0]?.reject({ status: 500, message: 'Error' });
    await flush();
    expect(selectMyResultsError(m.snapshot())).not.toBeNull();
    m.actor.send({ type: 'myResults.retryRequested' });
    m.loads[1]?.resolve([GAME]);
    await flush();
    expect(selectMyResultsError(m.snapshot())).toBeNull();
    expect(selectMyGames(m.snapshot())).toEqual([GAME]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(myResultsMachine, { serializeState: (s) => JSON.stringify(s.value) }),
    ).toEqual([]);
  });
});

/** Model-based test: loads that fail and are retried until one succeeds. */
describe('myResultsMachine against its model', () => {
  type ModelEvent = { type: 'LOADED' } | { type: 'LOAD_FAILED' } | { type: 'RETRY' };
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'myResultsModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'loaded', LOAD_FAILED: 'failed' } },
      failed: { on: { RETRY: 'loading' } },
      loaded: {},
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, myResultsMachine, {
        states: { loading: 'loading', failed: 'failed', loaded: 'loaded' },
        events: {
          LOADED: 'xstate.done.actor.loadMyResults',
          LOAD_FAILED: 'xstate.error.actor.loadMyResults',
          RETRY: 'myResults.retryRequested',
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
      const m = start();
      await path.test({
        states: {
          loading: () => expect(selectAreMyResultsLoading(m.snapshot())).toBe(true),
          failed: () => expect(selectMyResultsError(m.snapshot())).toMatch(/went wrong/),
          loaded: () => {
            expect(selectMyGames(m.snapshot())).toEqual([GAME]);
            expect(selectMyResultsError(m.snapshot())).toBeNull();
          },
        },
        events: {
          LOADED: async () => {
            m.loads.at(-1)?.resolve([GAME]);
            await flush();
          },
          LOAD_FAILED: async () => {
            m.loads.at(-1)?.reject({ status: 500, message: 'Error' });
            await flush();
          },
          RETRY: () => m.actor.send({ type: 'myResults.retryRequested' }),
        },
      });
    });
  }
});
