import { useSelector } from '@xstate/react';
import { useMemo } from 'react';
import type { GameTimelineActorRef } from '../../machines/gameTimelineMachine';
import {
  selectIsTimelineLive,
  selectIsTimelineLoading,
  selectTimelineError,
  selectTimelineEvents,
  timelineLines,
} from '../../machines/gameTimelineMachine.selectors';
import './observe.css';

/**
 * The Events tab: the gamespace's event log, oldest first: when, who, what (and to which
 * machine), and the detail or score. New events show as they are recorded (Live), or within a
 * few seconds while the hub is away; Refresh loads it now.
 */
export function GameTimeline({ timeline }: { timeline: GameTimelineActorRef }) {
  const events = useSelector(timeline, selectTimelineEvents);
  const error = useSelector(timeline, selectTimelineError);
  const loading = useSelector(timeline, selectIsTimelineLoading);
  const live = useSelector(timeline, selectIsTimelineLive);
  const lines = useMemo(() => timelineLines(events), [events]);

  return (
    <div className="tp-gs-timeline">
      <div className="tp-gs-timeline-bar">
        <button
          type="button"
          className="p-button p-component p-button-text p-button-sm"
          onClick={() => timeline.send({ type: 'timeline.refreshRequested' })}
          disabled={loading}
        >
          Refresh
        </button>
        {live ? <span className="tp-muted">Live</span> : null}
        {error && (
          <span className="tp-browser-error" role="alert">
            {error}
          </span>
        )}
      </div>
      {lines === null ? (
        loading && <p className="tp-muted">Loading…</p>
      ) : lines.length === 0 ? (
        <p className="tp-muted">Nothing has happened yet.</p>
      ) : (
        <table className="tp-gs-sets tp-gs-events" aria-label="Events">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Detail</th>
            </tr>
          </thead>
          <tbody>
            {lines.map((line) => (
              <tr key={line.id}>
                <td>{line.time}</td>
                <td>{line.who}</td>
                <td>{line.what}</td>
                <td>{line.detail}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
