import { useSelector } from '@xstate/react';
import { useCallback } from 'react';
import { Link } from 'react-router';
import { localTimeOf } from '../../domain/gameEvents';
import { clockText } from '../../domain/time';
import { timelinePercent } from '../../domain/replayTimeline';
import {
  REPLAY_SPEEDS,
  type ReplayPlayerActorRef,
  type ReplaySpeed,
} from '../../machines/replayPlayerMachine';
import {
  selectCanPause,
  selectCanPlay,
  selectDurationMs,
  selectExportError,
  selectIsReplayExporting,
  selectIsReplayLoading,
  selectIsReplayOpen,
  selectIsReplayPlaying,
  selectIsReplaySeeking,
  selectPositionMs,
  selectRecording,
  selectReplayError,
  selectSpeed,
  selectTimelineMarks,
} from '../../machines/replayPlayerMachine.selectors';
import { useTitle } from '../common/useTitle';
import './replay.css';

/** The timeline: the playhead as a slider over the recording, the game's events as marks. */
function Timeline({ player }: { player: ReplayPlayerActorRef }) {
  const positionMs = useSelector(player, selectPositionMs);
  const durationMs = useSelector(player, selectDurationMs);
  const marks = useSelector(player, selectTimelineMarks);
  const open = useSelector(player, selectIsReplayOpen);
  const seek = (offsetMs: number) => player.send({ type: 'replay.seekRequested', offsetMs });
  return (
    <div className="tp-replay-timeline">
      <span className="tp-replay-time" aria-live="off" data-testid="replay-position">
        {clockText(positionMs)} / {clockText(durationMs)}
      </span>
      <div className="tp-replay-track">
        <input
          type="range"
          aria-label="Timeline"
          aria-valuetext={`${clockText(positionMs)} of ${clockText(durationMs)}`}
          min={0}
          max={durationMs}
          step={100}
          value={positionMs}
          disabled={!open}
          onChange={(e) => seek(Number(e.currentTarget.value))}
        />
        <ol className="tp-replay-marks" aria-label="Game events">
          {marks.map((mark) => (
            <li
              key={mark.id}
              className={`tp-replay-mark tp-replay-mark-${mark.kind.replace('.', '-')}`}
              style={{ left: `${timelinePercent(mark.offsetMs, durationMs)}%` }}
            >
              <button
                type="button"
                title={`${clockText(mark.offsetMs)} ${mark.label}`}
                aria-label={`${clockText(mark.offsetMs)} ${mark.label}`}
                disabled={!open}
                onClick={() => seek(mark.offsetMs)}
              />
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}

/**
 * A console recording's replay (observers and admins): the recorded screen, Play and Pause, the
 * speed, the timeline with the game's events, and Export.
 */
export function ReplayView({ player }: { player: ReplayPlayerActorRef }) {
  const recording = useSelector(player, selectRecording);
  const loading = useSelector(player, selectIsReplayLoading);
  const error = useSelector(player, selectReplayError);
  const playing = useSelector(player, selectIsReplayPlaying);
  const seeking = useSelector(player, selectIsReplaySeeking);
  const canPlay = useSelector(player, selectCanPlay);
  const canPause = useSelector(player, selectCanPause);
  const speed = useSelector(player, selectSpeed);
  const exporting = useSelector(player, selectIsReplayExporting);
  const exportError = useSelector(player, selectExportError);
  useTitle(recording ? `Replay ${recording.machineName}` : 'Replay');

  const attachScreen = useCallback(
    (screen: HTMLDivElement | null) => {
      if (screen) player.send({ type: 'replay.screenAttached', screen });
    },
    [player],
  );

  return (
    <div className="tp-page tp-replay">
      <p>
        <Link to="/observe">Observe Dashboard</Link>
      </p>
      <h1>
        Replay
        {recording && `: ${recording.machineName}, ${recording.userName || recording.userId}`}
      </h1>
      {recording && (
        <p className="tp-muted">
          Started {localTimeOf(recording.startedAt)}
          {recording.truncated && '. The recording stops where it reached its size cap.'}
        </p>
      )}
      {loading && <p className="tp-muted">Loading the recording…</p>}
      {error && (
        <p className="tp-browser-error" role="alert">
          {error}{' '}
          <button
            type="button"
            className="p-button p-component p-button-text p-button-sm"
            onClick={() => player.send({ type: 'replay.retryRequested' })}
          >
            Retry
          </button>
        </p>
      )}
      <div className="tp-replay-toolbar" role="toolbar" aria-label="Replay">
        {playing ? (
          <button
            type="button"
            className="p-button p-component p-button-sm"
            disabled={!canPause}
            onClick={() => player.send({ type: 'replay.pauseRequested' })}
          >
            Pause
          </button>
        ) : (
          <button
            type="button"
            className="p-button p-component p-button-sm"
            disabled={!canPlay}
            onClick={() => player.send({ type: 'replay.playRequested' })}
          >
            Play
          </button>
        )}
        <label>
          Speed{' '}
          <select
            value={speed}
            onChange={(e) =>
              player.send({
                type: 'replay.speedChanged',
                speed: Number(e.currentTarget.value) as ReplaySpeed,
              })
            }
          >
            {REPLAY_SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}x
              </option>
            ))}
          </select>
        </label>
        <button
          type="button"
          className="p-button p-component p-button-sm p-button-outlined"
          disabled={exporting}
          onClick={() => player.send({ type: 'replay.exportRequested' })}
        >
          {exporting ? 'Exporting…' : 'Export'}
        </button>
        <span className="tp-muted" role="status">
          {seeking ? 'Seeking…' : ''}
        </span>
        {exportError && (
          <span className="tp-browser-error" role="alert">
            {exportError}
          </span>
        )}
      </div>
      <Timeline player={player} />
      <div
        ref={attachScreen}
        className="tp-replay-screen"
        aria-label="Recorded screen"
        role="img"
        data-seeking={seeking}
      />
    </div>
  );
}
