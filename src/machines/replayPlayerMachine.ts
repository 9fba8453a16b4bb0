import { assertEvent, assign, fromCallback, fromPromise, sendTo, setup } from 'xstate';
import type { ActorRefFrom, SnapshotFrom } from 'xstate';
import type { Recording } from '../api/recordings';
import { recordsUpTo, type ScreenRecord } from '../domain/recordingStream';
import type { TimelineMark } from '../domain/replayTimeline';
import { errorMessage } from '../domain/text';

/**
 * While playing, the playhead moves at least this often (in the viewer's time), so that the
 * timeline moves on through a quiet stretch of the recording as well.
 */
export const REPLAY_TICK_MS = 250;

export const REPLAY_SPEEDS = [1, 2, 4, 8, 16] as const;
export type ReplaySpeed = (typeof REPLAY_SPEEDS)[number];

/** The view's screen element, which noVNC draws into; the machine only hands it on. */
export type ReplayScreen = object;

/** A recording ready to play: its facts, its screen records in time order, the game's marks. */
export interface LoadedRecording {
  recording: Recording;
  records: ScreenRecord[];
  marks: TimelineMark[];
}

/**
 * What the player tells its screen (the `screen` actor, noVNC fed from the records):
 * - `screen.feed`: feed the records up to `toIndex` (exclusive) now; the playhead went on.
 * - `screen.seek`: show the screen as it was after `toIndex` records; going back starts a fresh
 *   client from the first record. Long feeds go in slices; `screen.seeked` with `seq` says done.
 */
export type ScreenCommand =
  { type: 'screen.feed'; toIndex: number } | { type: 'screen.seek'; toIndex: number; seq: number };

export interface ScreenInput {
  screen: ReplayScreen;
  records: ScreenRecord[];
  /** The first seek, which the screen does on its own as it starts. */
  seek: { toIndex: number; seq: number };
}

export type ReplayPlayerEvent =
  | { type: 'replay.screenAttached'; screen: ReplayScreen }
  | { type: 'replay.playRequested' }
  | { type: 'replay.pauseRequested' }
  | { type: 'replay.seekRequested'; offsetMs: number }
  | { type: 'replay.speedChanged'; speed: ReplaySpeed }
  | { type: 'replay.retryRequested' }
  | { type: 'replay.exportRequested' }
  /** The screen shows the state the seek numbered `seq` asked for. */
  | { type: 'screen.seeked'; seq: number }
  /** The console client gave up on the recorded bytes. */
  | { type: 'screen.failed'; reason: string };

export interface ReplayPlayerInput {
  gamespaceId: string;
  recordingId: string;
}

export interface ReplayPlayerContext extends ReplayPlayerInput {
  recording: Recording | null;
  records: ScreenRecord[];
  marks: TimelineMark[];
  /** The recording's length: its stated duration, or its last record if that is later. */
  durationMs: number;
  /** The playhead, in the recording's milliseconds. */
  positionMs: number;
  /** How many records the screen was told to show (those received at or before the playhead). */
  fed: number;
  speed: ReplaySpeed;
  screen: ReplayScreen | null;
  error: string | null;
  /** The number of the newest seek: a seek overtaken by another reports too late to count. */
  seekSeq: number;
  exportError: string | null;
}

const clampOffset = (context: ReplayPlayerContext, offsetMs: number): number =>
  Number.isFinite(offsetMs) ? Math.round(Math.min(context.durationMs, Math.max(0, offsetMs))) : 0;

/**
 * How far the playhead moves at the next step, in recording time: to the next record, the end,
 * or one tick of the viewer's time, whichever comes first.
 */
export const stepMs = (context: ReplayPlayerContext): number => {
  const next = Math.min(context.records[context.fed]?.offsetMs ?? Infinity, context.durationMs);
  return Math.max(0, Math.min(REPLAY_TICK_MS * context.speed, next - context.positionMs));
};

/** A seek's actions: the playhead moves to the offset (kept within the recording), the screen follows. */
const seekTo = (offsetMs: (event: ReplayPlayerEvent) => number) =>
  [
    {
      type: 'seek',
      params: ({ event }: { event: ReplayPlayerEvent }) => ({ offsetMs: offsetMs(event) }),
    },
    'tellScreenToSeek',
  ] as const;

const requestedOffset = (event: ReplayPlayerEvent) => {
  assertEvent(event, 'replay.seekRequested');
  return event.offsetMs;
};

/** A seek request from a state that shows a still screen, or from one that plays. */
const seekThenPause = {
  target: '#replayPlayer.player.open.seeking.thenPaused',
  reenter: true,
  actions: seekTo(requestedOffset),
} as const;
const seekThenPlay = {
  target: '#replayPlayer.player.open.seeking.thenPlaying',
  reenter: true,
  actions: seekTo(requestedOffset),
} as const;

const notProvided = (name: string) => new Error(`replayPlayerMachine: provide the ${name} actor`);

export const replayPlayerMachine = setup({
  types: {
    input: {} as ReplayPlayerInput,
    context: {} as ReplayPlayerContext,
    events: {} as ReplayPlayerEvent,
    // 'loading': the recording is on its way; 'playing': the playhead moves (a seek that will
    // play on counts); 'seeking': the screen catches up with a moved playhead; 'exporting': the
    // recording is being saved as a file.
    tags: {} as 'loading' | 'playing' | 'seeking' | 'exporting',
  },
  actors: {
    /** The recording's facts, its screen records and the game's marks; the app provides it. */
    loadRecording: fromPromise<LoadedRecording, ReplayPlayerInput>(() => {
      throw notProvided('loadRecording');
    }),
    /** noVNC fed from the records (ScreenCommand); it reports `screen.seeked`/`screen.failed`. */
    screen: fromCallback<ScreenCommand, ScreenInput>(() => {
      throw notProvided('screen');
    }),
    /** Saves the recording's stream as a file. */
    exportRecording: fromPromise<void, { recordingId: string }>(() => {
      throw notProvided('exportRecording');
    }),
  },
  delays: {
    /** Until the playhead's next step, in the viewer's time. */
    frameDue: ({ context }) => stepMs(context) / context.speed,
  },
  guards: {
    hasScreen: ({ context }) => context.screen !== null,
    isAtEnd: ({ context }) => context.positionMs >= context.durationMs,
    isLastStep: ({ context }) => context.positionMs + stepMs(context) >= context.durationMs,
    isCurrentSeek: ({ context, event }) => {
      assertEvent(event, 'screen.seeked');
      return event.seq === context.seekSeq;
    },
    isCurrentSeekToEnd: ({ context, event }) => {
      assertEvent(event, 'screen.seeked');
      return event.seq === context.seekSeq && context.positionMs >= context.durationMs;
    },
  },
  actions: {
    /** The playhead moves one step; the records it passed go to the screen. */
    advance: assign(({ context }) => {
      const positionMs = context.positionMs + stepMs(context);
      return { positionMs, fed: recordsUpTo(context.records, positionMs) };
    }),
    seek: assign(({ context }, params: { offsetMs: number }) => {
      const positionMs = clampOffset(context, params.offsetMs);
      return {
        positionMs,
        fed: recordsUpTo(context.records, positionMs),
        seekSeq: context.seekSeq + 1,
      };
    }),
    tellScreenToSeek: sendTo('screen', ({ context }): ScreenCommand => ({
      type: 'screen.seek',
      toIndex: context.fed,
      seq: context.seekSeq,
    })),
    feedScreen: sendTo('screen', ({ context }): ScreenCommand => ({
      type: 'screen.feed',
      toIndex: context.fed,
    })),
  },
}).createMachine({
  id: 'replayPlayer',
  description:
    "The replay of a console recording: it loads the recording with the game's events, then feeds noVNC the recorded screen at the recorded pace (1x to 16x); seeking shows the screen as it was at the new time, catching up from the start when it goes back.",
  type: 'parallel',
  context: ({ input }) => ({
    ...input,
    recording: null,
    records: [],
    marks: [],
    durationMs: 0,
    positionMs: 0,
    fed: 0,
    speed: 1,
    screen: null,
    error: null,
    seekSeq: 0,
    exportError: null,
  }),
  on: {
    'replay.screenAttached': {
      actions: assign({
        screen: ({ event }) => {
          assertEvent(event, 'replay.screenAttached');
          return event.screen;
        },
      }),
    },
  },
  states: {
    player: {
      initial: 'loading',
      states: {
        loading: {
          tags: ['loading'],
          invoke: {
            id: 'loadRecording',
            src: 'loadRecording',
            input: ({ context }) => ({
              gamespaceId: context.gamespaceId,
              recordingId: context.recordingId,
            }),
            onDone: {
              target: 'awaitingScreen',
              actions: assign(({ event }) => {
                // Graph traversals send done events bare: no output is an empty recording.
                const { recording, records, marks } = event.output ?? {
                  recording: null,
                  records: [],
                  marks: [],
                };
                return {
                  recording,
                  records,
                  marks,
                  durationMs: Math.max(recording?.durationMs ?? 0, records.at(-1)?.offsetMs ?? 0),
                  positionMs: 0,
                  fed: recordsUpTo(records, 0),
                  error: null,
                };
              }),
            },
            onError: {
              target: 'failed',
              actions: assign({ error: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        /** The page's screen element may mount after the recording arrives. */
        awaitingScreen: {
          tags: ['loading'],
          always: { guard: 'hasScreen', target: 'open' },
        },
        open: {
          initial: 'seeking',
          invoke: {
            id: 'screen',
            src: 'screen',
            input: ({ context }) => ({
              // awaitingScreen lets the player in only with a screen.
              screen: context.screen as ReplayScreen,
              records: context.records,
              seek: { toIndex: context.fed, seq: context.seekSeq },
            }),
          },
          on: {
            'replay.speedChanged': {
              actions: assign({
                speed: ({ event }) => {
                  assertEvent(event, 'replay.speedChanged');
                  return event.speed;
                },
              }),
            },
            'screen.failed': {
              target: 'failed',
              actions: assign({
                error: ({ event }) => {
                  assertEvent(event, 'screen.failed');
                  return `The recording cannot be shown: ${event.reason}`;
                },
              }),
            },
          },
          states: {
            paused: {
              on: {
                'replay.playRequested': [
                  // Play at the end plays again from the start.
                  {
                    guard: 'isAtEnd',
                    target: 'seeking.thenPlaying',
                    actions: seekTo(() => 0),
                  },
                  { target: 'playing' },
                ],
                'replay.seekRequested': seekThenPause,
              },
            },
            playing: {
              tags: ['playing'],
              after: {
                frameDue: [
                  { guard: 'isLastStep', target: 'ended', actions: ['advance', 'feedScreen'] },
                  { target: 'playing', reenter: true, actions: ['advance', 'feedScreen'] },
                ],
              },
              on: {
                'replay.pauseRequested': 'paused',
                'replay.seekRequested': seekThenPlay,
                // A new speed takes effect from the next step, counted afresh.
                'replay.speedChanged': {
                  target: 'playing',
                  reenter: true,
                  actions: assign({
                    speed: ({ event }) => {
                      assertEvent(event, 'replay.speedChanged');
                      return event.speed;
                    },
                  }),
                },
              },
            },
            seeking: {
              tags: ['seeking'],
              initial: 'thenPaused',
              states: {
                thenPaused: {
                  on: {
                    'replay.playRequested': 'thenPlaying',
                    'replay.seekRequested': seekThenPause,
                    'screen.seeked': [
                      { guard: 'isCurrentSeekToEnd', target: '#replayPlayer.player.open.ended' },
                      { guard: 'isCurrentSeek', target: '#replayPlayer.player.open.paused' },
                    ],
                  },
                },
                thenPlaying: {
                  tags: ['playing'],
                  on: {
                    'replay.pauseRequested': 'thenPaused',
                    'replay.seekRequested': seekThenPlay,
                    'screen.seeked': [
                      { guard: 'isCurrentSeekToEnd', target: '#replayPlayer.player.open.ended' },
                      { guard: 'isCurrentSeek', target: '#replayPlayer.player.open.playing' },
                    ],
                  },
                },
              },
            },
            ended: {
              on: {
                'replay.playRequested': {
                  target: 'seeking.thenPlaying',
                  actions: seekTo(() => 0),
                },
                'replay.seekRequested': seekThenPause,
              },
            },
          },
        },
        failed: {
          on: { 'replay.retryRequested': 'loading' },
        },
      },
    },
    export: {
      initial: 'idle',
      states: {
        idle: {
          on: { 'replay.exportRequested': 'exporting' },
        },
        exporting: {
          tags: ['exporting'],
          invoke: {
            id: 'exportRecording',
            src: 'exportRecording',
            input: ({ context }) => ({ recordingId: context.recordingId }),
            onDone: { target: 'idle', actions: assign({ exportError: null }) },
            onError: {
              target: 'idle',
              actions: assign({ exportError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
      },
    },
  },
});

export type ReplayPlayerActorRef = ActorRefFrom<typeof replayPlayerMachine>;
export type ReplayPlayerSnapshot = SnapshotFrom<typeof replayPlayerMachine>;
