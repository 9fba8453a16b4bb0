import { Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import type { PageQuery } from './pagedSearchMachine';
import { selectItems } from './pagedSearchMachine.selectors';
import {
  ACTIVE_GAMESPACES_FILTER,
  BROWSE_DEBOUNCE_MS,
  BROWSE_PAGE_SIZE,
  gamespaceSearchMachine,
  MY_WORKSPACES_FILTER,
  PLAY_WORKSPACES_FILTER,
  workspaceBrowserMachine,
  workspaceSearchMachine,
  type BrowseMode,
  type GamespaceCard,
  type WorkspaceBrowserEvent,
  type WorkspaceCard,
} from './workspaceBrowserMachine';
import {
  expiresInMs,
  expiresInText,
  selectBrowseMode,
  selectBrowserNow,
  selectBrowseTerm,
  selectGamespacesSearch,
  selectIsBrowserSignedIn,
  selectIsSearchFocusRequested,
  selectMyWorkspacesSearch,
  selectPlayWorkspacesSearch,
} from './workspaceBrowserMachine.selectors';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const LAB: WorkspaceCard = { id: 'ws-1', name: 'Lab', slug: 'lab' };
const PUBLISHED: WorkspaceCard = { id: 'ws-2', name: 'Published', slug: 'published' };
const GAME: GamespaceCard = {
  id: 'gs-1',
  workspaceId: 'ws-2',
  name: 'Published',
  slug: 'published',
  started: true,
  expiresAt: 1_000_000,
};

/** The browser with its streams as subjects and every fetch recorded (and answered at once). */
function startBrowser(mode?: BrowseMode) {
  const clock = new SimulatedClock();
  const session: Subject<{ type: 'session.started' | 'session.ended' }> = new Subject();
  const sidebar: Subject<{ type: 'browser.shown' | 'browser.hidden' }> = new Subject();
  const changes: Subject<{ type: 'workspaces.changed' }> = new Subject();
  const ticks: Subject<{ type: 'clock.ticked'; now: number }> = new Subject();
  let clocksRunning = 0;
  const fetches: { list: 'workspaces' | 'gamespaces'; query: PageQuery }[] = [];
  const remembered: BrowseMode[] = [];

  const actor = createActor(
    workspaceBrowserMachine.provide({
      actors: {
        watchSession: fromEventObservable(() => session),
        watchSidebar: fromEventObservable(() => sidebar),
        watchWorkspaceChanges: fromEventObservable(() => changes),
        clock: fromEventObservable(
          () =>
            new Observable<{ type: 'clock.ticked'; now: number }>((subscriber) => {
              clocksRunning += 1;
              const subscription = ticks.subscribe(subscriber);
              return () => {
                clocksRunning -= 1;
                subscription.unsubscribe();
              };
            }),
        ),
        workspaceSearch: workspaceSearchMachine.provide({
          actors: {
            fetchPage: fromPromise<WorkspaceCard[], PageQuery>(async ({ input }) => {
              fetches.push({ list: 'workspaces', query: input });
              return input.filter.includes('my') ? [LAB] : [LAB, PUBLISHED];
            }),
          },
        }),
        gamespaceSearch: gamespaceSearchMachine.provide({
          actors: {
            fetchPage: fromPromise<GamespaceCard[], PageQuery>(async ({ input }) => {
              fetches.push({ list: 'gamespaces', query: input });
              return [GAME];
            }),
          },
        }),
      },
      actions: { rememberMode: (_, { mode: chosen }) => remembered.push(chosen) },
    }),
    { clock, input: { mode } },
  ).start();

  const send = (event: WorkspaceBrowserEvent) => actor.send(event);
  const snapshot = () => actor.getSnapshot();
  const signIn = () => session.next({ type: 'session.started' });
  const open = async () => {
    sidebar.next({ type: 'browser.shown' });
    await flush();
  };
  /** The filters fetched since the last call, in order. */
  let seen = 0;
  const newFetches = () => {
    const result = fetches.slice(seen);
    seen = fetches.length;
    return result;
  };
  return {
    actor,
    clock,
    session,
    sidebar,
    changes,
    ticks,
    clocksRunning: () => clocksRunning,
    fetches,
    newFetches,
    remembered,
    send,
    snapshot,
    signIn,
    open,
  };
}

const query = (filter: readonly string[], term = ''): PageQuery => ({
  term,
  filter,
  skip: 0,
  take: BROWSE_PAGE_SIZE,
});

describe('workspaceBrowserMachine', () => {
  it('fetches nothing while signed out, even with the sidebar open', async () => {
    const b = startBrowser();
    await b.open();
    b.send({ type: 'search.refreshRequested' });
    expect(selectIsBrowserSignedIn(b.snapshot())).toBe(false);
    expect(b.fetches).toEqual([]);
  });

  it('signed in, waits for the sidebar to open before fetching', async () => {
    const b = startBrowser();
    b.signIn();
    await flush();
    expect(selectIsBrowserSignedIn(b.snapshot())).toBe(true);
    expect(b.fetches).toEqual([]);
    expect(selectMyWorkspacesSearch(b.snapshot())).toBeUndefined();
  });

  it("lists the user's workspaces (filter=my) and the play list, 100 a page, once opened", async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    expect(b.newFetches()).toEqual([
      { list: 'workspaces', query: query(MY_WORKSPACES_FILTER) },
      { list: 'workspaces', query: query(PLAY_WORKSPACES_FILTER) },
    ]);
    const mine = selectMyWorkspacesSearch(b.snapshot());
    const play = selectPlayWorkspacesSearch(b.snapshot());
    expect(mine && selectItems(mine.getSnapshot())).toEqual([LAB]);
    expect(play && selectItems(play.getSnapshot())).toEqual([LAB, PUBLISHED]);
    expect(selectGamespacesSearch(b.snapshot())).toBeUndefined();
    expect(BROWSE_PAGE_SIZE).toBe(100);
  });

  it('refreshes both lists each time the sidebar opens again, not when it closes', async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    b.newFetches();
    b.sidebar.next({ type: 'browser.hidden' });
    await flush();
    expect(b.newFetches()).toEqual([]);
    await b.open();
    expect(b.newFetches().map((f) => f.query.filter)).toEqual([
      MY_WORKSPACES_FILTER,
      PLAY_WORKSPACES_FILTER,
    ]);
  });

  it('refreshes both lists on Refresh and when a workspace changes on the hub', async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    b.newFetches();
    b.send({ type: 'search.refreshRequested' });
    await flush();
    expect(b.newFetches()).toHaveLength(2);
    b.changes.next({ type: 'workspaces.changed' });
    await flush();
    expect(b.newFetches()).toHaveLength(2);
  });

  it('searches both lists for the typed term once typing pauses for BROWSE_DEBOUNCE_MS', async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    b.newFetches();
    b.send({ type: 'search.termChanged', term: 'Work' });
    b.clock.increment(BROWSE_DEBOUNCE_MS - 1);
    b.send({ type: 'search.termChanged', term: 'Workspace' });
    b.clock.increment(BROWSE_DEBOUNCE_MS - 1);
    expect(b.newFetches()).toEqual([]);
    b.clock.increment(1);
    expect(b.newFetches()).toEqual([
      { list: 'workspaces', query: query(MY_WORKSPACES_FILTER, 'Workspace') },
      { list: 'workspaces', query: query(PLAY_WORKSPACES_FILTER, 'Workspace') },
    ]);
    expect(selectBrowseTerm(b.snapshot())).toBe('Workspace');
    expect(BROWSE_DEBOUNCE_MS).toBe(150);
  });

  it('switches to active gamespaces with the current term and remembers the choice', async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    b.send({ type: 'search.termChanged', term: 'lab' });
    b.newFetches();
    b.send({ type: 'browser.modeRequested', mode: 'gamespaces' });
    await flush();
    expect(selectBrowseMode(b.snapshot())).toBe('gamespaces');
    expect(b.remembered).toEqual(['gamespaces']);
    expect(b.newFetches()).toEqual([
      { list: 'gamespaces', query: query(ACTIVE_GAMESPACES_FILTER, 'lab') },
    ]);
    expect(selectMyWorkspacesSearch(b.snapshot())).toBeUndefined();
    const games = selectGamespacesSearch(b.snapshot());
    expect(games && selectItems(games.getSnapshot())).toEqual([GAME]);

    b.send({ type: 'browser.modeRequested', mode: 'gamespaces' });
    expect(b.remembered).toEqual(['gamespaces']);
    b.send({ type: 'browser.modeRequested', mode: 'workspaces' });
    await flush();
    expect(b.remembered).toEqual(['gamespaces', 'workspaces']);
    expect(b.newFetches().map((f) => f.query)).toEqual([
      query(MY_WORKSPACES_FILTER, 'lab'),
      query(PLAY_WORKSPACES_FILTER, 'lab'),
    ]);
  });

  it('starts in the remembered mode', async () => {
    const b = startBrowser('gamespaces');
    b.signIn();
    await b.open();
    expect(b.newFetches()).toEqual([
      { list: 'gamespaces', query: query(ACTIVE_GAMESPACES_FILTER) },
    ]);
  });

  it('ticks the countdown clock only while the gamespaces are on show', async () => {
    const b = startBrowser('gamespaces');
    b.signIn();
    await b.open();
    expect(b.clocksRunning()).toBe(1);
    expect(selectBrowserNow(b.snapshot())).toBeNull();
    b.ticks.next({ type: 'clock.ticked', now: 5_000 });
    expect(selectBrowserNow(b.snapshot())).toBe(5_000);

    b.sidebar.next({ type: 'browser.hidden' });
    expect(b.clocksRunning()).toBe(0);
    b.newFetches();
    await b.open();
    expect(b.clocksRunning()).toBe(1);
    expect(b.newFetches()).toHaveLength(1);

    b.send({ type: 'browser.modeRequested', mode: 'workspaces' });
    expect(b.clocksRunning()).toBe(0);
  });

  it('counts down to the expiry while it is in the future', () => {
    expect(expiresInMs(10_000, 4_000)).toBe(6_000);
    expect(expiresInMs(10_000, 10_000)).toBeNull();
    expect(expiresInMs(null, 4_000)).toBeNull();
    expect(expiresInMs(10_000, null)).toBeNull();
    expect(expiresInText(4_000 + 90 * 60_000, 4_000)).toBe('1h');
    expect(expiresInText(4_000, 4_000)).toBeNull();
  });

  it('drops the lists and the term when the session ends, and waits again after sign-in', async () => {
    const b = startBrowser();
    b.signIn();
    await b.open();
    b.send({ type: 'search.termChanged', term: 'lab' });
    b.session.next({ type: 'session.ended' });
    expect(selectIsBrowserSignedIn(b.snapshot())).toBe(false);
    expect(selectMyWorkspacesSearch(b.snapshot())).toBeUndefined();
    expect(selectBrowseTerm(b.snapshot())).toBe('');

    b.newFetches();
    b.signIn();
    await flush();
    expect(b.newFetches()).toEqual([]);
    await b.open();
    expect(b.newFetches()).toHaveLength(2);
  });

  it('asks the view to focus the search on Ctrl+O until it has', async () => {
    const b = startBrowser();
    b.send({ type: 'search.focusRequested' });
    expect(selectIsSearchFocusRequested(b.snapshot())).toBe(false);
    b.signIn();
    b.send({ type: 'search.focusRequested' });
    expect(selectIsSearchFocusRequested(b.snapshot())).toBe(true);
    await b.open();
    expect(selectIsSearchFocusRequested(b.snapshot())).toBe(true);
    b.send({ type: 'search.focused' });
    expect(selectIsSearchFocusRequested(b.snapshot())).toBe(false);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceBrowserMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ mode: 'workspaces' }, { mode: 'gamespaces' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the lists (spec §2): signing in and out, the sidebar opening and closing,
 * the mode (remembered across a sign-out), Refresh, hub changes, typing and the clock, through
 * the streams the app feeds the machine. The `…G` states are the gamespaces mode remembered while
 * signed out or before the sidebar opens. The test keeps the fetches it expects, with the term.
 */
describe('workspaceBrowserMachine lists against its model', () => {
  type ModelEvent =
    | { type: 'SIGNED_IN' }
    | { type: 'SIGNED_OUT' }
    | { type: 'SHOWN' }
    | { type: 'HIDDEN' }
    | { type: 'TO_WORKSPACES' }
    | { type: 'TO_GAMESPACES' }
    | { type: 'REFRESH' }
    | { type: 'CHANGED' }
    | { type: 'TYPED' }
    | { type: 'TICKED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceBrowserListsModel',
    initial: 'signedOut',
    states: {
      signedOut: { on: { SIGNED_IN: 'dormant', SHOWN: 'signedOut', REFRESH: 'signedOut' } },
      dormant: { on: { SHOWN: 'workspaces', SIGNED_OUT: 'signedOut', REFRESH: 'dormant' } },
      workspaces: {
        on: {
          TO_GAMESPACES: 'gamespaces',
          TO_WORKSPACES: 'workspaces',
          SHOWN: 'workspaces',
          HIDDEN: 'workspaces',
          REFRESH: 'workspaces',
          CHANGED: 'workspaces',
          TYPED: 'workspaces',
          SIGNED_OUT: 'signedOut',
        },
      },
      gamespaces: {
        on: {
          TO_WORKSPACES: 'workspaces',
          TO_GAMESPACES: 'gamespaces',
          HIDDEN: 'gamespacesHidden',
          REFRESH: 'gamespaces',
          CHANGED: 'gamespaces',
          TYPED: 'gamespaces',
          TICKED: 'gamespaces',
          SIGNED_OUT: 'signedOutG',
        },
      },
      gamespacesHidden: {
        on: { SHOWN: 'gamespaces', TO_WORKSPACES: 'workspaces', SIGNED_OUT: 'signedOutG' },
      },
      signedOutG: { on: { SIGNED_IN: 'dormantG' } },
      dormantG: { on: { SHOWN: 'gamespaces', SIGNED_OUT: 'signedOutG' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceBrowserMachine, {
        states: {
          signedOut: 'signedOut',
          dormant: 'signedIn.lists.dormant',
          workspaces: 'signedIn.lists.active.workspaces',
          gamespaces: 'signedIn.lists.active.gamespaces.shown',
          gamespacesHidden: 'signedIn.lists.active.gamespaces.hidden',
          signedOutG: 'signedOut',
          dormantG: 'signedIn.lists.dormant',
        },
        events: {
          SIGNED_IN: 'session.started',
          SIGNED_OUT: 'session.ended',
          SHOWN: 'browser.shown',
          HIDDEN: 'browser.hidden',
          TO_WORKSPACES: 'browser.modeRequested',
          TO_GAMESPACES: 'browser.modeRequested',
          REFRESH: 'search.refreshRequested',
          CHANGED: 'workspaces.changed',
          TYPED: 'search.termChanged',
          TICKED: 'clock.ticked',
        },
        // The search box's focus has its own model below.
        unmodelledStates: ['signedIn.searchFocus'],
        unmodelledEvents: ['search.focusRequested', 'search.focused'],
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
      const b = startBrowser();
      type Fetch = { list: string; filter: readonly string[]; term: string };
      const expected: Fetch[] = [];
      const remembered: BrowseMode[] = [];
      let term = '';
      let now: number | null = null;
      let current = 'signedOut';
      const fetchWorkspaces = () =>
        expected.push(
          { list: 'workspaces', filter: MY_WORKSPACES_FILTER, term },
          { list: 'workspaces', filter: PLAY_WORKSPACES_FILTER, term },
        );
      const fetchGamespaces = () =>
        expected.push({ list: 'gamespaces', filter: ACTIVE_GAMESPACES_FILTER, term });
      const expectBrowser =
        (
          state: string,
          signedIn: boolean,
          mode: BrowseMode,
          shown: 'workspaces' | 'gamespaces' | null,
          clock = false,
        ) =>
        () => {
          current = state;
          const snapshot = b.snapshot();
          expect(selectIsBrowserSignedIn(snapshot)).toBe(signedIn);
          expect(selectBrowseMode(snapshot)).toBe(mode);
          expect(selectMyWorkspacesSearch(snapshot) !== undefined).toBe(shown === 'workspaces');
          expect(selectPlayWorkspacesSearch(snapshot) !== undefined).toBe(shown === 'workspaces');
          expect(selectGamespacesSearch(snapshot) !== undefined).toBe(shown === 'gamespaces');
          expect(b.clocksRunning()).toBe(clock ? 1 : 0);
          expect(selectBrowseTerm(snapshot)).toBe(term);
          expect(selectBrowserNow(snapshot)).toBe(now);
          expect(b.remembered).toEqual(remembered);
          expect(
            b.fetches.map((f) => ({ list: f.list, filter: f.query.filter, term: f.query.term })),
          ).toEqual(expected);
        };
      await path.test({
        states: {
          signedOut: expectBrowser('signedOut', false, 'workspaces', null),
          dormant: expectBrowser('dormant', true, 'workspaces', null),
          workspaces: expectBrowser('workspaces', true, 'workspaces', 'workspaces'),
          gamespaces: expectBrowser('gamespaces', true, 'gamespaces', 'gamespaces', true),
          gamespacesHidden: expectBrowser('gamespacesHidden', true, 'gamespaces', 'gamespaces'),
          signedOutG: expectBrowser('signedOutG', false, 'gamespaces', null),
          dormantG: expectBrowser('dormantG', true, 'gamespaces', null),
        },
        events: {
          SIGNED_IN: async () => {
            b.signIn();
            await flush();
          },
          SIGNED_OUT: async () => {
            // The next user starts with an empty search box.
            term = '';
            b.session.next({ type: 'session.ended' });
            await flush();
          },
          SHOWN: async () => {
            if (current === 'dormant' || current === 'workspaces') fetchWorkspaces();
            if (current === 'dormantG' || current === 'gamespacesHidden') fetchGamespaces();
            await b.open();
          },
          HIDDEN: async () => {
            b.sidebar.next({ type: 'browser.hidden' });
            await flush();
          },
          TO_WORKSPACES: async () => {
            if (current !== 'workspaces') {
              remembered.push('workspaces');
              fetchWorkspaces();
            }
            b.send({ type: 'browser.modeRequested', mode: 'workspaces' });
            await flush();
          },
          TO_GAMESPACES: async () => {
            if (current !== 'gamespaces') {
              remembered.push('gamespaces');
              fetchGamespaces();
            }
            b.send({ type: 'browser.modeRequested', mode: 'gamespaces' });
            await flush();
          },
          REFRESH: async () => {
            if (current === 'workspaces') fetchWorkspaces();
            if (current === 'gamespaces') fetchGamespaces();
            b.send({ type: 'search.refreshRequested' });
            await flush();
          },
          // Hub changes are about workspaces: the gamespaces list does not listen.
          CHANGED: async () => {
            if (current === 'workspaces') fetchWorkspaces();
            b.changes.next({ type: 'workspaces.changed' });
            await flush();
          },
          // The lists search once typing pauses; Refresh, a mode switch or reopening
          // searches the typed term at once.
          TYPED: () => {
            term = `${term}l`;
            b.send({ type: 'search.termChanged', term });
          },
          TICKED: () => {
            now = (now ?? 0) + 1_000;
            b.ticks.next({ type: 'clock.ticked', now });
          },
        },
      });
    });
  }
});

/** Model-based test of Ctrl+O's focus request: held until the view reports the focus taken. */
describe('workspaceBrowserMachine search focus against its model', () => {
  type ModelEvent =
    | { type: 'SIGNED_IN' }
    | { type: 'SIGNED_OUT' }
    | { type: 'FOCUS_REQUESTED' }
    | { type: 'FOCUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceBrowserFocusModel',
    initial: 'signedOut',
    states: {
      signedOut: { on: { SIGNED_IN: 'idle', FOCUS_REQUESTED: 'signedOut' } },
      idle: { on: { FOCUS_REQUESTED: 'requested', FOCUSED: 'idle', SIGNED_OUT: 'signedOut' } },
      requested: {
        on: { FOCUSED: 'idle', FOCUS_REQUESTED: 'requested', SIGNED_OUT: 'signedOut' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceBrowserMachine, {
        states: {
          signedOut: 'signedOut',
          idle: 'signedIn.searchFocus.idle',
          requested: 'signedIn.searchFocus.requested',
        },
        events: {
          SIGNED_IN: 'session.started',
          SIGNED_OUT: 'session.ended',
          FOCUS_REQUESTED: 'search.focusRequested',
          FOCUSED: 'search.focused',
        },
        // The lists have their own model above.
        unmodelledStates: ['signedIn.lists'],
        unmodelledEvents: [
          'browser.shown',
          'browser.hidden',
          'browser.modeRequested',
          'search.refreshRequested',
          'workspaces.changed',
          'search.termChanged',
          'clock.ticked',
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
      const b = startBrowser();
      const expectFocus = (signedIn: boolean, requested: boolean) => () => {
        expect(selectIsBrowserSignedIn(b.snapshot())).toBe(signedIn);
        expect(selectIsSearchFocusRequested(b.snapshot())).toBe(requested);
      };
      await path.test({
        states: {
          signedOut: expectFocus(false, false),
          idle: expectFocus(true, false),
          requested: expectFocus(true, true),
        },
        events: {
          SIGNED_IN: () => b.signIn(),
          SIGNED_OUT: () => b.session.next({ type: 'session.ended' }),
          FOCUS_REQUESTED: () => b.send({ type: 'search.focusRequested' }),
          FOCUSED: () => b.send({ type: 'search.focused' }),
        },
      });
    });
  }
});
