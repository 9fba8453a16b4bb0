import { assign, fromPromise, raise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { WarmPool } from '../api/pools';
import { errorMessage } from '../domain/text';

export type { WarmPool };

/**
 * The largest pool the server takes (server/core/pools/keeper.ts POOL_MAX_SIZE): checked here
 * too so that a size the server would refuse is explained before a round trip.
 */
export const MAX_POOL_SIZE = 50;

export type WarmPoolsEvent =
  | { type: 'pools.refreshRequested' }
  | { type: 'pool.workspaceEdited'; text: string }
  | { type: 'pool.sizeEdited'; text: string }
  | { type: 'pool.saveRequested' };

export interface WarmPoolsContext {
  pools: WarmPool[];
  listError: string | null;
  /** The form's fields as typed: kept whatever happens to a save, so nothing is lost. */
  workspaceId: string;
  size: string;
  /** Why the form as typed was not sent (checked here, before the server). */
  formError: PoolFormProblem | null;
  /** Why the server refused the last save, in its words. */
  saveError: string | null;
  /** The pool the last save set, as the server answered it. */
  saved: WarmPool | null;
}

/** What is wrong with the form as typed: the field to fix, and why. */
export interface PoolFormProblem {
  field: 'workspace' | 'size';
  message: string;
}

/** Why the form cannot be sent as typed, or null when it can. */
export function poolFormProblem(workspaceId: string, size: string): PoolFormProblem | null {
  if (workspaceId.trim() === '') {
    return { field: 'workspace', message: 'Enter the id of a workspace.' };
  }
  const text = size.trim();
  const n = Number(text);
  if (text === '' || !Number.isInteger(n) || n < 0 || n > MAX_POOL_SIZE) {
    return {
      field: 'size',
      message: `The size must be a whole number from 0 to ${MAX_POOL_SIZE}.`,
    };
  }
  return null;
}

const notProvided = (name: string): Error =>
  new Error(`warmPoolsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The admin Dashboard's Warm pools panel (docs/operations.md "Warm pools"): the pools, loaded on
 * entry and on refresh; and a form that sets a workspace's pool size. A refused save keeps what
 * was typed and says why; a saved one reloads the list, since the keeper's counts move with it.
 */
export const warmPoolsMachine = setup({
  types: {
    context: {} as WarmPoolsContext,
    events: {} as WarmPoolsEvent,
    tags: {} as 'loading' | 'saving',
  },
  actors: {
    /** GET admin/pools. */
    listPools: fromPromise<WarmPool[], void>(() => {
      throw notProvided('listPools');
    }),
    /** PUT admin/pools/{workspaceId}. */
    setPoolSize: fromPromise<WarmPool, { workspaceId: string; size: number }>(() => {
      throw notProvided('setPoolSize');
    }),
  },
  guards: {
    isFormValid: ({ context }) => poolFormProblem(context.workspaceId, context.size) === null,
  },
}).createMachine({
  id: 'warmPools',
  description:
    'The warm pools, loaded on entry and on refresh, and a form that sets a pool size; a refused save keeps the form and says why, a saved one reloads the list.',
  context: {
    pools: [],
    listError: null,
    workspaceId: '',
    size: '',
    formError: null,
    saveError: null,
    saved: null,
  },
  type: 'parallel',
  states: {
    list: {
      // Also raised after a save: a load already under way may predate it, so it starts again.
      on: { 'pools.refreshRequested': { target: '.loading', reenter: true } },
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            id: 'listPools',
            src: 'listPools',
            onDone: {
              target: 'listed',
              actions: assign({ pools: ({ event }) => event.output, listError: null }),
            },
            // What was listed stays listed: the reason is shown beside it.
            onError: {
              target: 'listed',
              actions: assign({ listError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        listed: {},
      },
    },
    form: {
      initial: 'editing',
      states: {
        editing: {
          on: {
            // Typing clears the form's complaint; the server's stays until the next save.
            'pool.workspaceEdited': {
              actions: assign({ workspaceId: ({ event }) => event.text, formError: null }),
            },
            'pool.sizeEdited': {
              actions: assign({ size: ({ event }) => event.text, formError: null }),
            },
            'pool.saveRequested': [
              {
                guard: 'isFormValid',
                target: 'saving',
                actions: assign({ formError: null, saveError: null, saved: null }),
              },
              {
                actions: assign({
                  formError: ({ context }) => poolFormProblem(context.workspaceId, context.size),
                }),
              },
            ],
          },
        },
        saving: {
          tags: ['saving'],
          invoke: {
            id: 'setPoolSize',
            src: 'setPoolSize',
            input: ({ context }) => ({
              workspaceId: context.workspaceId.trim(),
              size: Number(context.size.trim()),
            }),
            onDone: {
              target: 'editing',
              actions: [
                assign({ saved: ({ event }) => event.output }),
                raise({ type: 'pools.refreshRequested' }),
              ],
            },
            onError: {
              target: 'editing',
              actions: assign({ saveError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
      },
    },
  },
});

export type WarmPoolsActorRef = ActorRefFrom<typeof warmPoolsMachine>;
export type WarmPoolsSnapshot = SnapshotFrom<typeof warmPoolsMachine>;
