import { useSelector } from '@xstate/react';
import type { ServerLogActorRef } from '../../machines/serverLogMachine';
import {
  selectIsLoadingLog,
  selectLogError,
  selectNewestFirst,
} from '../../machines/serverLogMachine.selectors';
import { RefreshButton } from './RefreshButton';

/** The admin Log: the server's recent errors, newest first (GET admin/log). */
export function ServerLogView({ log }: { log: ServerLogActorRef }) {
  const entries = useSelector(log, selectNewestFirst);
  const loading = useSelector(log, selectIsLoadingLog);
  const error = useSelector(log, selectLogError);
  return (
    <section aria-labelledby="tp-server-log">
      <div className="tp-section-header">
        <h2 id="tp-server-log">Server log</h2>
        <RefreshButton
          loading={loading}
          onClick={() => log.send({ type: 'log.refreshRequested' })}
        />
      </div>
      <p className="tp-muted">The server's recent errors, kept in memory by each server process.</p>
      {error && (
        <p className="tp-alert tp-alert-danger" role="alert">
          {error}
        </p>
      )}
      {entries.length === 0 && !loading && !error && <p>No errors recorded.</p>}
      {entries.length > 0 && (
        <table className="tp-table" aria-label="Server errors">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Level</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry, i) => (
              <tr key={`${entry.timestamp} ${i}`}>
                <td>{new Date(entry.timestamp).toLocaleString()}</td>
                <td>{entry.level ?? 'error'}</td>
                <td>
                  <details>
                    <summary>{entry.message}</summary>
                    <pre className="tp-payload-json">
                      {entry.requestId ? `request ${entry.requestId}\n` : ''}
                      {entry.stackTrace}
                    </pre>
                  </details>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
