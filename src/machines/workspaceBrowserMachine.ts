import {
  assign,
  enqueueActions,
  fromEventObservable,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { createPagedSearchMachine } from './pagedSearchMachine';
import type {
  BrowseMode,
  GamespaceCard,
  WorkspaceBrowserContext,
  WorkspaceBrowserEvent,
  WorkspaceBrowserInput,
  WorkspaceCard,
} from './workspaceBrowserMachine.types';

export type * from './workspaceBrowserMachine.types';

/** Browse page size and search debounce of the sidebar (spec §9). */
export const BROWSE_PAGE_SIZE = 100;
export const BROWSE_DEBOUNCE_MS = 150;

/** The list filters (wire reference §1.1, §1.2, §7: the reference UI's sidebar queries). */
export const MY_WORKSPACES_FILTER: readonly string[] = ['my'];
export const PLAY_WORKSPACES_FILTER: readonly string[] = ['play'];
export const ACTIVE_GAMESPACES_FILTER: readonly string[] = ['active'];

export const BROWSE_MODES = ['workspaces', 'gamespaces'] as const satisfies readonly BrowseMode[];

export const isBrowseMode = (value: unknown): value is BrowseMode =>
  (BROWSE_MODES as readonly unknown[]).includes(value);

export const workspaceSearchMachine = createPagedSearchMachine<WorkspaceCard>();
export const gamespaceSearchMachine = createPagedSearchMachine<GamespaceCard>();

const refresh = { type: 'search.refreshRequested' } as const;

/**
 * The workspace browser in the left sidebar (spec §2): a search box over the user's workspaces
 * and the published ones ('workspaces' mode) or the user's active gamespaces ('gamespaces' mode).
 * Nothing is fetched while signed out, nor before the sidebar is first opened; after that, each
 * opening refreshes the lists, so that what was created or changed meanwhile shows.
 */
export const workspaceBrowserMachine = setup({
  types: {
    input: {} as WorkspaceBrowserInput,
    context: {} as WorkspaceBrowserContext,
    events: {} as WorkspaceBrowserEvent,
    children: {} as {
      myWorkspaces: 'workspaceSearch';
      playWorkspaces: 'workspaceSearch';
      gamespaces: 'gamespaceSearch';
    },
    // 'searchFocusRequested': the search box should take the focus (the view does it, then
    // reports `search.focused`).
    tags: {} as 'searchFocusRequested',
  },
  actors: {
    /** `session.started` / `session.ended` as the user signs in and out. */
    watchSession: fromEventObservable<{ type: 'session.started' | 'session.ended' }, undefined>(
      () => {
        throw new Error('workspaceBrowserMachine: provide the watchSession actor');
      },
    ),
    /** `browser.shown` / `browser.hidden` as the sidebar opens and closes. */
    watchSidebar: fromEventObservable<{ type: 'browser.shown' | 'browser.hidden' }, undefined>(
      () => {
        throw new Error('workspaceBrowserMachine: provide the watchSidebar actor');
      },
    ),
    /** `workspaces.changed` on the hub's workspace events. */
    watchWorkspaceChanges: fromEventObservable<{ type: 'workspaces.changed' }, undefined>(() => {
      throw new Error('workspaceBrowserMachine: provide the watchWorkspaceChanges actor');
    }),
    /** `clock.ticked` every second. */
    clock: fromEventObservable<{ type: 'clock.ticked'; now: number }, undefined>(() => {
      throw new Error('workspaceBrowserMachine: provide the clock actor');
    }),
    /** GET workspaces; provide its fetchPage. */
    workspaceSearch: workspaceSearchMachine,
    /** GET gamespaces; provide its fetchPage. */
    gamespaceSearch: gamespaceSearchMachine,
  },
  actions: {
    /** Stores the chosen mode in local settings (`browseMode`). */
    rememberMode: (_, _params: { mode: BrowseMode }) => {
      throw new Error('workspaceBrowserMachine: provide the rememberMode action');
    },
    assignTerm: assign({
      term: ({ context, event }) =>
        event.type === 'search.termChanged' ? event.term : context.term,
    }),
    assignMode: assign({
      mode: ({ context, event }) =>
        event.type === 'browser.modeRequested' ? event.mode : context.mode,
    }),
    refreshWorkspaces: enqueueActions(({ enqueue }) => {
      enqueue.sendTo('myWorkspaces', refresh);
      enqueue.sendTo('playWorkspaces', refresh);
    }),
    refreshGamespaces: enqueueActions(({ enqueue }) => enqueue.sendTo('gamespaces', refresh)),
    /** The lists debounce the term themselves. */
    searchWorkspaces: enqueueActions(({ enqueue, event }) => {
      if (event.type !== 'search.termChanged') return;
      enqueue.sendTo('myWorkspaces', event);
      enqueue.sendTo('playWorkspaces', event);
    }),
    searchGamespaces: enqueueActions(({ enqueue, event }) => {
      if (event.type === 'search.termChanged') enqueue.sendTo('gamespaces', event);
    }),
  },
  guards: {
    isGamespaceMode: ({ context }) => context.mode === 'gamespaces',
    isWorkspacesRequested: ({ event }) =>
      event.type === 'browser.modeRequested' && event.mode === 'workspaces',
    isGamespacesRequested: ({ event }) =>
      event.type === 'browser.modeRequested' && event.mode === 'gamespaces',
  },
}).createMachine({
  id: 'workspaceBrowser',
  description:
    'The sidebar workspace browser: signed in and once opened, lists my workspaces and the play list, or active gamespaces with a 1 s clock; the mode is remembered, each opening refreshes, Ctrl+O focuses the search.',
  context: ({ input }) => ({ mode: input.mode ?? 'workspaces', term: '', now: null }),
  invoke: { src: 'watchSession' },
  initial: 'signedOut',
  states: {
    signedOut: {
      on: { 'session.started': 'signedIn' },
    },
    signedIn: {
      type: 'parallel',
      invoke: { src: 'watchSidebar' },
      // The next user starts with an empty search box.
      on: { 'session.ended': { target: 'signedOut', actions: assign({ term: '' }) } },
      states: {
        lists: {
          initial: 'dormant',
          states: {
            /** Signed in, but the sidebar has not been opened yet: nothing to fetch. */
            dormant: {
              on: { 'browser.shown': 'active' },
            },
            active: {
              initial: 'resuming',
              states: {
                resuming: {
                  always: [
                    { guard: 'isGamespaceMode', target: 'gamespaces' },
                    { target: 'workspaces' },
                  ],
                },
                workspaces: {
                  invoke: [
                    {
                      id: 'myWorkspaces',
                      src: 'workspaceSearch',
                      input: ({ context }) => ({
                        term: context.term,
                        filter: MY_WORKSPACES_FILTER,
                        take: BROWSE_PAGE_SIZE,
                        debounceMs: BROWSE_DEBOUNCE_MS,
                      }),
                    },
                    {
                      id: 'playWorkspaces',
                      src: 'workspaceSearch',
                      input: ({ context }) => ({
                        term: context.term,
                        filter: PLAY_WORKSPACES_FILTER,
                        take: BROWSE_PAGE_SIZE,
                        debounceMs: BROWSE_DEBOUNCE_MS,
                      }),
                    },
                    { src: 'watchWorkspaceChanges' },
                  ],
                  on: {
                    'search.termChanged': { actions: ['assignTerm', 'searchWorkspaces'] },
                    'search.refreshRequested': { actions: 'refreshWorkspaces' },
                    'browser.shown': { actions: 'refreshWorkspaces' },
                    'workspaces.changed': { actions: 'refreshWorkspaces' },
                    'browser.modeRequested': {
                      guard: 'isGamespacesRequested',
                      target: 'gamespaces',
                      actions: [
                        'assignMode',
                        { type: 'rememberMode', params: { mode: 'gamespaces' } },
                      ],
                    },
                  },
                },
                gamespaces: {
                  invoke: {
                    id: 'gamespaces',
                    src: 'gamespaceSearch',
                    input: ({ context }) => ({
                      term: context.term,
                      filter: ACTIVE_GAMESPACES_FILTER,
                      take: BROWSE_PAGE_SIZE,
                      debounceMs: BROWSE_DEBOUNCE_MS,
                    }),
                  },
                  on: {
                    'search.termChanged': { actions: ['assignTerm', 'searchGamespaces'] },
                    'search.refreshRequested': { actions: 'refreshGamespaces' },
                    'browser.modeRequested': {
                      guard: 'isWorkspacesRequested',
                      target: 'workspaces',
                      actions: [
                        'assignMode',
                        { type: 'rememberMode', params: { mode: 'workspaces' } },
                      ],
                    },
                  },
                  // The mode is chosen in the open sidebar, and `active` is entered when it
                  // opens: this mode always starts on show.
                  initial: 'shown',
                  states: {
                    /** The countdowns tick only while someone can see them. */
                    shown: {
                      invoke: { src: 'clock' },
                      on: {
                        'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
                        'browser.hidden': 'hidden',
                      },
                    },
                    hidden: {
                      on: { 'browser.shown': { target: 'shown', actions: 'refreshGamespaces' } },
                    },
                  },
                },
              },
            },
          },
        },
        searchFocus: {
          initial: 'idle',
          states: {
            idle: {
              on: { 'search.focusRequested': 'requested' },
            },
            requested: {
              tags: ['searchFocusRequested'],
              on: { 'search.focused': 'idle' },
            },
          },
        },
      },
    },
  },
});

export type WorkspaceBrowserActorRef = ActorRefFrom<typeof workspaceBrowserMachine>;
export type WorkspaceBrowserSnapshot = SnapshotFrom<typeof workspaceBrowserMachine>;
export type WorkspaceSearchActorRef = ActorRefFrom<typeof workspaceSearchMachine>;
export type GamespaceSearchActorRef = ActorRefFrom<typeof gamespaceSearchMachine>;
