import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import type { RecordingListActorRef } from '../../machines/recordingListMachine';
import {
  selectAreRecordingsLoading,
  selectRecordings,
  selectRecordingsError,
} from '../../machines/recordingListMachine.selectors';
import { localTimeOf } from '../../domain/gameEvents';
import { clockText } from '../../domain/time';

/** Where a recording's replay opens (src/app/router.tsx). */
export const replayPath = (gamespaceId: string, recordingId: string): string =>
  `/observe/replay/${encodeURIComponent(gamespaceId)}/${encodeURIComponent(recordingId)}`;

/** The Recordings tab of an expanded gamespace: its console sessions, each with Replay. */
export function RecordingList({ list }: { list: RecordingListActorRef }) {
  const recordings = useSelector(list, selectRecordings);
  const error = useSelector(list, selectRecordingsError);
  const loading = useSelector(list, selectAreRecordingsLoading);

  if (loading) return <p className="tp-muted">Loading…</p>;
  if (error) {
    return (
      <p className="tp-browser-error" role="alert">
        {error}{' '}
        <button
          type="button"
          className="p-button p-component p-button-text p-button-sm"
          onClick={() => list.send({ type: 'recordings.retryRequested' })}
        >
          Retry
        </button>
      </p>
    );
  }
  if (recordings.length === 0) return <p className="tp-muted">No console recordings.</p>;
  return (
    <table className="tp-gs-sets tp-gs-recordings" aria-label="Console recordings">
      <thead>
        <tr>
          <th scope="col">Machine</th>
          <th scope="col">Viewer</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Truncated</th>
          <th scope="col">
            <span className="tp-visually-hidden">Replay</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {recordings.map((r) => (
          <tr key={r.id}>
            <th scope="row">{r.machineName}</th>
            <td>{r.userName || r.userId}</td>
            <td>{localTimeOf(r.startedAt)}</td>
            <td>
              {r.endedAt === null ? `${clockText(r.durationMs)} (open)` : clockText(r.durationMs)}
            </td>
            <td>{r.truncated ? 'Yes: the size cap was reached' : 'No'}</td>
            <td>
              <Link
                to={replayPath(r.gamespaceId, r.id)}
                aria-label={`Replay ${r.machineName}, ${r.userName || r.userId}, ${localTimeOf(r.startedAt)}`}
              >
                Replay
              </Link>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
