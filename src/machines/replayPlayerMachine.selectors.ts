import type { Recording } from '../api/recordings';
import type { TimelineMark } from '../domain/replayTimeline';
import type { ReplayPlayerSnapshot, ReplaySpeed } from './replayPlayerMachine';

export const selectIsReplayLoading = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.hasTag('loading');

/** The playhead moves, or will once the screen has caught up with a seek. */
export const selectIsReplayPlaying = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.hasTag('playing');

export const selectIsReplaySeeking = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.hasTag('seeking');

export const selectIsReplayExporting = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.hasTag('exporting');

/** The player shows a recording (the screen, the controls and the timeline). */
export const selectIsReplayOpen = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.matches({ player: 'open' });

export const selectHasReplayEnded = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.matches({ player: { open: 'ended' } });

export const selectCanPlay = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.can({ type: 'replay.playRequested' });

export const selectCanPause = (snapshot: ReplayPlayerSnapshot): boolean =>
  snapshot.can({ type: 'replay.pauseRequested' });

export const selectReplayError = (snapshot: ReplayPlayerSnapshot): string | null =>
  snapshot.matches({ player: 'failed' }) ? snapshot.context.error : null;

export const selectExportError = (snapshot: ReplayPlayerSnapshot): string | null =>
  snapshot.context.exportError;

export const selectPositionMs = (snapshot: ReplayPlayerSnapshot): number =>
  snapshot.context.positionMs;

export const selectDurationMs = (snapshot: ReplayPlayerSnapshot): number =>
  snapshot.context.durationMs;

export const selectSpeed = (snapshot: ReplayPlayerSnapshot): ReplaySpeed => snapshot.context.speed;

export const selectRecording = (snapshot: ReplayPlayerSnapshot): Recording | null =>
  snapshot.context.recording;

export const selectTimelineMarks = (snapshot: ReplayPlayerSnapshot): readonly TimelineMark[] =>
  snapshot.context.marks;
