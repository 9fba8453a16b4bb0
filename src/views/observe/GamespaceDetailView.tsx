import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { GamespaceRow } from '../../machines/gamespaceBrowserMachine';
import {
  dateText,
  detailSummary,
  rowSession,
  selectDetail,
  selectDetailControllers,
  selectDetailError,
  selectDetailTab,
  selectIsDetailLoading,
} from '../../machines/gamespaceBrowserMachine.selectors';
import {
  DETAIL_TABS,
  type DetailTab,
  type GamespaceDetail,
  type GamespaceDetailActorRef,
} from '../../machines/gamespaceDetailMachine';
import { VmController } from '../topo/templates/VmController';

const TAB_LABELS: Record<DetailTab, string> = {
  detail: 'Detail',
  json: 'Json',
  dispatcher: 'Dispatcher',
};

function Summary({
  row,
  detail,
  now,
}: {
  row: GamespaceRow;
  detail: GamespaceDetail;
  now: number;
}) {
  const summary = detailSummary(detail.challenge);
  const players = detail.players;
  const { countdown, ended } = rowSession(row, now);
  return (
    <dl className="tp-gs-summary" aria-label="Summary">
      <dt>Players</dt>
      <dd>
        {players === null
          ? 'Not shown to observers (only managers, players and admins may list them).'
          : players.length === 0
            ? 'none'
            : players.map((p) => p.subjectName || p.subjectId).join(', ')}
      </dd>
      <dt>Variant</dt>
      <dd>{summary.variant ?? '—'}</dd>
      <dt>Score</dt>
      <dd>
        {summary.score} of {summary.maxPoints}
      </dd>
      {summary.sets.map((set, i) => (
        <div key={i} className="tp-gs-summary-set">
          <dt>{set.name}</dt>
          <dd>{set.points}</dd>
        </div>
      ))}
      <dt>Start</dt>
      <dd>{dateText(row.startTime)}</dd>
      <dt>End</dt>
      <dd>{dateText(row.endTime)}</dd>
      {ended ? (
        <>
          <dt>Ended</dt>
          <dd>{ended}</dd>
        </>
      ) : (
        <>
          <dt>Time left</dt>
          <dd>{countdown}</dd>
        </>
      )}
    </dl>
  );
}

/**
 * An expanded row (spec §2): the machines with their controllers, then the Detail, Json and
 * Dispatcher tabs. The dispatcher console is given by the page; without one the tab says so.
 */
export function GamespaceDetailView({
  detailRef,
  row,
  now,
  dispatcher,
}: {
  detailRef: GamespaceDetailActorRef;
  row: GamespaceRow;
  now: number;
  dispatcher?: (gamespaceId: string) => ReactNode;
}) {
  const tab = useSelector(detailRef, selectDetailTab);
  const detail = useSelector(detailRef, selectDetail);
  const error = useSelector(detailRef, selectDetailError);
  const loading = useSelector(detailRef, selectIsDetailLoading);
  const controllers = useSelector(detailRef, selectDetailControllers);
  const panelId = `gs-detail-${row.id}`;

  if (loading) return <p className="tp-muted">Loading…</p>;
  if (error || !detail) {
    return (
      <p className="tp-browser-error" role="alert">
        {error}{' '}
        <button
          type="button"
          className="p-button p-component p-button-text p-button-sm"
          onClick={() => detailRef.send({ type: 'detail.retryRequested' })}
        >
          Retry
        </button>
      </p>
    );
  }
  return (
    <div className="tp-gs-detail">
      <ul className="tp-gs-vms" aria-label="Machines">
        {detail.vms.length === 0 && <li className="tp-muted">No machines.</li>}
        {detail.vms.map((vm) => {
          const controller = controllers[vm.id];
          return (
            <li key={vm.id} className="tp-gs-vm">
              <span className="tp-gs-vm-name">{vm.name}</span>
              {controller && <VmController controller={controller} />}
            </li>
          );
        })}
      </ul>
      <div className="tp-tabs" role="tablist" aria-label="Gamespace detail">
        {DETAIL_TABS.map((t) => (
          <button
            key={t}
            type="button"
            role="tab"
            id={`${panelId}-${t}`}
            aria-selected={tab === t}
            aria-controls={panelId}
            className={tab === t ? 'tp-tab tp-tab-active' : 'tp-tab'}
            onClick={() => detailRef.send({ type: 'detail.tabSelected', tab: t })}
          >
            {TAB_LABELS[t]}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={panelId} aria-labelledby={`${panelId}-${tab}`}>
        {tab === 'detail' && (
          <>
            <p className="tp-muted">TODO: a pretty UI for the detail.</p>
            <Summary row={row} detail={detail} now={now} />
          </>
        )}
        {tab === 'json' && (
          <pre className="tp-gs-json">{JSON.stringify(detail.challenge, null, 2)}</pre>
        )}
        {tab === 'dispatcher' &&
          (dispatcher ? (
            dispatcher(row.id)
          ) : (
            <p className="tp-muted">The dispatcher console arrives with the dispatcher.</p>
          ))}
      </div>
    </div>
  );
}
