import { assign, fromPromise, raise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { WarmPool } from '../api/pools';
import { errorMessage } from '../domain/text';
import {
  isWorkspaceId,
  moveHighlight,
  poolFormProblem,
  type PoolFormProblem,
} from './warmPoolsMachine.rules';

export type { WarmPool };

/** The workspace search waits for typing to pause this long. */
export const WORKSPACE_SEARCH_DEBOUNCE_MS = 300;

/** Fewer letters than this match too many workspaces to be worth a search. */
export const MIN_SEARCH_LENGTH = 2;

/** The most workspaces the search offers: enough to pick from, few enough to read. */
export const MAX_MATCHES = 8;

/** A workspace the search found, to pick for the form. */
export interface WorkspaceMatch {
  id: string;
  name: string;
}

export type WarmPoolsEvent =
  | { type: 'pools.refreshRequested' }
  /** The workspace field changed: a name to search for, or a workspace id. */
  | { type: 'pool.workspaceEdited'; text: string }
  | { type: 'pool.sizeEdited'; text: string }
  /** A listed pool's Edit: the form takes its workspace and size. */
  | { type: 'pool.editRequested'; workspaceId: string }
  /** The arrow keys move the highlight through the matches (wrapping round). */
  | { type: 'pool.highlightMoved'; by: 1 | -1 }
  | { type: 'pool.matchPicked'; workspaceId: string }
  /** Escape: the matches are put away; what was typed stays. */
  | { type: 'pool.matchesDismissed' }
  | { type: 'pool.saveRequested' };

export interface WarmPoolsContext {
  pools: WarmPool[];
  listError: string | null;
  /** The workspace field as typed (or the picked workspace's name): kept whatever a save does. */
  workspaceText: string;
  /** The workspace the form sets: picked, pasted or a row's; '' while a name is being typed. */
  workspaceId: string;
  size: string;
  /** The last search's workspaces, at most MAX_MATCHES. */
  matches: WorkspaceMatch[];
  /** The match the arrow keys are on (Enter picks it), -1 for none. */
  highlighted: number;
  /** Why the last search failed; the form still takes a pasted id meanwhile. */
  searchError: string | null;
  /** Why the form as typed was not sent (checked here, before the server). */
  formError: PoolFormProblem | null;
  /** Why the server refused the last save, in its words. */
  saveError: string | null;
  /** The pool the last save set, as the server answered it. */
  saved: WarmPool | null;
}

const notProvided = (name: string): Error =>
  new Error(`warmPoolsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The admin Dashboard's Warm pools panel (docs/operations.md "Warm pools"): the pools, loaded on
 * entry and on refresh; and a form that sets a workspace's pool size. The form finds its
 * workspace by a search on the name (debounced, a few matches to pick from), takes a pasted id
 * as it is, or is filled from a listed pool. A refused save keeps what was typed and says why; a
 * saved one reloads the list, since the keeper's counts move with it.
 */
export const warmPoolsMachine = setup({
  types: {
    context: {} as WarmPoolsContext,
    events: {} as WarmPoolsEvent,
    // 'searching': a workspace search is under way; 'choosing': its matches are on show.
    tags: {} as 'loading' | 'saving' | 'searching' | 'choosing',
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
    /** GET workspaces?term&take: the workspaces whose name (or id) matches, by name. */
    searchWorkspaces: fromPromise<WorkspaceMatch[], { term: string; take: number }>(() => {
      throw notProvided('searchWorkspaces');
    }),
  },
  delays: {
    searchDebounce: WORKSPACE_SEARCH_DEBOUNCE_MS,
  },
  guards: {
    isFormValid: ({ context }) => poolFormProblem(context.workspaceId, context.size) === null,
    isTypedId: ({ event }) => event.type === 'pool.workspaceEdited' && isWorkspaceId(event.text),
    isSearchTerm: ({ event }) =>
      event.type === 'pool.workspaceEdited' && event.text.trim().length >= MIN_SEARCH_LENGTH,
    isListedPool: ({ context, event }) =>
      event.type === 'pool.editRequested' &&
      context.pools.some((p) => p.workspaceId === event.workspaceId),
    isMatch: ({ context, event }) =>
      event.type === 'pool.matchPicked' && context.matches.some((m) => m.id === event.workspaceId),
  },
  actions: {
    // Typing a name undoes the choice: the form sets no workspace until one is picked.
    typeName: assign(({ event }) =>
      event.type === 'pool.workspaceEdited'
        ? { workspaceText: event.text, workspaceId: '', formError: null }
        : {},
    ),
    typeId: assign(({ event }) =>
      event.type === 'pool.workspaceEdited'
        ? { workspaceText: event.text, workspaceId: event.text.trim(), formError: null }
        : {},
    ),
  },
}).createMachine({
  id: 'warmPools',
  description:
    'The warm pools, loaded on entry and on refresh, and a form that sets a pool size, its workspace found by a debounced search on the name, pasted as an id or taken from a row; a refused save keeps the form and says why, a saved one reloads the list.',
  context: {
    pools: [],
    listError: null,
    workspaceText: '',
    workspaceId: '',
    size: '',
    matches: [],
    highlighted: -1,
    searchError: null,
    formError: null,
    saveError: null,
    saved: null,
  },
  type: 'parallel',
  states: {
    list: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          // Also raised after a save: a load already under way may predate it, so it starts
          // again. (On `list` itself, a re-entering transition would re-enter the sibling region
          // too, and cancel a save under way.)
          on: { 'pools.refreshRequested': { target: 'loading', reenter: true } },
          invoke: {
            id: 'listPools',
            src: 'listPools',
            onDone: {
              target: 'listed',
              // A load that completes without a list (graph traversals send done events bare)
              // lists nothing rather than breaking the context.
              actions: assign({ pools: ({ event }) => event.output ?? [], listError: null }),
            },
            // What was listed stays listed: the reason is shown beside it.
            onError: {
              target: 'listed',
              actions: assign({ listError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        listed: { on: { 'pools.refreshRequested': 'loading' } },
      },
    },
    form: {
      initial: 'editing',
      states: {
        editing: {
          initial: 'idle',
          on: {
            // A pasted id is taken as it is; a name of a few letters is searched for once typing
            // pauses; anything shorter puts the matches away. Typing clears the form's complaint;
            // the server's stays until the next save.
            'pool.workspaceEdited': [
              { guard: 'isTypedId', target: '.idle', actions: 'typeId' },
              { guard: 'isSearchTerm', target: '.debouncing', actions: 'typeName' },
              { target: '.idle', actions: 'typeName' },
            ],
            'pool.sizeEdited': {
              actions: assign({ size: ({ event }) => event.text, formError: null }),
            },
            'pool.editRequested': {
              guard: 'isListedPool',
              target: '.idle',
              actions: assign(({ context, event }) => {
                const pool = context.pools.find((p) => p.workspaceId === event.workspaceId)!;
                return {
                  workspaceText: pool.workspaceName ?? pool.workspaceId,
                  workspaceId: pool.workspaceId,
                  size: String(pool.size),
                  formError: null,
                  saveError: null,
                  saved: null,
                };
              }),
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
          states: {
            /** No matches on show: nothing typed, a pick made, a pasted id, or put away. */
            idle: {},
            /** Each keystroke restarts the wait, so only a pause searches. */
            debouncing: {
              on: {
                'pool.workspaceEdited': [
                  { guard: 'isTypedId', target: 'idle', actions: 'typeId' },
                  {
                    guard: 'isSearchTerm',
                    target: 'debouncing',
                    reenter: true,
                    actions: 'typeName',
                  },
                  { target: 'idle', actions: 'typeName' },
                ],
              },
              after: { searchDebounce: 'searching' },
            },
            searching: {
              tags: ['searching'],
              invoke: {
                id: 'searchWorkspaces',
                src: 'searchWorkspaces',
                input: ({ context }) => ({ term: context.workspaceText.trim(), take: MAX_MATCHES }),
                onDone: {
                  target: 'choosing',
                  actions: assign({
                    matches: ({ event }) => (event.output ?? []).slice(0, MAX_MATCHES),
                    highlighted: -1,
                    searchError: null,
                  }),
                },
                onError: {
                  target: 'searchFailed',
                  actions: assign({
                    matches: [],
                    searchError: ({ event }) => errorMessage(event.error),
                  }),
                },
              },
            },
            /** The matches on show (or that there are none), to pick one from. */
            choosing: {
              tags: ['choosing'],
              on: {
                'pool.highlightMoved': {
                  actions: assign({
                    highlighted: ({ context, event }) =>
                      moveHighlight(context.highlighted, event.by, context.matches.length),
                  }),
                },
                'pool.matchPicked': {
                  guard: 'isMatch',
                  target: 'idle',
                  actions: assign(({ context, event }) => {
                    const match = context.matches.find((m) => m.id === event.workspaceId)!;
                    return { workspaceText: match.name, workspaceId: match.id, formError: null };
                  }),
                },
                'pool.matchesDismissed': 'idle',
              },
            },
            /** The reason is shown under the field; typing again searches again. */
            searchFailed: {},
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
