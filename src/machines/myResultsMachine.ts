import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameResult } from '../api/results';
import { errorMessage } from '../domain/text';

export type { GameResult };

export type MyResultsEvent = { type: 'myResults.retryRequested' };

export interface MyResultsContext {
  /** The signed-in user's games, newest first, as the server answers them. */
  games: GameResult[];
  error: string | null;
}

/** The signed-in user's own games, for the home page's history: loaded once, Retry on failure. */
export const myResultsMachine = setup({
  types: {
    context: {} as MyResultsContext,
    events: {} as MyResultsEvent,
    // 'loading': the list is on its way.
    tags: {} as 'loading',
  },
  actors: {
    /** GET my/results; the app provides it. */
    loadMyResults: fromPromise<GameResult[]>(() => {
      throw new Error('myResultsMachine: provide the loadMyResults actor');
    }),
  },
}).createMachine({
  id: 'myResults',
  description:
    "The signed-in user's own games, running and ended, for the home page: loaded once, with Retry after a failure.",
  context: { games: [], error: null },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadMyResults',
        src: 'loadMyResults',
        onDone: {
          target: 'loaded',
          // Graph traversals send done events bare: no output is no game.
          actions: assign({ games: ({ event }) => event.output ?? [], error: null }),
        },
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    loaded: {},
    failed: {
      on: { 'myResults.retryRequested': 'loading' },
    },
  },
});

export type MyResultsActorRef = ActorRefFrom<typeof myResultsMachine>;
export type MyResultsSnapshot = SnapshotFrom<typeof myResultsMachine>;
