// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createActor,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type Observer,
  type Subscribable,
} from 'xstate';
import type { PageQuery } from '../../machines/pagedSearchMachine';
import { sidebarMachine, type SidebarActorRef } from '../../machines/sidebarMachine';
import { selectIsSidebarExpanded } from '../../machines/sidebarMachine.selectors';
import {
  BROWSE_DEBOUNCE_MS,
  BROWSE_PAGE_SIZE,
  gamespaceSearchMachine,
  workspaceBrowserMachine,
  workspaceSearchMachine,
  type BrowseMode,
  type GamespaceCard,
  type WorkspaceCard,
} from '../../machines/workspaceBrowserMachine';
import { Sidebar } from './Sidebar';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const NOW = Date.parse('2026-01-01T00:00:00Z');

/** Events for a `fromEventObservable` stub: `start` emits them and returns its cleanup. */
function eventSource<E>(start: (emit: (event: E) => void) => () => void): Subscribable<E> {
  return {
    subscribe(observer: Observer<E> | ((event: E) => void)) {
      const next = typeof observer === 'function' ? observer : (e: E) => observer.next?.(e);
      return { unsubscribe: start(next) };
    },
  } as Subscribable<E>;
}

interface Fixture {
  mine?: WorkspaceCard[];
  play?: WorkspaceCard[];
  gamespaces?: GamespaceCard[];
}

function startBrowser(
  sidebar: SidebarActorRef,
  {
    signedIn = true,
    mode,
    fixture = {},
  }: { signedIn?: boolean; mode?: BrowseMode; fixture?: Fixture },
) {
  const clock = new SimulatedClock();
  const queries: PageQuery[] = [];
  const remembered: BrowseMode[] = [];
  const browser = createActor(
    workspaceBrowserMachine.provide({
      actors: {
        watchSession: fromEventObservable(() =>
          eventSource<{ type: 'session.started' | 'session.ended' }>((emit) => {
            if (signedIn) emit({ type: 'session.started' });
            return () => undefined;
          }),
        ),
        watchSidebar: fromEventObservable(() =>
          eventSource<{ type: 'browser.shown' | 'browser.hidden' }>((emit) => {
            let shown: boolean | null = null;
            const report = () => {
              const expanded = selectIsSidebarExpanded(sidebar.getSnapshot());
              if (expanded !== shown) emit({ type: expanded ? 'browser.shown' : 'browser.hidden' });
              shown = expanded;
            };
            report();
            const subscription = sidebar.subscribe(report);
            return () => subscription.unsubscribe();
          }),
        ),
        watchWorkspaceChanges: fromEventObservable(() => eventSource(() => () => undefined)),
        clock: fromEventObservable(() =>
          eventSource<{ type: 'clock.ticked'; now: number }>((emit) => {
            emit({ type: 'clock.ticked', now: NOW });
            return () => undefined;
          }),
        ),
        workspaceSearch: workspaceSearchMachine.provide({
          actors: {
            fetchPage: fromPromise<WorkspaceCard[], PageQuery>(async ({ input }) => {
              queries.push(input);
              return (input.filter.includes('my') ? fixture.mine : fixture.play) ?? [];
            }),
          },
        }),
        gamespaceSearch: gamespaceSearchMachine.provide({
          actors: {
            fetchPage: fromPromise<GamespaceCard[], PageQuery>(async ({ input }) => {
              queries.push(input);
              return fixture.gamespaces ?? [];
            }),
          },
        }),
      },
      actions: { rememberMode: (_, { mode: chosen }) => remembered.push(chosen) },
    }),
    { clock, input: { mode } },
  ).start();
  return { browser, clock, queries, remembered };
}

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

async function renderSidebar(
  options: {
    signedIn?: boolean;
    mode?: BrowseMode;
    fixture?: Fixture;
    uploadEnabled?: boolean;
  } = {},
) {
  const sidebar = createActor(sidebarMachine).start();
  const { browser, clock, queries, remembered } = startBrowser(sidebar, options);
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () =>
    root?.render(
      <MemoryRouter>
        <Sidebar
          sidebar={sidebar}
          browser={browser}
          uploadEnabled={options.uploadEnabled ?? false}
        />
      </MemoryRouter>,
    ),
  );
  const el = container;
  const settle = () =>
    act(async () => {
      await flush();
    });
  const open = async () => {
    await act(async () => sidebar.send({ type: 'sidebar.openRequested' }));
    await settle();
  };
  const list = (name: string) => el.querySelector<HTMLElement>(`ul[aria-label="${name}"]`);
  const links = (scope: ParentNode | null) =>
    [...(scope?.querySelectorAll<HTMLAnchorElement>('a') ?? [])].map((a) => [
      a.textContent,
      a.getAttribute('href'),
    ]);
  const button = (name: string) =>
    [...el.querySelectorAll<HTMLButtonElement>('button')].find(
      (b) => (b.getAttribute('aria-label') ?? b.textContent?.trim()) === name,
    );
  const search = () => el.querySelector<HTMLInputElement>('input[aria-label="Search"]');
  return {
    sidebar,
    browser,
    clock,
    queries,
    remembered,
    el,
    open,
    settle,
    list,
    links,
    button,
    search,
  };
}

const LAB: WorkspaceCard = { id: 'ws1', name: 'Lab One', slug: 'lab-one' };

/** Types into a React-controlled input as a user does. */
function type(input: HTMLInputElement, value: string) {
  const setter = Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set;
  setter?.call(input, value);
  input.dispatchEvent(new Event('input', { bubbles: true }));
}

describe('WorkspaceBrowser', () => {
  it('asks signed-out users to sign in and fetches nothing', async () => {
    const { el, open, queries, search } = await renderSidebar({ signedIn: false });
    await open();
    expect(el.textContent).toContain('Sign in to browse workspaces.');
    expect(search()).toBeNull();
    expect(queries).toEqual([]);
  });

  it("lists the user's workspaces, whose name opens the settings and whose links open the sections", async () => {
    const { open, list, links } = await renderSidebar({ fixture: { mine: [LAB] } });
    await open();
    expect(links(list('My Workspaces'))).toEqual([
      ['Lab One', '/topo/ws1/settings'],
      ['Settings', '/topo/ws1/settings'],
      ['Templates', '/topo/ws1/templates'],
      ['Document', '/topo/ws1/document'],
      ['Challenge', '/topo/ws1/challenge'],
      ['Play', '/topo/ws1/play'],
    ]);
  });

  it('links the Files section only when uploads are enabled', async () => {
    const { open, list, links } = await renderSidebar({
      fixture: { mine: [LAB] },
      uploadEnabled: true,
    });
    await open();
    expect(links(list('My Workspaces'))).toContainEqual(['Files', '/topo/ws1/files']);
  });

  it('lists the published workspaces to play at /mojo/{id}/{slug}', async () => {
    const { open, list, links } = await renderSidebar({ fixture: { play: [LAB] } });
    await open();
    expect(links(list('Play'))).toEqual([['Lab One', '/mojo/ws1/lab-one']]);
  });

  it('searches what is typed in Search once typing pauses', async () => {
    const { open, search, queries, clock, settle } = await renderSidebar();
    await open();
    const box = search();
    expect(box).not.toBeNull();
    await act(async () => type(box as HTMLInputElement, 'Work'));
    expect(search()?.value).toBe('Work');
    await act(async () => clock.increment(BROWSE_DEBOUNCE_MS));
    await settle();
    expect(queries.slice(-2).map((q) => q.term)).toEqual(['Work', 'Work']);
  });

  it('moves the focus to Search on request (Ctrl+O), once', async () => {
    const { sidebar, browser, search, settle } = await renderSidebar();
    await act(async () => {
      sidebar.send({ type: 'sidebar.openRequested' });
      browser.send({ type: 'search.focusRequested' });
    });
    await settle();
    expect(document.activeElement).toBe(search());
    expect(browser.getSnapshot().hasTag('searchFocusRequested')).toBe(false);
  });

  it('switches to gamespaces with a pressed toggle, and remembers it', async () => {
    const started: GamespaceCard = {
      id: 'gs1',
      workspaceId: 'ws1',
      name: 'Lab One',
      slug: 'lab-one',
      started: true,
      expiresAt: NOW + 90 * 60_000,
    };
    const waiting: GamespaceCard = {
      ...started,
      id: 'gs2',
      workspaceId: null,
      started: false,
      expiresAt: null,
    };
    const { open, button, list, links, remembered, settle } = await renderSidebar({
      fixture: { gamespaces: [started, waiting] },
    });
    await open();
    expect(button('Workspaces')?.getAttribute('aria-pressed')).toBe('true');
    expect(document.querySelector('.tp-sidebar-title')?.textContent).toBe('Workspaces');
    await act(async () => button('Gamespaces')?.click());
    await settle();
    expect(button('Gamespaces')?.getAttribute('aria-pressed')).toBe('true');
    // The heading follows the mode (issue 16: it read "Workspaces" over the gamespace list).
    expect(document.querySelector('.tp-sidebar-title')?.textContent).toBe('Gamespaces');
    expect(button('Workspaces')?.getAttribute('aria-pressed')).toBe('false');
    expect(remembered).toEqual(['gamespaces']);
    const games = list('Active Gamespaces');
    expect(links(games)).toEqual([
      ['Continue', '/mojo/ws1/lab-one'],
      ['Preview', '/mojo/gs2/lab-one'],
    ]);
    const cards = [...(games?.querySelectorAll('li') ?? [])].map((li) => li.textContent);
    expect(cards[0]).toContain('expires in 1h');
    expect(cards[1]).not.toContain('expires in');
  });

  it('shows the pager for a full page, with Previous disabled on the first', async () => {
    const full = Array.from({ length: BROWSE_PAGE_SIZE }, (_, i) => ({
      id: `ws${i}`,
      name: `Lab ${i}`,
      slug: `lab-${i}`,
    }));
    const { open, button, queries, settle } = await renderSidebar({
      fixture: { mine: full },
    });
    await open();
    const previous = button('Previous');
    expect(previous?.disabled).toBe(true);
    expect(button('Next')?.disabled).toBe(false);
    await act(async () => button('Next')?.click());
    await settle();
    expect(queries.at(-1)).toMatchObject({ filter: ['my'], skip: BROWSE_PAGE_SIZE });
  });

  it('refreshes the lists with Refresh', async () => {
    const { open, button, queries, settle } = await renderSidebar();
    await open();
    const before = queries.length;
    await act(async () => button('Refresh')?.click());
    await settle();
    expect(queries.length).toBe(before + 2);
  });
});
