import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { ServerLogEntry } from '../api/admin';
import { serverLogMachine } from './serverLogMachine';
import {
  selectIsLoadingLog,
  selectLogError,
  selectNewestFirst,
} from './serverLogMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const entry = (message: string, timestamp: string): ServerLogEntry => ({ message, timestamp });

function start() {
  const loads: Deferred<ServerLogEntry[]>[] = [];
  const actor = createActor(
    serverLogMachine.provide({
      actors: {
        loadLog: fromPromise<ServerLogEntry[], void>(() => {
          const answer = deferred<ServerLogEntry[]>();
          loads.push(answer);
          return answer.promise;
        }),
      },
    }),
  ).start();
  return { actor, loads, snap: () => actor.getSnapshot() };
}

describe('serverLogMachine', () => {
  it('lists the entries newest first', async () => {
    const l = start();
    expect(selectIsLoadingLog(l.snap())).toBe(true);
    l.loads[0]!.resolve([
      entry('first', '2025-01-01T00:00:00Z'),
      entry('second', '2025-01-01T00:01:00Z'),
    ]);
    await flush();
    expect(selectNewestFirst(l.snap()).map((e) => e.message)).toEqual(['second', 'first']);
    // The same array while nothing changes, as useSelector needs.
    expect(selectNewestFirst(l.snap())).toBe(selectNewestFirst(l.snap()));
  });

  it('loads again on refresh, and keeps the list with the reason when that fails', async () => {
    const l = start();
    l.loads[0]!.resolve([entry('first', '2025-01-01T00:00:00Z')]);
    await flush();
    l.actor.send({ type: 'log.refreshRequested' });
    expect(l.loads).toHaveLength(2);
    l.loads[1]!.reject({ status: 0, message: 'Failed to fetch' });
    await flush();
    expect(selectLogError(l.snap())).toBe(
      'The server could not be reached: check your connection and try again.',
    );
    expect(selectNewestFirst(l.snap())).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(serverLogMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loads answered or failed, and refreshes, checking what the view reads after
 * each step (a failure keeps the entries listed and says why).
 */
describe('serverLogMachine against its model', () => {
  type ModelEvent = { type: 'LOADED' } | { type: 'LOAD_FAILED' } | { type: 'REFRESH' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'serverLogModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'loaded', LOAD_FAILED: 'loaded' } },
      loaded: { on: { REFRESH: 'loading' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, serverLogMachine, {
        states: { loading: 'loading', loaded: 'loaded' },
        // The invoke has no id of its own: XState names it after its state.
        events: {
          LOADED: 'xstate.done.actor.0.serverLog.loading',
          LOAD_FAILED: 'xstate.error.actor.0.serverLog.loading',
          REFRESH: 'log.refreshRequested',
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
      const l = start();
      let messages: string[] = [];
      let error: string | null = null;
      let next = 0;
      const expectLog = (state: 'loading' | 'loaded') => () => {
        const s = l.snap();
        expect(s.value).toBe(state);
        expect(selectIsLoadingLog(s)).toBe(state === 'loading');
        expect(selectNewestFirst(s).map((e) => e.message)).toEqual(messages);
        expect(selectLogError(s)).toBe(error);
      };
      await path.test({
        states: { loading: expectLog('loading'), loaded: expectLog('loaded') },
        events: {
          LOADED: async () => {
            next += 1;
            messages = [`newer ${next}`, `older ${next}`];
            error = null;
            l.loads
              .at(-1)!
              .resolve([
                entry(`older ${next}`, '2025-01-01T00:00:00Z'),
                entry(`newer ${next}`, '2025-01-01T00:01:00Z'),
              ]);
            await flush();
          },
          LOAD_FAILED: async () => {
            error = 'You are not allowed to do this.';
            l.loads.at(-1)!.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          REFRESH: () => l.actor.send({ type: 'log.refreshRequested' }),
        },
      });
    });
  }
});
