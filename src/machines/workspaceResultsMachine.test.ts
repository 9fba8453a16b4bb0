import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { GameResult, WorkspaceResults } from '../api/results';
import { sortResults } from '../domain/results';
import { UNSET_DATE } from '../domain/time';
import { workspaceResultsMachine } from './workspaceResultsMachine';
import {
  selectCanExport,
  selectExportError,
  selectHasNoGames,
  selectIsExporting,
  selectIsLoadingResults,
  selectQuestionSetNames,
  selectResultRows,
  selectResultsError,
  selectSortOf,
} from './workspaceResultsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const game = (id: string, score: number, name: string, startTime: string): GameResult => ({
  gamespaceId: id,
  workspaceId: 'ws1',
  name: 'Lab',
  managerId: `m-${id}`,
  managerName: name,
  players: [{ id: `m-${id}`, name, isManager: true }],
  isTeam: false,
  whenCreated: startTime,
  startTime,
  endTime: UNSET_DATE,
  expirationTime: UNSET_DATE,
  secondsUsed: 60,
  isRunning: true,
  score,
  maxPoints: 100,
  questionSets: [{ name: 'Recon', score, maxScore: 100, attempts: 1 }],
  attempts: 1,
  maxAttempts: 0,
});

const RESULTS: WorkspaceResults = {
  workspaceId: 'ws1',
  workspaceName: 'Lab',
  now: '2026-11-30T12:00:00+00:00',
  // As the server answers: newest first.
  games: [
    game('b', 20, 'Bob', '2026-11-30T11:00:00+00:00'),
    game('a', 90, 'Ann', '2026-11-30T10:00:00+00:00'),
  ],
};
const EMPTY: WorkspaceResults = { ...RESULTS, games: [] };

function start() {
  const loads: Deferred<WorkspaceResults>[] = [];
  const exports: Deferred<void>[] = [];
  const actor = createActor(
    workspaceResultsMachine.provide({
      actors: {
        loadResults: fromPromise(() => {
          const load = deferred<WorkspaceResults>();
          loads.push(load);
          return load.promise;
        }),
        exportResults: fromPromise(() => {
          const done = deferred<void>();
          exports.push(done);
          return done.promise;
        }),
      },
    }),
    { input: { workspaceId: 'ws1' } },
  ).start();
  return { actor, loads, exports, snapshot: () => actor.getSnapshot() };
}

const ids = (rows: readonly GameResult[]) => rows.map((r) => r.gamespaceId);

describe('workspaceResultsMachine', () => {
  it('shows the games newest first once loaded, and sorts by score on a click', async () => {
    const r = start();
    expect(selectIsLoadingResults(r.snapshot())).toBe(true);
    r.loads[0]?.resolve(RESULTS);
    await flush();
    expect(ids(selectResultRows(r.snapshot()))).toEqual(['b', 'a']);
    expect(selectSortOf('started')(r.snapshot())).toBe('descending');
    expect(selectQuestionSetNames(r.snapshot())).toBe('Recon');
    r.actor.send({ type: 'results.sortRequested', column: 'score' });
    expect(ids(selectResultRows(r.snapshot()))).toEqual(['a', 'b']);
    expect(selectSortOf('score')(r.snapshot())).toBe('descending');
    expect(selectSortOf('started')(r.snapshot())).toBe('none');
    r.actor.send({ type: 'results.sortRequested', column: 'score' });
    expect(ids(selectResultRows(r.snapshot()))).toEqual(['b', 'a']);
    expect(selectSortOf('score')(r.snapshot())).toBe('ascending');
  });

  it('keeps the sort across a refresh', async () => {
    const r = start();
    r.loads[0]?.resolve(RESULTS);
    await flush();
    r.actor.send({ type: 'results.sortRequested', column: 'players' });
    r.actor.send({ type: 'results.refreshRequested' });
    expect(selectIsLoadingResults(r.snapshot())).toBe(true);
    r.loads[1]?.resolve({ ...RESULTS, games: [...RESULTS.games, game('c', 0, 'Cy', UNSET_DATE)] });
    await flush();
    expect(ids(selectResultRows(r.snapshot()))).toEqual(['a', 'b', 'c']);
  });

  it('says when the workspace has no games, and offers no export then', async () => {
    const r = start();
    r.loads[0]?.resolve(EMPTY);
    await flush();
    expect(selectHasNoGames(r.snapshot())).toBe(true);
    expect(selectCanExport(r.snapshot())).toBe(false);
  });

  it('says an observer out of the audience may not, and Retry asks again', async () => {
    const r = start();
    r.loads[0]?.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(selectResultsError(r.snapshot())).toBe('You are not allowed to do this.');
    expect(selectHasNoGames(r.snapshot())).toBe(false);
    r.actor.send({ type: 'results.retryRequested' });
    expect(r.loads).toHaveLength(2);
    r.loads[1]?.resolve(RESULTS);
    await flush();
    expect(selectResultsError(r.snapshot())).toBeNull();
  });

  it('exports once at a time, and says why an export failed while keeping the table', async () => {
    const r = start();
    r.loads[0]?.resolve(RESULTS);
    await flush();
    expect(selectCanExport(r.snapshot())).toBe(true);
    r.actor.send({ type: 'results.exportRequested' });
    expect(selectIsExporting(r.snapshot())).toBe(true);
    expect(selectCanExport(r.snapshot())).toBe(false);
    r.actor.send({ type: 'results.exportRequested' });
    expect(r.exports).toHaveLength(1);
    r.exports[0]?.reject({ status: 500, message: 'Error' });
    await flush();
    expect(selectExportError(r.snapshot())).not.toBeNull();
    expect(ids(selectResultRows(r.snapshot()))).toEqual(['b', 'a']);
    r.actor.send({ type: 'results.exportErrorDismissed' });
    expect(selectExportError(r.snapshot())).toBeNull();
    r.actor.send({ type: 'results.exportRequested' });
    r.exports[1]?.resolve();
    await flush();
    expect(selectIsExporting(r.snapshot())).toBe(false);
    expect(selectExportError(r.snapshot())).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceResultsMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ workspaceId: 'ws1' }],
        payloads: [{ type: 'results.sortRequested', column: 'score' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loads that succeed or fail, sorts, refreshes and exports in any order; after
 * every step the mode, the rows' order and the messages are what the model says.
 */
describe('workspaceResultsMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'RETRY' }
    | { type: 'SORTED' }
    | { type: 'REFRESH' }
    | { type: 'EXPORT' }
    | { type: 'EXPORTED' }
    | { type: 'EXPORT_FAILED' }
    | { type: 'DISMISSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceResultsModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'idle', LOAD_FAILED: 'failed' } },
      failed: { on: { RETRY: 'loading' } },
      idle: {
        on: { SORTED: 'idle', REFRESH: 'loading', EXPORT: 'exporting', DISMISSED: 'idle' },
      },
      exporting: { on: { SORTED: 'exporting', EXPORTED: 'idle', EXPORT_FAILED: 'idle' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceResultsMachine, {
        states: {
          loading: 'loading',
          failed: 'failed',
          idle: 'loaded.idle',
          exporting: 'loaded.exporting',
        },
        events: {
          LOADED: 'xstate.done.actor.loadResults',
          LOAD_FAILED: 'xstate.error.actor.loadResults',
          RETRY: 'results.retryRequested',
          SORTED: 'results.sortRequested',
          REFRESH: 'results.refreshRequested',
          EXPORT: 'results.exportRequested',
          EXPORTED: 'xstate.done.actor.exportResults',
          EXPORT_FAILED: 'xstate.error.actor.exportResults',
          DISMISSED: 'results.exportErrorDismissed',
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
      const r = start();
      // What the model expects: the sort the clicks made, the last export's failure.
      let ascending = false;
      let sorted = false;
      let exportFailed = false;
      const expectedRows = () =>
        ids(
          sortResults(RESULTS.games, {
            column: sorted ? 'score' : 'started',
            direction: ascending ? 'ascending' : 'descending',
          }),
        );
      const table = () => {
        expect(ids(selectResultRows(r.snapshot()))).toEqual(expectedRows());
        expect(selectExportError(r.snapshot()) !== null).toBe(exportFailed);
      };
      await path.test({
        states: {
          loading: () => expect(selectIsLoadingResults(r.snapshot())).toBe(true),
          failed: () => {
            expect(r.snapshot().value).toBe('failed');
            expect(selectResultsError(r.snapshot())).toBe('You are not allowed to do this.');
          },
          idle: () => {
            expect(r.snapshot().matches({ loaded: 'idle' })).toBe(true);
            table();
          },
          exporting: () => {
            expect(selectIsExporting(r.snapshot())).toBe(true);
            table();
          },
        },
        events: {
          LOADED: async () => {
            r.loads.at(-1)?.resolve(RESULTS);
            await flush();
          },
          LOAD_FAILED: async () => {
            r.loads.at(-1)?.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          RETRY: () => r.actor.send({ type: 'results.retryRequested' }),
          SORTED: () => {
            // The first click sorts by score, highest first; each next one turns it round.
            ascending = sorted ? !ascending : false;
            sorted = true;
            r.actor.send({ type: 'results.sortRequested', column: 'score' });
          },
          REFRESH: () => r.actor.send({ type: 'results.refreshRequested' }),
          EXPORT: () => {
            exportFailed = false;
            r.actor.send({ type: 'results.exportRequested' });
          },
          EXPORTED: async () => {
            r.exports.at(-1)?.resolve();
            await flush();
          },
          EXPORT_FAILED: async () => {
            exportFailed = true;
            r.exports.at(-1)?.reject({ status: 500, message: 'Error' });
            await flush();
          },
          DISMISSED: () => {
            exportFailed = false;
            r.actor.send({ type: 'results.exportErrorDismissed' });
          },
        },
      });
    });
  }
});
