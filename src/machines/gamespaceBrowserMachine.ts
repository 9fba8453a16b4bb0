import {
  assertEvent,
  assign,
  enqueueActions,
  fromEventObservable,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { gamespaceDetailMachine, type GamespaceDetailActorRef } from './gamespaceDetailMachine';
import { createPagedSearchMachine } from './pagedSearchMachine';

/** A row of the gamespace browser (a Gamespace list item); dates are the API's ISO strings. */
export interface GamespaceRow {
  id: string;
  name: string;
  /**
   * Its workspace, whose results table the row links to and whose observe channel tells of its
   * events; absent or null once the workspace is gone.
   */
  workspaceId?: string | null;
  managerName: string;
  startTime: string | null;
  endTime: string | null;
  expirationTime: string | null;
}

/** Spec §9: both browsers take 100; the gamespace browser waits 500 ms and reloads every 60 s. */
export const BROWSER_TAKE = 100;
export const BROWSER_DEBOUNCE_MS = 500;
export const BROWSER_REFRESH_MS = 60_000;

export type BrowserFilter = 'active' | 'inactive';

/** The list query's filter: observers and admins ask for 'all' with one of the two toggles. */
export const searchFilter = (filter: BrowserFilter): readonly string[] => ['all', filter];

export const gamespaceListSearchMachine = createPagedSearchMachine<GamespaceRow>();

/** What a confirmation is about: one row's Delete, or Delete Selected. */
export type DeleteTarget = { kind: 'row'; id: string } | { kind: 'selected' };

export type GamespaceBrowserEvent =
  | { type: 'clock.ticked'; now: number }
  | { type: 'filter.toggled'; filter: BrowserFilter }
  /** View: expands the row, or collapses it when it is the one expanded. */
  /** `workspaceId`: the row's, for its live Events tab. */
  | { type: 'gamespace.viewToggled'; id: string; workspaceId?: string | null }
  | { type: 'gamespace.selectionToggled'; id: string }
  /** 'select all': the rows shown are all selected, or none when all were. */
  | { type: 'gamespace.allSelectionToggled'; ids: readonly string[] }
  | { type: 'gamespace.deleteRequested'; id: string }
  | { type: 'gamespace.deleteSelectedRequested' }
  | { type: 'gamespace.deleteConfirmed' }
  | { type: 'gamespace.deleteCancelled' }
  | { type: 'alert.dismissed'; index: number };

export interface GamespaceBrowserInput {
  /** The admin route's view: selection and deletes (spec §6). Observers get the list only. */
  fullAdminView: boolean;
  /** When the page opened; the clock moves it on. */
  now: number;
}

export interface DeleteOutcome {
  deleted: string[];
  /** One message per gamespace that could not be deleted. */
  errors: string[];
}

export interface GamespaceBrowserContext {
  fullAdminView: boolean;
  now: number;
  /** The expanded row's id and its detail actor (one row at a time, as in the reference UI). */
  viewedId: string | null;
  viewed: GamespaceDetailActorRef | null;
  selected: readonly string[];
  /** Set while confirming (and deleting): what the confirmation is about. */
  pendingDelete: DeleteTarget | null;
  errors: readonly string[];
}

const idsOf = (context: GamespaceBrowserContext): string[] => {
  const target = context.pendingDelete;
  if (!target) return [];
  return target.kind === 'row' ? [target.id] : [...context.selected];
};

/**
 * The gamespace browser (spec §2): the paged search of gamespaces (a child), a clock for the rows'
 * countdowns, the expanded row's detail (a child), and, in the full admin view, a selection and
 * deletes that are confirmed first.
 */
export const gamespaceBrowserMachine = setup({
  types: {
    input: {} as GamespaceBrowserInput,
    context: {} as GamespaceBrowserContext,
    events: {} as GamespaceBrowserEvent,
    // 'deleting': deletes are in flight (the delete buttons wait).
    tags: {} as 'deleting',
  },
  actors: {
    /** Provide it with its fetchPage (GET gamespaces). */
    gamespaceSearch: gamespaceListSearchMachine,
    /** Provide it with its loadDetail and controllers. */
    gamespaceDetail: gamespaceDetailMachine,
    clock: fromEventObservable<{ type: 'clock.ticked'; now: number }, void>(() => {
      throw new Error('gamespaceBrowserMachine: provide the clock actor');
    }),
    /** DELETE gamespace/{id} for each id; a failure of one does not stop the others. */
    deleteGamespaces: fromPromise<DeleteOutcome, { ids: string[] }>(() => {
      throw new Error('gamespaceBrowserMachine: provide the deleteGamespaces actor');
    }),
  },
  guards: {
    isFullAdminView: ({ context }) => context.fullAdminView,
    hasSelection: ({ context }) => context.fullAdminView && context.selected.length > 0,
  },
  actions: {
    toggleView: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'gamespace.viewToggled');
      if (context.viewed) enqueue.stopChild(context.viewed);
      if (context.viewedId === event.id) {
        enqueue.assign({ viewedId: null, viewed: null });
        return;
      }
      enqueue.assign({
        viewedId: event.id,
        viewed: ({ spawn }) =>
          spawn('gamespaceDetail', {
            id: `detail-${event.id}`,
            input: {
              gamespaceId: event.id,
              workspaceId: event.workspaceId ?? null,
              fullAdminView: context.fullAdminView,
            },
          }),
      });
    }),
    /** The deleted rows leave the selection and, if expanded, the view; the page reloads. */
    forgetDeleted: enqueueActions(({ context, enqueue }, outcome: DeleteOutcome) => {
      const gone = new Set(outcome.deleted);
      if (context.viewed && context.viewedId && gone.has(context.viewedId)) {
        enqueue.stopChild(context.viewed);
        enqueue.assign({ viewedId: null, viewed: null });
      }
      enqueue.assign({
        selected: context.selected.filter((id) => !gone.has(id)),
        errors: [...context.errors, ...outcome.errors],
        pendingDelete: null,
      });
      enqueue.sendTo('search', { type: 'search.refreshRequested' });
    }),
  },
}).createMachine({
  id: 'gamespaceBrowser',
  description:
    'The gamespace browser: a paged search of gamespaces with its active/inactive toggle, one expanded row with its detail, and in the full admin view a selection and confirmed deletes of a row or of the selection.',
  context: ({ input }) => ({
    fullAdminView: input.fullAdminView,
    now: input.now,
    viewedId: null,
    viewed: null,
    selected: [],
    pendingDelete: null,
    errors: [],
  }),
  invoke: [
    {
      id: 'search',
      src: 'gamespaceSearch',
      input: {
        filter: searchFilter('active'),
        take: BROWSER_TAKE,
        debounceMs: BROWSER_DEBOUNCE_MS,
        refreshIntervalMs: BROWSER_REFRESH_MS,
      },
    },
    { src: 'clock' },
  ],
  on: {
    'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
    'filter.toggled': {
      actions: sendTo('search', ({ event }) => ({
        type: 'search.filterChanged' as const,
        filter: searchFilter(event.filter),
      })),
    },
    'gamespace.viewToggled': { actions: 'toggleView' },
    'alert.dismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
  },
  initial: 'browsing',
  states: {
    browsing: {
      on: {
        'gamespace.selectionToggled': {
          guard: 'isFullAdminView',
          actions: assign({
            selected: ({ context, event }) =>
              context.selected.includes(event.id)
                ? context.selected.filter((id) => id !== event.id)
                : [...context.selected, event.id],
          }),
        },
        'gamespace.allSelectionToggled': {
          guard: 'isFullAdminView',
          actions: assign({
            selected: ({ context, event }) =>
              event.ids.length > 0 && event.ids.every((id) => context.selected.includes(id))
                ? []
                : [...event.ids],
          }),
        },
        'gamespace.deleteRequested': {
          guard: 'isFullAdminView',
          target: 'confirming',
          actions: assign({ pendingDelete: ({ event }) => ({ kind: 'row', id: event.id }) }),
        },
        'gamespace.deleteSelectedRequested': {
          guard: 'hasSelection',
          target: 'confirming',
          actions: assign({ pendingDelete: { kind: 'selected' } }),
        },
      },
    },
    /** The question stands beside the button that asked (spec §2: deletes are confirmed). */
    confirming: {
      on: {
        'gamespace.deleteConfirmed': 'deleting',
        'gamespace.deleteCancelled': {
          target: 'browsing',
          actions: assign({ pendingDelete: null }),
        },
      },
    },
    deleting: {
      tags: ['deleting'],
      invoke: {
        src: 'deleteGamespaces',
        input: ({ context }) => ({ ids: idsOf(context) }),
        onDone: {
          target: 'browsing',
          actions: {
            type: 'forgetDeleted',
            // Graph traversals send done events bare: nothing was deleted.
            params: ({ event }) => event.output ?? { deleted: [], errors: [] },
          },
        },
        onError: {
          target: 'browsing',
          actions: assign({
            pendingDelete: null,
            errors: ({ context, event }) => [...context.errors, errorMessage(event.error)],
          }),
        },
      },
    },
  },
});

export type GamespaceBrowserActorRef = ActorRefFrom<typeof gamespaceBrowserMachine>;
export type GamespaceBrowserSnapshot = SnapshotFrom<typeof gamespaceBrowserMachine>;
