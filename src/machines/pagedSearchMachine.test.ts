import { describe, expect, it } from 'vitest';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import {
  createPagedSearchMachine,
  pagedSearchMachine,
  type PageQuery,
  type PagedSearchEvent,
  type PagedSearchInput,
} from './pagedSearchMachine';
import {
  selectCanNext,
  selectCanPrevious,
  selectIsSearchLoading,
  selectItems,
  selectSearchError,
  selectShowPager,
} from './pagedSearchMachine.selectors';
import { unreachedStateIds } from './testing/reachability';

const DEBOUNCE_MS = 150;
const REFRESH_MS = 60_000;
const TAKE = 3;

/** Settles promise actors: their results arrive on the microtask queue. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

interface Fetch {
  query: PageQuery;
  signal: AbortSignal;
  resolve: (items: string[]) => void;
  reject: (error: unknown) => void;
}

/** The machine over string items; every fetch waits for the test to answer it. */
function startSearch(input: Partial<PagedSearchInput> = {}) {
  const clock = new SimulatedClock();
  const fetches: Fetch[] = [];
  const machine = createPagedSearchMachine<string>().provide({
    actors: {
      fetchPage: fromPromise<string[], PageQuery>(
        ({ input: query, signal }) =>
          new Promise((resolve, reject) => fetches.push({ query, signal, resolve, reject })),
      ),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: { take: TAKE, debounceMs: DEBOUNCE_MS, ...input },
  }).start();
  const send = (event: PagedSearchEvent) => actor.send(event);
  const snapshot = () => actor.getSnapshot();
  /** Answers the newest fetch and lets the answer arrive. */
  const answer = async (items: string[]) => {
    fetches.at(-1)?.resolve(items);
    await flush();
  };
  const fail = async (error: unknown) => {
    fetches.at(-1)?.reject(error);
    await flush();
  };
  const queries = () => fetches.map((f) => f.query);
  return { actor, clock, fetches, send, snapshot, answer, fail, queries };
}

const page = (n: number, count = TAKE) => Array.from({ length: count }, (_, i) => `p${n}-${i}`);

describe('pagedSearchMachine', () => {
  it('fetches the first page of its input query at once', () => {
    const s = startSearch({ term: 'lab', filter: ['my'] });
    expect(s.queries()).toEqual([{ term: 'lab', filter: ['my'], skip: 0, take: TAKE }]);
    expect(selectIsSearchLoading(s.snapshot())).toBe(true);
  });

  it('shows the page it receives', async () => {
    const s = startSearch();
    await s.answer(['a', 'b']);
    expect(s.snapshot().value).toBe('loaded');
    expect(selectItems(s.snapshot())).toEqual(['a', 'b']);
    expect(selectIsSearchLoading(s.snapshot())).toBe(false);
  });

  it('searches a typed term only once typing pauses for debounceMs', async () => {
    const s = startSearch();
    await s.answer([]);
    s.send({ type: 'search.termChanged', term: 'w' });
    s.clock.increment(DEBOUNCE_MS - 1);
    s.send({ type: 'search.termChanged', term: 'wo' });
    s.clock.increment(DEBOUNCE_MS - 1);
    s.send({ type: 'search.termChanged', term: 'wor' });
    s.clock.increment(DEBOUNCE_MS - 1);
    expect(s.fetches).toHaveLength(1);
    s.clock.increment(1);
    expect(s.queries().slice(1)).toEqual([{ term: 'wor', filter: [], skip: 0, take: TAKE }]);
  });

  it('a term typed while a page loads cancels that fetch', async () => {
    const s = startSearch();
    s.send({ type: 'search.termChanged', term: 'x' });
    expect(s.fetches[0]?.signal.aborted).toBe(true);
    expect(selectIsSearchLoading(s.snapshot())).toBe(false);
  });

  it('Next and Previous move by a page', async () => {
    const s = startSearch();
    await s.answer(page(0));
    s.send({ type: 'search.nextRequested' });
    await s.answer(page(1));
    s.send({ type: 'search.nextRequested' });
    await s.answer(page(2));
    s.send({ type: 'search.previousRequested' });
    expect(s.queries().map((q) => q.skip)).toEqual([0, TAKE, 2 * TAKE, TAKE]);
  });

  it('a new term goes back to the first page', async () => {
    const s = startSearch();
    await s.answer(page(0));
    s.send({ type: 'search.nextRequested' });
    await s.answer(page(1));
    s.send({ type: 'search.termChanged', term: 'lab' });
    s.clock.increment(DEBOUNCE_MS);
    expect(s.queries().at(-1)).toEqual({ term: 'lab', filter: [], skip: 0, take: TAKE });
    expect(s.snapshot().context.skip).toBe(0);
  });

  it('a new filter goes back to the first page and searches at once', async () => {
    const s = startSearch({ filter: ['active'] });
    await s.answer(page(0));
    s.send({ type: 'search.nextRequested' });
    await s.answer(page(1));
    s.send({ type: 'search.filterChanged', filter: ['inactive'] });
    expect(s.queries().at(-1)).toEqual({ term: '', filter: ['inactive'], skip: 0, take: TAKE });
  });

  it('disables Next on a page with fewer than take items, and Previous on the first page', async () => {
    const s = startSearch();
    await s.answer(page(0));
    expect(selectCanNext(s.snapshot())).toBe(true);
    expect(selectCanPrevious(s.snapshot())).toBe(false);
    s.send({ type: 'search.previousRequested' });
    expect(s.fetches).toHaveLength(1);

    s.send({ type: 'search.nextRequested' });
    await s.answer(page(1, TAKE - 1));
    expect(selectCanNext(s.snapshot())).toBe(false);
    expect(selectCanPrevious(s.snapshot())).toBe(true);
    s.send({ type: 'search.nextRequested' });
    expect(s.fetches).toHaveLength(2);
  });

  it('shows the pager when skip + count >= take', async () => {
    const s = startSearch();
    await s.answer(page(0, TAKE - 1));
    expect(selectShowPager(s.snapshot())).toBe(false);
    s.send({ type: 'search.refreshRequested' });
    await s.answer(page(0));
    expect(selectShowPager(s.snapshot())).toBe(true);
    s.send({ type: 'search.nextRequested' });
    // The last page holds a single item, and still shows the pager to go back.
    await s.answer(page(1, 1));
    expect(selectShowPager(s.snapshot())).toBe(true);
  });

  it('refreshes the same query on request', async () => {
    const s = startSearch({ term: 'lab' });
    await s.answer(['a']);
    s.send({ type: 'search.refreshRequested' });
    expect(s.queries()).toEqual([s.queries()[0], s.queries()[0]]);
    await s.answer(['a', 'b']);
    expect(selectItems(s.snapshot())).toEqual(['a', 'b']);
  });

  it('ignores the answer of a fetch that a newer query superseded', async () => {
    const s = startSearch();
    const first = s.fetches[0];
    s.send({ type: 'search.refreshRequested' });
    expect(first?.signal.aborted).toBe(true);
    first?.resolve(['stale']);
    await flush();
    expect(selectItems(s.snapshot())).toEqual([]);
    expect(selectIsSearchLoading(s.snapshot())).toBe(true);
    await s.answer(['fresh']);
    expect(selectItems(s.snapshot())).toEqual(['fresh']);
  });

  it('keeps the previous items when a fetch fails and shows why', async () => {
    const s = startSearch();
    await s.answer(['a']);
    s.send({ type: 'search.refreshRequested' });
    await s.fail({ status: 400, message: 'ResourceNotFound' });
    expect(s.snapshot().value).toBe('failed');
    expect(selectItems(s.snapshot())).toEqual(['a']);
    expect(selectSearchError(s.snapshot())).toBe('It was not found: it may have been deleted.');

    s.send({ type: 'search.refreshRequested' });
    await s.answer(['b']);
    expect(selectSearchError(s.snapshot())).toBeNull();
  });

  it('reloads the page refreshIntervalMs after each answer, success or failure', async () => {
    const s = startSearch({ refreshIntervalMs: REFRESH_MS });
    await s.answer(['a']);
    s.clock.increment(REFRESH_MS - 1);
    expect(s.fetches).toHaveLength(1);
    s.clock.increment(1);
    expect(s.fetches).toHaveLength(2);
    await s.fail(new Error('Failed to fetch'));
    s.clock.increment(REFRESH_MS);
    expect(s.fetches).toHaveLength(3);
    expect(s.queries()[2]).toEqual(s.queries()[0]);
  });

  it('never reloads by itself without an interval', async () => {
    const s = startSearch();
    await s.answer(['a']);
    s.clock.increment(24 * 60 * 60 * 1_000);
    expect(s.fetches).toHaveLength(1);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(pagedSearchMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ take: TAKE, debounceMs: DEBOUNCE_MS, refreshIntervalMs: REFRESH_MS }],
      }),
    ).toEqual([]);
  });
});

describe('pagedSearchMachine against an abstract model', () => {
  type ModelEvent =
    | { type: 'TYPED' }
    | { type: 'PAUSED' }
    | { type: 'ANSWERED' }
    | { type: 'FAILED' }
    | { type: 'REFRESHED' }
    | { type: 'INTERVAL_ELAPSED' };

  // What the user sees: a page loading, on show, on show with an error, or a term being typed.
  // Answers to fetches no longer wanted (after typing) change nothing.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'pagedSearchModel',
    initial: 'loading',
    states: {
      loading: {
        on: {
          TYPED: 'debouncing',
          PAUSED: 'loading',
          ANSWERED: 'loaded',
          FAILED: 'failed',
          REFRESHED: 'loading',
          INTERVAL_ELAPSED: 'loading',
        },
      },
      debouncing: {
        on: {
          TYPED: 'debouncing',
          PAUSED: 'loading',
          ANSWERED: 'debouncing',
          FAILED: 'debouncing',
          REFRESHED: 'loading',
          // The interval is longer than the debounce: the typed term is searched meanwhile.
          INTERVAL_ELAPSED: 'loading',
        },
      },
      loaded: {
        on: {
          TYPED: 'debouncing',
          PAUSED: 'loaded',
          ANSWERED: 'loaded',
          FAILED: 'loaded',
          REFRESHED: 'loading',
          INTERVAL_ELAPSED: 'loading',
        },
      },
      failed: {
        on: {
          TYPED: 'debouncing',
          PAUSED: 'failed',
          ANSWERED: 'failed',
          FAILED: 'failed',
          REFRESHED: 'loading',
          INTERVAL_ELAPSED: 'loading',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, pagedSearchMachine, {
        states: {
          loading: 'loading',
          debouncing: 'debouncing',
          loaded: 'loaded',
          failed: 'failed',
        },
        events: {
          TYPED: 'search.termChanged',
          PAUSED: 'xstate.after.debounce.pagedSearch.debouncing',
          ANSWERED: 'xstate.done.actor.fetchPage',
          FAILED: 'xstate.error.actor.fetchPage',
          REFRESHED: 'search.refreshRequested',
          INTERVAL_ELAPSED: [
            'xstate.after.autoRefresh.pagedSearch.loaded',
            'xstate.after.autoRefresh.pagedSearch.failed',
          ],
        },
        // Paging and filters are covered by the tests above; the model is about what is shown
        // while queries supersede each other.
        unmodelledEvents: [
          'search.filterChanged',
          'search.nextRequested',
          'search.previousRequested',
        ],
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
      const s = startSearch({ refreshIntervalMs: REFRESH_MS });
      /** The items of the last answer the machine was waiting for. */
      let shown: string[] = [];
      let answers = 0;
      let typed = '';
      /** The fetch the machine waits for, if any (the others were cancelled). */
      const live = () => s.fetches.find((f) => !f.signal.aborted && !settled.has(f));
      const settled = new Set<Fetch>();
      const settle = async (outcome: 'answer' | 'fail') => {
        // Superseded fetches answer too: their answers must change nothing.
        for (const f of s.fetches.filter((f) => f.signal.aborted && !settled.has(f))) {
          settled.add(f);
          f.resolve(['stale']);
        }
        const f = live();
        if (f) {
          settled.add(f);
          if (outcome === 'answer') {
            shown = [`answer-${++answers}`];
            f.resolve(shown);
          } else {
            f.reject({ status: 500, message: 'Error' });
          }
        }
        await flush();
      };

      const expectShown = (value: 'loaded' | 'failed', error: boolean) => () => {
        const snapshot = s.snapshot();
        expect(snapshot.value).toBe(value);
        expect(selectIsSearchLoading(snapshot)).toBe(false);
        expect(selectItems(snapshot)).toEqual(shown);
        expect(selectSearchError(snapshot) !== null).toBe(error);
      };

      await path.test({
        states: {
          loading: () => {
            const snapshot = s.snapshot();
            expect(snapshot.value).toBe('loading');
            expect(selectItems(snapshot)).toEqual(shown);
            expect(live()?.query).toEqual({ term: typed, filter: [], skip: 0, take: TAKE });
          },
          debouncing: () => {
            expect(s.snapshot().value).toBe('debouncing');
            expect(live()).toBeUndefined();
            expect(selectItems(s.snapshot())).toEqual(shown);
          },
          loaded: expectShown('loaded', false),
          failed: expectShown('failed', true),
        },
        events: {
          TYPED: () => {
            typed += 'x';
            s.send({ type: 'search.termChanged', term: typed });
          },
          PAUSED: () => s.clock.increment(DEBOUNCE_MS),
          ANSWERED: () => settle('answer'),
          FAILED: () => settle('fail'),
          REFRESHED: () => s.send({ type: 'search.refreshRequested' }),
          INTERVAL_ELAPSED: () => s.clock.increment(REFRESH_MS),
        },
      });
    });
  }
});
