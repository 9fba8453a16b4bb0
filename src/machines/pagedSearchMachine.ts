import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** One page of a search, as the app's `fetchPage` actor receives it. */
export interface PageQuery {
  term: string;
  filter: readonly string[];
  skip: number;
  take: number;
}

export type PagedSearchEvent =
  /** The search box changed; the query follows once typing pauses for `debounceMs`. */
  | { type: 'search.termChanged'; term: string }
  /** A filter toggle changed (the gamespace browser's 'active' / 'inactive'). */
  | { type: 'search.filterChanged'; filter: readonly string[] }
  | { type: 'search.nextRequested' }
  | { type: 'search.previousRequested' }
  | { type: 'search.refreshRequested' };

export interface PagedSearchInput {
  term?: string;
  filter?: readonly string[];
  /** Page size (spec §9: 100 for both browsers). */
  take: number;
  /** How long typing must pause before a term is searched (150 ms sidebar, 500 ms browser). */
  debounceMs: number;
  /** Reload the page this long after each answer (60 s in the gamespace browser); none if absent. */
  refreshIntervalMs?: number | null;
}

export interface PagedSearchContext<TItem> {
  term: string;
  filter: readonly string[];
  skip: number;
  take: number;
  /** The last page received; kept while a newer one loads and when loading it fails. */
  items: readonly TItem[];
  /** Why the last fetch failed, as shown (camel-case split); null once a fetch succeeds. */
  error: string | null;
  debounceMs: number;
  refreshIntervalMs: number | null;
}

/**
 * A search over a paged list, generic over its item type: the term (debounced), a filter and the
 * page (skip, take). Any newer query supersedes the one in flight: leaving `loading` cancels its
 * fetch, so a stale answer never replaces the items of a newer query.
 */
export function createPagedSearchMachine<TItem>() {
  return setup({
    types: {
      input: {} as PagedSearchInput,
      context: {} as PagedSearchContext<TItem>,
      events: {} as PagedSearchEvent,
      // 'loading': a page is being fetched (the Refresh button spins).
      tags: {} as 'loading',
    },
    actors: {
      /** Fetches one page; the app provides it (GET workspaces, GET gamespaces, ...). */
      fetchPage: fromPromise<TItem[], PageQuery>(() => {
        throw new Error('pagedSearchMachine: provide the fetchPage actor');
      }),
    },
    delays: {
      debounce: ({ context }) => context.debounceMs,
      // Only scheduled where `hasAutoRefresh` holds; 0 would never be used.
      autoRefresh: ({ context }) => context.refreshIntervalMs ?? 0,
    },
    guards: {
      // Spec §5: Next is disabled when the page holds fewer than `take` items.
      canNext: ({ context }) => context.items.length >= context.take,
      canPrevious: ({ context }) => context.skip > 0,
      hasAutoRefresh: ({ context }) =>
        context.refreshIntervalMs !== null && context.refreshIntervalMs > 0,
    },
    actions: {
      // Spec §5: a new term or filter starts again from the first page.
      assignTerm: assign({
        term: ({ context, event }) =>
          event.type === 'search.termChanged' ? event.term : context.term,
        skip: 0,
      }),
      assignFilter: assign({
        filter: ({ context, event }) =>
          event.type === 'search.filterChanged' ? event.filter : context.filter,
        skip: 0,
      }),
      nextPage: assign({ skip: ({ context }) => context.skip + context.take }),
      previousPage: assign({ skip: ({ context }) => Math.max(0, context.skip - context.take) }),
    },
  }).createMachine({
    id: 'pagedSearch',
    description:
      'A paged search: the term is debounced, a new term or filter goes back to the first page, Next/Previous move by a page, and an optional interval reloads the page; a failed fetch keeps the items.',
    context: ({ input }) => ({
      term: input.term ?? '',
      filter: input.filter ?? [],
      skip: 0,
      take: input.take,
      items: [],
      error: null,
      debounceMs: input.debounceMs,
      refreshIntervalMs: input.refreshIntervalMs ?? null,
    }),
    initial: 'loading',
    // From any state: entering `loading` again restarts the fetch, cancelling the one in flight.
    on: {
      'search.termChanged': { target: '.debouncing', actions: 'assignTerm' },
      'search.filterChanged': { target: '.loading', actions: 'assignFilter' },
      'search.refreshRequested': { target: '.loading' },
      'search.nextRequested': { guard: 'canNext', target: '.loading', actions: 'nextPage' },
      'search.previousRequested': {
        guard: 'canPrevious',
        target: '.loading',
        actions: 'previousPage',
      },
    },
    states: {
      /** Typing: each keystroke restarts the wait, so only a pause searches. */
      debouncing: {
        on: {
          'search.termChanged': { target: 'debouncing', reenter: true, actions: 'assignTerm' },
        },
        after: { debounce: 'loading' },
      },
      loading: {
        tags: ['loading'],
        invoke: {
          id: 'fetchPage',
          src: 'fetchPage',
          input: ({ context }) => ({
            term: context.term,
            filter: context.filter,
            skip: context.skip,
            take: context.take,
          }),
          onDone: {
            target: 'loaded',
            // A fetch that completes without a list (graph traversals send done events bare)
            // is an empty page rather than a broken context.
            actions: assign({ items: ({ event }) => event.output ?? [], error: null }),
          },
          onError: {
            target: 'failed',
            actions: assign({ error: ({ event }) => errorMessage(event.error) }),
          },
        },
      },
      loaded: {
        after: { autoRefresh: { guard: 'hasAutoRefresh', target: 'loading' } },
      },
      /** The previous items stay on show with the error beside them. */
      failed: {
        after: { autoRefresh: { guard: 'hasAutoRefresh', target: 'loading' } },
      },
    },
  });
}

export type PagedSearchMachine<TItem> = ReturnType<typeof createPagedSearchMachine<TItem>>;
export type PagedSearchActorRef<TItem> = ActorRefFrom<PagedSearchMachine<TItem>>;
export type PagedSearchSnapshot<TItem> = SnapshotFrom<PagedSearchMachine<TItem>>;

/** The machine over items of unknown type: the registry's chart, and tests. */
export const pagedSearchMachine = createPagedSearchMachine<unknown>();
