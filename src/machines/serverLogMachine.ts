import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { ServerLogEntry } from '../api/admin';
import { errorMessage } from '../domain/text';

const notProvided = (name: string): Error =>
  new Error(`serverLogMachine: '${name}' is provided by the app (src/app)`);

/**
 * The admin Log (GET admin/log): the server's recent errors, loaded on entry and again when the
 * admin refreshes; a failed load keeps what was listed and says why.
 */
export const serverLogMachine = setup({
  types: {
    context: {} as { entries: ServerLogEntry[]; error: string | null },
    events: {} as { type: 'log.refreshRequested' },
  },
  actors: {
    /** GET admin/log. */
    loadLog: fromPromise<ServerLogEntry[], void>(() => {
      throw notProvided('loadLog');
    }),
  },
}).createMachine({
  id: 'serverLog',
  description: "The server's recent errors, loaded on entry and on refresh.",
  context: { entries: [], error: null },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'loadLog',
        onDone: {
          target: 'loaded',
          actions: assign({ entries: ({ event }) => event.output, error: null }),
        },
        onError: {
          target: 'loaded',
          actions: assign({
            error: ({ event }) => errorMessage(event.error),
          }),
        },
      },
    },
    loaded: { on: { 'log.refreshRequested': 'loading' } },
  },
});

export type ServerLogActorRef = ActorRefFrom<typeof serverLogMachine>;
export type ServerLogSnapshot = SnapshotFrom<typeof serverLogMachine>;
