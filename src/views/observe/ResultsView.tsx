import { useSelector } from '@xstate/react';
import { Link } from 'react-router';
import { localTimeOf } from '../../domain/gameEvents';
import type { ResultColumn } from '../../domain/results';
import { clockText, isUnsetDate } from '../../domain/time';
import type { GameResult, WorkspaceResultsActorRef } from '../../machines/workspaceResultsMachine';
import {
  selectCanExport,
  selectExportError,
  selectHasNoGames,
  selectIsExporting,
  selectIsLoadingResults,
  selectQuestionSetNames,
  selectResultRows,
  selectResultsError,
  selectSortOf,
  selectWorkspaceName,
} from '../../machines/workspaceResultsMachine.selectors';
import { Icon, piDownload, piRefresh } from '../common/icons';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import './observe.css';

const buttonClass = 'p-button p-component p-button-sm';

/** A column heading that sorts the table when clicked; aria-sort tells which way it is sorted. */
function SortHeading({
  results,
  column,
  label,
}: {
  results: WorkspaceResultsActorRef;
  column: ResultColumn;
  label: string;
}) {
  const sort = useSelector(results, selectSortOf(column));
  return (
    <th scope="col" aria-sort={sort}>
      <button
        type="button"
        className="tp-results-sort"
        onClick={() => results.send({ type: 'results.sortRequested', column })}
      >
        {label}
        <span aria-hidden="true">
          {sort === 'ascending' ? ' ▲' : sort === 'descending' ? ' ▼' : ''}
        </span>
      </button>
    </th>
  );
}

const dateText = (date: string) => (isUnsetDate(date) ? '—' : localTimeOf(date));

function statusText(r: GameResult): string {
  if (r.isRunning) return 'running';
  if (isUnsetDate(r.startTime)) return 'not started';
  return 'ended';
}

function ResultRow({ row, sets }: { row: GameResult; sets: number }) {
  const who = row.players.map((p) => p.name).join(', ') || row.managerName;
  return (
    <tr>
      <th scope="row">
        {row.isTeam ? <span className="tp-muted">Team: </span> : null}
        {who}
      </th>
      <td>{dateText(row.startTime)}</td>
      <td>{row.isRunning ? '—' : dateText(row.endTime)}</td>
      <td>{clockText(row.secondsUsed * 1000)}</td>
      <td>{statusText(row)}</td>
      <td>
        {row.score} / {row.maxPoints}
      </td>
      {Array.from({ length: sets }, (_, i) => {
        const set = row.questionSets[i];
        return <td key={i}>{set ? `${set.score} / ${set.maxScore}` : '—'}</td>;
      })}
      <td>
        {row.maxAttempts > 0 ? `${row.attempts} of ${row.maxAttempts} per set` : row.attempts}
      </td>
    </tr>
  );
}

/**
 * /observe/results/{workspaceId} (observers): every gamespace of a workspace, sortable by any
 * column, and its CSV.
 */
export function ResultsView({ results }: { results: WorkspaceResultsActorRef }) {
  const name = useSelector(results, selectWorkspaceName);
  const rows = useSelector(results, selectResultRows);
  const setNames = useSelector(results, selectQuestionSetNames);
  const loading = useSelector(results, selectIsLoadingResults);
  const error = useSelector(results, selectResultsError);
  const empty = useSelector(results, selectHasNoGames);
  const canExport = useSelector(results, selectCanExport);
  const exporting = useSelector(results, selectIsExporting);
  const exportError = useSelector(results, selectExportError);
  const canRefresh = useSelector(results, (s) => s.can({ type: 'results.refreshRequested' }));
  const sets = setNames === '' ? [] : setNames.split('\u0000');
  useTitle(name ? `Results: ${name}` : 'Results');

  return (
    <div className="tp-page tp-results">
      <p>
        <Link to="/observe">Back to the gamespaces</Link>
      </p>
      <h1>Results{name ? `: ${name}` : ''}</h1>
      <div className="tp-gs-toolbar">
        <button
          type="button"
          className={`${buttonClass} p-button-outlined`}
          disabled={!canRefresh}
          onClick={() => results.send({ type: 'results.refreshRequested' })}
        >
          <Icon shape={piRefresh} spin={loading} /> Refresh
        </button>
        <button
          type="button"
          className={buttonClass}
          disabled={!canExport}
          aria-busy={exporting}
          onClick={() => results.send({ type: 'results.exportRequested' })}
        >
          <Icon shape={piDownload} /> Export CSV
        </button>
      </div>
      {exportError && (
        <p className="tp-browser-error" role="alert">
          The export failed: {exportError}{' '}
          <button
            type="button"
            className={`${buttonClass} p-button-text`}
            onClick={() => results.send({ type: 'results.exportErrorDismissed' })}
          >
            Dismiss
          </button>
        </p>
      )}
      {error ? (
        <p className="tp-browser-error" role="alert">
          The results could not be loaded: {error}{' '}
          <button
            type="button"
            className={`${buttonClass} p-button-text`}
            onClick={() => results.send({ type: 'results.retryRequested' })}
          >
            Retry
          </button>
        </p>
      ) : loading && rows.length === 0 ? (
        <Spinner label="Loading results" />
      ) : empty ? (
        <p className="tp-muted" role="status">
          No gamespace of this workspace has been launched yet.
        </p>
      ) : (
        <table className="tp-gs-sets tp-results-table" aria-label="Results" aria-busy={loading}>
          <thead>
            <tr>
              <SortHeading results={results} column="players" label="Player or team" />
              <SortHeading results={results} column="started" label="Started" />
              <SortHeading results={results} column="ended" label="Ended" />
              <SortHeading results={results} column="timeUsed" label="Time used" />
              <SortHeading results={results} column="status" label="Status" />
              <SortHeading results={results} column="score" label="Score" />
              {sets.map((set, i) => (
                <SortHeading
                  key={i}
                  results={results}
                  column={`set:${i}`}
                  label={set || `Set ${i + 1}`}
                />
              ))}
              <SortHeading results={results} column="attempts" label="Attempts" />
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <ResultRow key={row.gamespaceId} row={row} sets={sets.length} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
