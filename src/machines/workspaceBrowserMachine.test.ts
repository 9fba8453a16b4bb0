import { Observable, Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, fromPromise, SimulatedClock } from 'xstate';
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
