import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { GameEvent } from '../api/gameEvents';
import { errorMessage } from '../domain/text';

/**
 * The log is loaded again this often while it is shown: observers may not listen on the
 * gamespace's channel (wire reference §3 Listen), so nothing tells them of a new event.
 */
export const TIMELINE_REFRESH_MS = 5_000;

export type GameTimelineEvent =
  { type: 'timeline.shown' } | { type: 'timeline.hidden' } | { type: 'timeline.refreshRequested' };

export interface GameTimelineInput {
  gamespaceId: string;
}

export interface GameTimelineContext extends GameTimelineInput {
  /** The log, oldest first, as last loaded; null until it first arrives. */
  events: GameEvent[] | null;
  error: string | null;
}

/**
 * The Events tab of an expanded gamespace: its event log (deploys, consoles opened and closed,
 * files, clipboard use, submissions with their score, extensions, the end), loaded when the tab
 * is shown and again every TIMELINE_REFRESH_MS while it stays shown; nothing is loaded hidden.
 */
export const gameTimelineMachine = setup({
  types: {
    input: {} as GameTimelineInput,
    context: {} as GameTimelineContext,
    events: {} as GameTimelineEvent,
    // 'loading': a load is under way (the list shows what it had meanwhile).
    tags: {} as 'loading',
  },
  actors: {
    /** GET gamespace/{id}/events; the app provides it. */
    loadEvents: fromPromise<GameEvent[], { gamespaceId: string }>(() => {
      throw new Error('gameTimelineMachine: provide the loadEvents actor');
    }),
  },
  delays: { refreshInterval: TIMELINE_REFRESH_MS },
}).createMachine({
  id: 'gameTimeline',
  description:
    'The Events tab of an expanded gamespace: its event log, loaded while the tab is shown and again every few seconds, since observers hear of no new event.',
  context: ({ input }) => ({ ...input, events: null, error: null }),
  initial: 'hidden',
  states: {
    hidden: {
      on: { 'timeline.shown': 'shown' },
    },
    shown: {
      on: { 'timeline.hidden': 'hidden' },
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            src: 'loadEvents',
            input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
            onDone: {
              target: 'idle',
              // Graph traversals send done events bare: no log is an empty one.
              actions: assign({ events: ({ event }) => event.output ?? [], error: null }),
            },
            onError: {
              target: 'idle',
              actions: assign({ error: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        idle: {
          after: { refreshInterval: 'loading' },
          on: { 'timeline.refreshRequested': 'loading' },
        },
      },
    },
  },
});

export type GameTimelineActorRef = ActorRefFrom<typeof gameTimelineMachine>;
export type GameTimelineSnapshot = SnapshotFrom<typeof gameTimelineMachine>;
