import {
  assertEvent,
  assign,
  fromEventObservable,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { WallEntry } from '../api/wall';
import { errorMessage } from '../domain/text';
import { NO_WALL_FILTER, reuseUnchanged, type WallFilter, type WallSort } from '../domain/wall';

export type { WallEntry };

/** The wall asks again for its gamespaces this often (and after a failure, as often). */
export const WALL_REFRESH_MS = 5_000;

export type WallEvent =
  | { type: 'wall.workspaceChosen'; workspaceId: string | null }
  | { type: 'wall.textChanged'; text: string }
  | { type: 'wall.sortChosen'; sort: WallSort }
  /** Pins an unpinned gamespace, unpins a pinned one. */
  | { type: 'wall.pinToggled'; gamespaceId: string }
  | { type: 'wall.refreshRequested' }
  | { type: 'clock.ticked'; now: number };

export interface WallInput {
  /** When the page opened; the clock moves it on. */
  now: number;
  /** The gamespaces pinned on an earlier visit (local settings), first pinned first. */
  pinned: readonly string[];
}

export interface WallContext {
  /**
   * The gamespaces of the last answer, unfiltered. An entry the next answer has unchanged stays
   * the same object, so that a tile selecting it renders again only when it changed.
   */
  entries: WallEntry[];
  /** When the last answer came; null until the first one (the page then shows a spinner). */
  loadedAt: number | null;
  error: string | null;
  filter: WallFilter;
  sort: WallSort;
  pinned: string[];
  /** The time the countdowns count from, moved on by the clock. */
  now: number;
}

/**
 * The instructor wall (/observe/wall): the running gamespaces the viewer may observe, asked for
 * again every few seconds, filtered by workspace and text, sorted, pinned ones first. Pins are
 * kept between visits (`rememberPinned`); those of gamespaces gone from the wall are let go.
 */
export const wallMachine = setup({
  types: {
    input: {} as WallInput,
    context: {} as WallContext,
    events: {} as WallEvent,
    // 'loading': an answer is on its way (the wall shows what it has meanwhile).
    tags: {} as 'loading',
  },
  actors: {
    /** GET wall; the app provides it. */
    loadWall: fromPromise<WallEntry[], void>(() => {
      throw new Error('wallMachine: provide the loadWall actor');
    }),
    clock: fromEventObservable<{ type: 'clock.ticked'; now: number }, void>(() => {
      throw new Error('wallMachine: provide the clock actor');
    }),
  },
  actions: {
    /** Keeps the pins for the next visit; the app provides it (local settings). */
    rememberPinned: (_, _params: { pinned: readonly string[] }) => {
      throw new Error('wallMachine: provide the rememberPinned action');
    },
    showAnswer: assign(({ context }, output: WallEntry[] | undefined) => ({
      // Graph traversals send done events bare: no output is an empty wall.
      entries: reuseUnchanged(context.entries, output ?? []),
      loadedAt: context.now,
      error: null,
    })),
    /** Pins of gamespaces no longer on the wall (ended) are let go. */
    forgetGonePins: assign({
      pinned: ({ context }) => {
        const present = new Set(context.entries.map((e) => e.gamespaceId));
        return context.pinned.filter((id) => present.has(id));
      },
    }),
    togglePin: assign({
      pinned: ({ context, event }) => {
        assertEvent(event, 'wall.pinToggled');
        return context.pinned.includes(event.gamespaceId)
          ? context.pinned.filter((id) => id !== event.gamespaceId)
          : [...context.pinned, event.gamespaceId];
      },
    }),
  },
  guards: {
    /** Whether an answer left out a pinned gamespace. */
    hasGonePins: ({ context }, { entries }: { entries: WallEntry[] | undefined }) => {
      const present = new Set((entries ?? []).map((e) => e.gamespaceId));
      return context.pinned.some((id) => !present.has(id));
    },
  },
  delays: {
    refreshInterval: WALL_REFRESH_MS,
  },
}).createMachine({
  id: 'wall',
  description:
    'The instructor wall: the running gamespaces the viewer may observe, loaded again every few seconds (and retried as often after a failure, showing what it had), with a workspace and text filter, a sort, and pins kept between visits.',
  context: ({ input }) => ({
    entries: [],
    loadedAt: null,
    error: null,
    filter: NO_WALL_FILTER,
    sort: 'timeLeft',
    pinned: [...input.pinned],
    now: input.now,
  }),
  invoke: { src: 'clock' },
  on: {
    'clock.ticked': { actions: assign({ now: ({ event }) => event.now }) },
    'wall.workspaceChosen': {
      actions: assign({
        filter: ({ context, event }) => ({ ...context.filter, workspaceId: event.workspaceId }),
      }),
    },
    'wall.textChanged': {
      actions: assign({
        filter: ({ context, event }) => ({ ...context.filter, text: event.text }),
      }),
    },
    'wall.sortChosen': { actions: assign({ sort: ({ event }) => event.sort }) },
    'wall.pinToggled': {
      actions: [
        'togglePin',
        { type: 'rememberPinned', params: ({ context }) => ({ pinned: context.pinned }) },
      ],
    },
  },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        id: 'loadWall',
        src: 'loadWall',
        onDone: [
          {
            guard: { type: 'hasGonePins', params: ({ event }) => ({ entries: event.output }) },
            target: 'loaded',
            actions: [
              { type: 'showAnswer', params: ({ event }) => event.output },
              'forgetGonePins',
              { type: 'rememberPinned', params: ({ context }) => ({ pinned: context.pinned }) },
            ],
          },
          {
            target: 'loaded',
            actions: { type: 'showAnswer', params: ({ event }) => event.output },
          },
        ],
        onError: {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    loaded: {
      after: { refreshInterval: 'loading' },
      on: { 'wall.refreshRequested': 'loading' },
    },
    failed: {
      after: { refreshInterval: 'loading' },
      on: { 'wall.refreshRequested': 'loading' },
    },
  },
});

export type WallActorRef = ActorRefFrom<typeof wallMachine>;
export type WallSnapshot = SnapshotFrom<typeof wallMachine>;
