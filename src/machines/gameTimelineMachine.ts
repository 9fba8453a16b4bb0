import {
  assertEvent,
  assign,
  fromCallback,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { GameEvent } from '../api/gameEvents';
import { errorMessage } from '../domain/text';

/**
 * While the workspace's observe channel is not joined (no hub, no workspace known, or a
 * reconnection under way), the log is loaded again this often: nothing else tells of new events.
 */
export const TIMELINE_REFRESH_MS = 5_000;

export type GameTimelineEvent =
  | { type: 'timeline.shown' }
  | { type: 'timeline.hidden' }
  | { type: 'timeline.refreshRequested' }
  /** An event of this gamespace was recorded (EVENT.RECORDED on the observe channel). */
  | { type: 'timeline.eventRecorded'; event: GameEvent }
  /** Whether the workspace's observe channel is joined now. */
  | { type: 'timeline.liveChanged'; live: boolean };

export interface GameTimelineInput {
  gamespaceId: string;
  /** The gamespace's workspace, whose observe channel tells of its events; null: unknown. */
  workspaceId?: string | null;
}

export interface GameTimelineContext {
  gamespaceId: string;
  workspaceId: string | null;
  /** The log, oldest first, as loaded and heard since; null until it first arrives. */
  events: GameEvent[] | null;
  error: string | null;
  /** The observe channel is joined: new events arrive on their own. */
  live: boolean;
}

/** The log with `more` in it: each id once (the later copy wins), in order of time, then id. */
export function mergeEvents(log: readonly GameEvent[] | null, more: readonly GameEvent[]) {
  const byId = new Map((log ?? []).map((e) => [e.id, e]));
  for (const e of more) byId.set(e.id, e);
  return [...byId.values()].sort((a, b) =>
    a.at === b.at ? (a.id < b.id ? -1 : a.id > b.id ? 1 : 0) : Date.parse(a.at) - Date.parse(b.at),
  );
}

/**
 * The Events tab of an expanded gamespace: its event log (deploys, consoles opened and closed,
 * files, clipboard use, submissions with their score, extensions, the end, and kinds added
 * later), loaded when the tab is shown. While shown it listens on the workspace's observe channel
 * and adds the gamespace's events as they are recorded; only while that channel is not joined is
 * the log loaded again every TIMELINE_REFRESH_MS, and once it is joined again the log is loaded
 * once more for what was missed meanwhile. Nothing is loaded or heard hidden.
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
    /**
     * Listens on the workspace's observe channel while the tab is shown; reports
     * `timeline.liveChanged` and this gamespace's `timeline.eventRecorded`. The app provides it.
     */
    liveEvents: fromCallback<EventObject, { gamespaceId: string; workspaceId: string | null }>(
      () => {
        throw new Error('gameTimelineMachine: provide the liveEvents actor');
      },
    ),
  },
  actions: {
    recordLive: assign({
      live: ({ event }) => {
        assertEvent(event, 'timeline.liveChanged');
        return event.live;
      },
    }),
  },
  guards: {
    isLive: ({ context }) => context.live,
    becameLive: ({ event }) => event.type === 'timeline.liveChanged' && event.live,
    wentAway: ({ event }) => event.type === 'timeline.liveChanged' && !event.live,
  },
  delays: { refreshInterval: TIMELINE_REFRESH_MS },
}).createMachine({
  id: 'gameTimeline',
  description:
    "The Events tab of an expanded gamespace: its event log, loaded when the tab is shown, then kept up to date by the workspace's observe channel; loaded again every few seconds only while that channel is not joined, and once more when it is joined again.",
  context: ({ input }) => ({
    gamespaceId: input.gamespaceId,
    workspaceId: input.workspaceId ?? null,
    events: null,
    error: null,
    live: false,
  }),
  initial: 'hidden',
  states: {
    hidden: {
      on: { 'timeline.shown': 'shown' },
    },
    shown: {
      invoke: {
        id: 'liveEvents',
        src: 'liveEvents',
        input: ({ context }) => ({
          gamespaceId: context.gamespaceId,
          workspaceId: context.workspaceId,
        }),
      },
      // Left hidden, the channel is left: the next showing starts from not live.
      exit: assign({ live: false }),
      on: {
        'timeline.hidden': 'hidden',
        'timeline.eventRecorded': {
          actions: assign({
            events: ({ context, event }) => mergeEvents(context.events, [event.event]),
          }),
        },
        'timeline.liveChanged': { actions: 'recordLive' },
      },
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            id: 'loadEvents',
            src: 'loadEvents',
            input: ({ context }) => ({ gamespaceId: context.gamespaceId }),
            onDone: [
              {
                guard: 'isLive',
                target: 'live',
                // Graph traversals send done events bare: no log is an empty one. What was
                // heard while loading stays.
                actions: assign({
                  events: ({ context, event }) => mergeEvents(context.events, event.output ?? []),
                  error: null,
                }),
              },
              {
                target: 'polling',
                actions: assign({
                  events: ({ context, event }) => mergeEvents(context.events, event.output ?? []),
                  error: null,
                }),
              },
            ],
            onError: [
              {
                guard: 'isLive',
                target: 'live',
                actions: assign({ error: ({ event }) => errorMessage(event.error) }),
              },
              {
                target: 'polling',
                actions: assign({ error: ({ event }) => errorMessage(event.error) }),
              },
            ],
          },
        },
        /** The channel is not joined: the log is loaded again now and then. */
        polling: {
          after: { refreshInterval: 'loading' },
          on: {
            'timeline.refreshRequested': 'loading',
            // Joined (again): what was recorded before is loaded once, then heard.
            'timeline.liveChanged': [
              { guard: 'becameLive', target: 'loading', actions: 'recordLive' },
              { actions: 'recordLive' },
            ],
          },
        },
        /** New events arrive on the channel; nothing is loaded on its own. */
        live: {
          on: {
            'timeline.refreshRequested': 'loading',
            'timeline.liveChanged': [
              { guard: 'wentAway', target: 'polling', actions: 'recordLive' },
              { actions: 'recordLive' },
            ],
          },
        },
      },
    },
  },
});

export type GameTimelineActorRef = ActorRefFrom<typeof gameTimelineMachine>;
export type GameTimelineSnapshot = SnapshotFrom<typeof gameTimelineMachine>;
