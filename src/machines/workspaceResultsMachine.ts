import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameResult, WorkspaceResults } from '../api/results';
import {
  DEFAULT_RESULT_SORT,
  nextSort,
  sortResults,
  type ResultColumn,
  type ResultSort,
} from '../domain/results';
import { errorMessage } from '../domain/text';

/** A gamespace's row, as the view renders it. */
export type { GameResult, WorkspaceResults };

export type WorkspaceResultsEvent =
  | { type: 'results.sortRequested'; column: ResultColumn }
  | { type: 'results.refreshRequested' }
  | { type: 'results.retryRequested' }
  | { type: 'results.exportRequested' }
  | { type: 'results.exportErrorDismissed' };

export interface WorkspaceResultsInput {
  workspaceId: string;
}

export interface WorkspaceResultsContext extends WorkspaceResultsInput {
  /** As the server answered them; null until the first load. */
  results: WorkspaceResults | null;
  sort: ResultSort;
  /** The games in the sort's order: kept, so that the view reads one stable array. */
  rows: GameResult[];
  /** Why the results could not be loaded. */
  error: string | null;
  /** Why the last export failed; the table stays. */
  exportError: string | null;
}

/**
 * The results of a workspace's gamespaces (the observers' Results view): loaded, sorted by the
 * column whose heading was clicked, and exported as the server's CSV.
 */
export const workspaceResultsMachine = setup({
  types: {
    input: {} as WorkspaceResultsInput,
    context: {} as WorkspaceResultsContext,
    events: {} as WorkspaceResultsEvent,
    // 'loading': the results are on their way; 'exporting': the CSV is.
    tags: {} as 'loading' | 'exporting',
  },
  actors: {
    /** GET workspace/{id}/results; the app provides it. */
    loadResults: fromPromise<WorkspaceResults, { workspaceId: string }>(() => {
      throw new Error('workspaceResultsMachine: provide the loadResults actor');
    }),
    /** GET workspace/{id}/results.csv, saved as a download; the app provides it. */
    exportResults: fromPromise<void, { workspaceId: string; workspaceName: string }>(() => {
      throw new Error('workspaceResultsMachine: provide the exportResults actor');
    }),
  },
}).createMachine({
  id: 'workspaceResults',
  description:
    "A workspace's results for observers and administrators: loaded once and on Refresh, sorted by a column heading (a second click turns the order round), exported as CSV; a load that fails offers Retry.",
  context: ({ input }) => ({
    ...input,
    results: null,
    sort: DEFAULT_RESULT_SORT,
    rows: [],
    error: null,
    exportError: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadResults',
        src: 'loadResults',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'loaded',
          actions: assign(({ context, event }) => {
            // Graph traversals send done events bare: no output is no game.
            const results = event.output ?? {
              workspaceId: context.workspaceId,
              workspaceName: '',
              now: '',
              games: [],
            };
            return { results, rows: sortResults(results.games, context.sort), error: null };
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    failed: {
      on: { 'results.retryRequested': 'loading' },
    },
    loaded: {
      initial: 'idle',
      on: {
        'results.sortRequested': {
          actions: assign(({ context, event }) => {
            const sort = nextSort(context.sort, event.column);
            return { sort, rows: sortResults(context.results?.games ?? [], sort) };
          }),
        },
      },
      states: {
        idle: {
          on: {
            'results.refreshRequested': '#workspaceResults.loading',
            'results.exportRequested': {
              target: 'exporting',
              actions: assign({ exportError: null }),
            },
            'results.exportErrorDismissed': { actions: assign({ exportError: null }) },
          },
        },
        exporting: {
          tags: ['exporting'],
          invoke: {
            id: 'exportResults',
            src: 'exportResults',
            input: ({ context }) => ({
              workspaceId: context.workspaceId,
              workspaceName: context.results?.workspaceName ?? '',
            }),
            onDone: 'idle',
            onError: {
              target: 'idle',
              actions: assign({ exportError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
      },
    },
  },
});

export type WorkspaceResultsActorRef = ActorRefFrom<typeof workspaceResultsMachine>;
export type WorkspaceResultsSnapshot = SnapshotFrom<typeof workspaceResultsMachine>;
