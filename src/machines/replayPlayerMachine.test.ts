import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { Recording } from '../api/recordings';
import type { ScreenRecord } from '../domain/recordingStream';
import {
  REPLAY_TICK_MS,
  replayPlayerMachine,
  type LoadedRecording,
  type ReplayPlayerEvent,
  type ReplayPlayerSnapshot,
  type ScreenCommand,
  type ScreenInput,
} from './replayPlayerMachine';
import {
  selectCanPause,
  selectCanPlay,
  selectDurationMs,
  selectIsReplayLoading,
  selectIsReplayPlaying,
  selectIsReplaySeeking,
  selectReplayError,
  selectPositionMs,
  selectTimelineMarks,
} from './replayPlayerMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const DURATION_MS = 6_000;
const OFFSETS = [0, 100, 1_000, 5_000];

const recording: Recording = {
  id: 'rec1',
  gamespaceId: 'gs1',
  machineId: 'vm1',
  machineName: 'web01',
  userId: 'u1',
  userName: 'Ann',
  startedAt: '2026-11-30T10:00:00.000Z',
  endedAt: '2026-11-30T10:00:06.000Z',
  durationMs: DURATION_MS,
  bytes: 4,
  truncated: false,
};

const records: ScreenRecord[] = OFFSETS.map((offsetMs, i) => ({
  offsetMs,
  bytes: Uint8Array.of(i),
}));

const loaded: LoadedRecording = {
  recording,
  records,
  marks: [{ id: 'e1', kind: 'deploy', offsetMs: 50, label: 'Deployed' }],
};

/** The player with stub effects: loads and exports wait for the test; the screen logs commands. */
function startPlayer({ attach = true }: { attach?: boolean } = {}) {
  const clock = new SimulatedClock();
  const loads: Deferred<LoadedRecording>[] = [];
  const exports: Deferred<void>[] = [];
  /** Each screen the player started: its input and the commands it got. */
  const screens: {
    input: ScreenInput;
    commands: ScreenCommand[];
    report: (event: ReplayPlayerEvent) => void;
  }[] = [];
  const machine = replayPlayerMachine.provide({
    actors: {
      loadRecording: fromPromise(() => {
        const load = deferred<LoadedRecording>();
        loads.push(load);
        return load.promise;
      }),
      exportRecording: fromPromise(() => {
        const exported = deferred<void>();
        exports.push(exported);
        return exported.promise;
      }),
      screen: fromCallback<ScreenCommand, ScreenInput>(({ input, receive, sendBack }) => {
        const screen = { input, commands: [] as ScreenCommand[], report: sendBack };
        screens.push(screen);
        receive((command) => screen.commands.push(command));
      }),
    },
  });
  const actor = createActor(machine, {
    clock,
    input: { gamespaceId: 'gs1', recordingId: 'rec1' },
  }).start();
  if (attach) actor.send({ type: 'replay.screenAttached', screen: {} });
  const send = (event: ReplayPlayerEvent) => actor.send(event);
  const snapshot = () => actor.getSnapshot();
  const screen = () => screens.at(-1);
  /** The screen's newest seek (the one it started with when it has had none since). */
  const lastSeek = () => {
    const s = screen();
    const seeks = s?.commands.filter((c) => c.type === 'screen.seek') ?? [];
    return seeks.at(-1) ?? (s ? { type: 'screen.seek' as const, ...s.input.seek } : undefined);
  };
  /** The screen reports that its newest seek is done. */
  const seeked = () => screen()?.report({ type: 'screen.seeked', seq: lastSeek()?.seq ?? -1 });
  const fedTo = () =>
    screen()
      ?.commands.filter((c) => c.type === 'screen.feed')
      .at(-1)?.toIndex;
  /** The viewer's time passes, a millisecond at a time (each step schedules the next). */
  const elapse = (ms: number) => {
    for (let i = 0; i < ms; i++) clock.increment(1);
  };
  const load = async (output: LoadedRecording = loaded) => {
    loads.at(-1)?.resolve(output);
    await flush();
  };
  const open = async () => {
    await load();
    seeked();
  };
  return {
    actor,
    clock,
    loads,
    exports,
    screens,
    send,
    snapshot,
    screen,
    lastSeek,
    seeked,
    fedTo,
    elapse,
    load,
    open,
  };
}

const player = (s: ReturnType<typeof startPlayer>) => s.snapshot().value.player;

describe('replayPlayerMachine', () => {
  it('loads the recording, then shows its first moment paused', async () => {
    const s = startPlayer();
    expect(selectIsReplayLoading(s.snapshot())).toBe(true);
    await s.load();
    expect(player(s)).toEqual({ open: { seeking: 'thenPaused' } });
    // The screen starts at the records received at 0 ms: the first one.
    expect(s.screen()?.input.seek).toEqual({ toIndex: 1, seq: 0 });
    expect(selectIsReplaySeeking(s.snapshot())).toBe(true);
    s.seeked();
    expect(player(s)).toEqual({ open: 'paused' });
    expect(selectDurationMs(s.snapshot())).toBe(DURATION_MS);
    expect(selectPositionMs(s.snapshot())).toBe(0);
    expect(selectTimelineMarks(s.snapshot())).toEqual(loaded.marks);
    expect(selectCanPlay(s.snapshot())).toBe(true);
    expect(selectCanPause(s.snapshot())).toBe(false);
  });

  it('waits for the screen element before starting noVNC', async () => {
    const s = startPlayer({ attach: false });
    await s.load();
    expect(player(s)).toBe('awaitingScreen');
    expect(s.screens).toHaveLength(0);
    s.send({ type: 'replay.screenAttached', screen: {} });
    expect(s.screens).toHaveLength(1);
  });

  it('feeds each record when the playhead reaches its time, at 1x', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.playRequested' });
    expect(selectIsReplayPlaying(s.snapshot())).toBe(true);
    s.elapse(99);
    expect(s.fedTo()).toBeUndefined();
    s.elapse(1);
    expect(s.fedTo()).toBe(2);
    expect(selectPositionMs(s.snapshot())).toBe(100);
    // Between records the playhead still moves on every tick.
    s.elapse(REPLAY_TICK_MS);
    expect(selectPositionMs(s.snapshot())).toBe(100 + REPLAY_TICK_MS);
    expect(s.fedTo()).toBe(2);
    s.elapse(1_000 - 100 - REPLAY_TICK_MS);
    expect(s.fedTo()).toBe(3);
  });

  it('plays 16 times as fast at 16x, and ends at the end of the recording', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.speedChanged', speed: 16 });
    s.send({ type: 'replay.playRequested' });
    // A millisecond's leeway a step: the simulated clock moves by whole milliseconds.
    s.elapse(1_000 / 16 + 2);
    expect(s.fedTo()).toBe(3);
    s.elapse((DURATION_MS - 1_000) / 16 + 2);
    expect(player(s)).toEqual({ open: 'ended' });
    expect(s.fedTo()).toBe(4);
    expect(selectPositionMs(s.snapshot())).toBe(DURATION_MS);
  });

  it('a speed changed while playing applies from the next step', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.playRequested' });
    s.elapse(100);
    s.send({ type: 'replay.speedChanged', speed: 4 });
    // The next record, at 1000 ms, comes 900 ms of recording later: 225 ms at 4x.
    s.elapse(900 / 4 - 1);
    expect(s.fedTo()).toBe(2);
    s.elapse(1);
    expect(s.fedTo()).toBe(3);
    expect(selectPositionMs(s.snapshot())).toBe(1_000);
  });

  it('pause holds the playhead', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.playRequested' });
    s.elapse(100);
    s.send({ type: 'replay.pauseRequested' });
    s.elapse(10_000);
    expect(selectPositionMs(s.snapshot())).toBe(100);
    expect(player(s)).toEqual({ open: 'paused' });
  });

  it('seeks to a time: the screen is told how many records to show, and the playhead waits for it', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.seekRequested', offsetMs: 3_000 });
    expect(s.lastSeek()).toEqual({ type: 'screen.seek', toIndex: 3, seq: 1 });
    expect(selectPositionMs(s.snapshot())).toBe(3_000);
    expect(player(s)).toEqual({ open: { seeking: 'thenPaused' } });
    s.seeked();
    expect(player(s)).toEqual({ open: 'paused' });
    // Back again: fewer records (the screen starts afresh for that).
    s.send({ type: 'replay.seekRequested', offsetMs: 50 });
    expect(s.lastSeek()).toEqual({ type: 'screen.seek', toIndex: 1, seq: 2 });
  });

  it('a seek overtaken by another does not end the seeking', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.seekRequested', offsetMs: 3_000 });
    s.send({ type: 'replay.seekRequested', offsetMs: 5_500 });
    s.screen()?.report({ type: 'screen.seeked', seq: 1 });
    expect(player(s)).toEqual({ open: { seeking: 'thenPaused' } });
    s.seeked();
    expect(player(s)).toEqual({ open: 'paused' });
    expect(selectPositionMs(s.snapshot())).toBe(5_500);
  });

  it('a seek while playing plays on from the new time', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.playRequested' });
    s.send({ type: 'replay.seekRequested', offsetMs: 4_900 });
    expect(selectIsReplayPlaying(s.snapshot())).toBe(true);
    s.seeked();
    s.elapse(100);
    expect(s.fedTo()).toBe(4);
  });

  it('keeps a seek within the recording', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.seekRequested', offsetMs: -20 });
    expect(selectPositionMs(s.snapshot())).toBe(0);
    s.send({ type: 'replay.seekRequested', offsetMs: 10 * DURATION_MS });
    expect(selectPositionMs(s.snapshot())).toBe(DURATION_MS);
    s.seeked();
    expect(player(s)).toEqual({ open: 'ended' });
  });

  it('play at the end plays again from the start', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.seekRequested', offsetMs: DURATION_MS });
    s.seeked();
    s.send({ type: 'replay.playRequested' });
    expect(s.lastSeek()).toMatchObject({ toIndex: 1 });
    expect(selectPositionMs(s.snapshot())).toBe(0);
    s.seeked();
    expect(player(s)).toEqual({ open: 'playing' });
  });

  it('a recording that cannot be loaded says why, and Retry loads it again', async () => {
    const s = startPlayer();
    s.loads[0]?.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(player(s)).toBe('failed');
    expect(selectReplayError(s.snapshot())).toBe('You are not allowed to do this.');
    s.send({ type: 'replay.retryRequested' });
    expect(s.loads).toHaveLength(2);
    await s.open();
    expect(player(s)).toEqual({ open: 'paused' });
    expect(selectReplayError(s.snapshot())).toBeNull();
  });

  it('a screen that cannot show the recorded bytes fails the replay', async () => {
    const s = startPlayer();
    await s.open();
    s.screen()?.report({ type: 'screen.failed', reason: 'Unsupported encoding.' });
    expect(player(s)).toBe('failed');
    expect(selectReplayError(s.snapshot())).toBe(
      'The recording cannot be shown: Unsupported encoding.',
    );
  });

  it('exports the recording beside the replay, and says when that failed', async () => {
    const s = startPlayer();
    await s.open();
    s.send({ type: 'replay.exportRequested' });
    expect(s.snapshot().hasTag('exporting')).toBe(true);
    expect(player(s)).toEqual({ open: 'paused' });
    s.exports[0]?.reject({ status: 500, message: 'Error' });
    await flush();
    expect(s.snapshot().hasTag('exporting')).toBe(false);
    expect(s.snapshot().context.exportError).not.toBeNull();
    s.send({ type: 'replay.exportRequested' });
    s.exports[1]?.resolve();
    await flush();
    expect(s.snapshot().context.exportError).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(replayPlayerMachine, {
        // Seeks are told apart by their number, and the end is a place of its own.
        serializeState: (s) => {
          const { context } = s as ReplayPlayerSnapshot;
          return JSON.stringify({
            value: s.value,
            seq: Math.min(context.seekSeq, 2),
            atEnd: context.durationMs > 0 && context.positionMs >= context.durationMs,
          });
        },
        inputs: [{ gamespaceId: 'gs1', recordingId: 'rec1' }],
        payloads: [
          { type: 'replay.screenAttached', screen: {} },
          { type: 'xstate.done.actor.loadRecording', output: loaded },
          // The screen's first seek is numbered 0, the next ones 1, 2...
          { type: 'screen.seeked', seq: 0 },
          { type: 'screen.seeked', seq: 1 },
          { type: 'replay.seekRequested', offsetMs: DURATION_MS },
        ],
      }),
    ).toEqual([]);
  });
});

describe('replayPlayerMachine against an abstract model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'RETRIED' }
    | { type: 'SEEKED' }
    | { type: 'PLAYED' }
    | { type: 'PAUSED' }
    | { type: 'SOUGHT_MIDDLE' }
    | { type: 'SOUGHT_END' }
    | { type: 'PLAYED_OUT' }
    | { type: 'SCREEN_FAILED' };

  // What the viewer sees: the player loading, a still screen, a moving one, one catching up with
  // a seek (to play on or to stay paused, or to the very end), the end, or why it failed.
  const open = {
    SCREEN_FAILED: 'failed',
    SOUGHT_MIDDLE: 'seekingPaused',
    SOUGHT_END: 'seekingEndPaused',
  };
  const playingOn = { ...open, SOUGHT_MIDDLE: 'seekingPlaying', SOUGHT_END: 'seekingEndPlaying' };
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'replayPlayerModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'seekingPaused', LOAD_FAILED: 'failed' } },
      seekingPaused: { on: { ...open, SEEKED: 'paused', PLAYED: 'seekingPlaying' } },
      seekingPlaying: { on: { ...playingOn, SEEKED: 'playing', PAUSED: 'seekingPaused' } },
      seekingEndPaused: { on: { ...open, SEEKED: 'ended', PLAYED: 'seekingEndPlaying' } },
      seekingEndPlaying: { on: { ...playingOn, SEEKED: 'ended', PAUSED: 'seekingEndPaused' } },
      paused: { on: { ...open, PLAYED: 'playing' } },
      playing: {
        on: { ...playingOn, PAUSED: 'paused', PLAYED_OUT: 'ended' },
      },
      ended: { on: { ...open, PLAYED: 'seekingPlaying' } },
      failed: { on: { RETRIED: 'loading' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, replayPlayerMachine, {
        states: {
          loading: 'player.loading',
          seekingPaused: 'player.open.seeking.thenPaused',
          seekingPlaying: 'player.open.seeking.thenPlaying',
          seekingEndPaused: 'player.open.seeking.thenPaused',
          seekingEndPlaying: 'player.open.seeking.thenPlaying',
          paused: 'player.open.paused',
          playing: 'player.open.playing',
          ended: 'player.open.ended',
          failed: 'player.failed',
        },
        events: {
          LOADED: 'xstate.done.actor.loadRecording',
          LOAD_FAILED: 'xstate.error.actor.loadRecording',
          RETRIED: 'replay.retryRequested',
          SEEKED: 'screen.seeked',
          PLAYED: 'replay.playRequested',
          PAUSED: 'replay.pauseRequested',
          SOUGHT_MIDDLE: 'replay.seekRequested',
          SOUGHT_END: 'replay.seekRequested',
          PLAYED_OUT: 'xstate.after.frameDue.replayPlayer.player.open.playing',
          SCREEN_FAILED: 'screen.failed',
        },
        // The screen arrives before the recording in these paths (the wait for it has its own
        // test above); the speed and Export do not change what is shown (tests above), and
        // Export runs in a region of its own.
        unmodelledStates: ['player.awaitingScreen', 'export'],
        unmodelledEvents: [
          'replay.screenAttached',
          'replay.speedChanged',
          'replay.exportRequested',
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
      const s = startPlayer();
      const expectOpen = (value: unknown, playing: boolean) => () => {
        expect(player(s)).toEqual({ open: value });
        expect(selectIsReplayPlaying(s.snapshot())).toBe(playing);
        expect(selectIsReplaySeeking(s.snapshot())).toBe(
          typeof value === 'object' && value !== null,
        );
      };
      await path.test({
        states: {
          loading: () => expect(selectIsReplayLoading(s.snapshot())).toBe(true),
          seekingPaused: expectOpen({ seeking: 'thenPaused' }, false),
          seekingPlaying: expectOpen({ seeking: 'thenPlaying' }, true),
          seekingEndPaused: () => {
            expectOpen({ seeking: 'thenPaused' }, false)();
            expect(selectPositionMs(s.snapshot())).toBe(DURATION_MS);
          },
          seekingEndPlaying: () => {
            expectOpen({ seeking: 'thenPlaying' }, true)();
            expect(selectPositionMs(s.snapshot())).toBe(DURATION_MS);
          },
          paused: expectOpen('paused', false),
          playing: expectOpen('playing', true),
          ended: () => {
            expectOpen('ended', false)();
            expect(selectPositionMs(s.snapshot())).toBe(DURATION_MS);
            // The screen was told to show every record, by playing or by seeking.
            const screen = s.screen();
            expect(screen?.commands.at(-1)?.toIndex ?? screen?.input.seek.toIndex).toBe(
              records.length,
            );
          },
          failed: () => {
            expect(player(s)).toBe('failed');
            expect(selectReplayError(s.snapshot())).not.toBeNull();
          },
        },
        events: {
          LOADED: () => s.load(),
          LOAD_FAILED: async () => {
            s.loads.at(-1)?.reject({ status: 500, message: 'Error' });
            await flush();
          },
          RETRIED: () => s.send({ type: 'replay.retryRequested' }),
          SEEKED: () => s.seeked(),
          PLAYED: () => s.send({ type: 'replay.playRequested' }),
          PAUSED: () => s.send({ type: 'replay.pauseRequested' }),
          SOUGHT_MIDDLE: () => s.send({ type: 'replay.seekRequested', offsetMs: DURATION_MS / 2 }),
          SOUGHT_END: () => s.send({ type: 'replay.seekRequested', offsetMs: DURATION_MS }),
          PLAYED_OUT: () => s.elapse(DURATION_MS + 1_000),
          SCREEN_FAILED: () => s.screen()?.report({ type: 'screen.failed', reason: 'x' }),
        },
      });
    });
  }
});
