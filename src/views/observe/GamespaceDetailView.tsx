import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { GamespaceRow } from '../../machines/gamespaceBrowserMachine';
import {
  detailSummary,
  detailTimes,
  selectDetail,
  selectDetailControllers,
  selectDetailError,
  selectDetailTab,
  selectDetailTimeline,
  selectIsDetailLoading,
} from '../../machines/gamespaceBrowserMachine.selectors';
import {
  DETAIL_TABS,
  type DetailTab,
  type GamespaceDetail,
  type GamespaceDetailActorRef,
} from '../../machines/gamespaceDetailMachine';
import { VmController } from '../topo/templates/VmController';
import { GameTimeline } from './GameTimeline';
import './observe.css';

const TAB_LABELS: Record<DetailTab, string> = {
  detail: 'Detail',
  events: 'Events',
  json: 'Json',
  dispatcher: 'Dispatcher',
  recordings: 'Recordings',
};

/**
 * The Detail tab: who plays, how the challenge stands (score, attempts, each question set) and
 * the game's time, each in a card of its own.
 */
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
  const times = detailTimes(row, now);
  const players = detail.players;
  return (
    <div className="tp-gs-facts" role="group" aria-label="Summary">
      <section className="tp-gs-fact" aria-labelledby={`${row.id}-players`}>
        <h3 id={`${row.id}-players`}>Players</h3>
        {players === null ? (
          <p className="tp-muted">
            Not shown to observers (only managers, players and admins may list them).
          </p>
        ) : players.length === 0 ? (
          <p className="tp-muted">None</p>
        ) : (
          <ul>
            {players.map((p, i) => (
              <li key={p.subjectId ?? i}>{p.subjectName || p.subjectId}</li>
            ))}
          </ul>
        )}
      </section>
      <section className="tp-gs-fact" aria-labelledby={`${row.id}-challenge`}>
        <h3 id={`${row.id}-challenge`}>Challenge</h3>
        <dl>
          <dt>Variant</dt>
          <dd>{summary.variant ?? '—'}</dd>
          <dt>Score</dt>
          <dd>
            {summary.score} of {summary.maxPoints}
          </dd>
          <dt>Attempts</dt>
          <dd>
            {summary.attempts}
            {summary.maxAttempts > 0 && ` of ${summary.maxAttempts}`}
          </dd>
        </dl>
        {summary.sets.length > 0 && (
          <table className="tp-gs-sets">
            <thead>
              <tr>
                <th scope="col">Question set</th>
                <th scope="col">Points</th>
                <th scope="col">Correct</th>
              </tr>
            </thead>
            <tbody>
              {summary.sets.map((set, i) => (
                <tr key={i}>
                  <th scope="row">{set.name}</th>
                  <td>
                    {set.points} of {set.maxPoints}
                  </td>
                  <td>
                    {set.correct} of {set.questions}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section className="tp-gs-fact" aria-labelledby={`${row.id}-time`}>
        <h3 id={`${row.id}-time`}>Time</h3>
        <dl>
          <dt>Started</dt>
          <dd>{times.started}</dd>
          {times.ended ? (
            <>
              <dt>Ended</dt>
              <dd>{times.ended}</dd>
            </>
          ) : (
            <>
              <dt>Time left</dt>
              <dd>{times.timeLeft}</dd>
            </>
          )}
          {times.timeUsed && (
            <>
              <dt>Time used</dt>
              <dd>{times.timeUsed}</dd>
            </>
          )}
        </dl>
      </section>
    </div>
  );
}

/**
 * An expanded row (spec §2): the machines with their controllers, then the Detail, Events, Json,
 * Dispatcher and Recordings tabs. The dispatcher console is given by the page; without one the
 * tab says so.
 */
export function GamespaceDetailView({
  detailRef,
  row,
  now,
  dispatcher,
  recordings,
}: {
  detailRef: GamespaceDetailActorRef;
  row: GamespaceRow;
  now: number;
  dispatcher?: (gamespaceId: string) => ReactNode;
  recordings?: (gamespaceId: string) => ReactNode;
}) {
  const tab = useSelector(detailRef, selectDetailTab);
  const detail = useSelector(detailRef, selectDetail);
  const error = useSelector(detailRef, selectDetailError);
  const loading = useSelector(detailRef, selectIsDetailLoading);
  const controllers = useSelector(detailRef, selectDetailControllers);
  const timeline = useSelector(detailRef, selectDetailTimeline);
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
          // The controller names its machine; until it runs, the name stands alone.
          const controller = controllers[vm.id];
          return (
            <li key={vm.id} className="tp-gs-vm">
              {controller ? (
                <VmController controller={controller} />
              ) : (
                <span className="tp-gs-vm-name">{vm.name}</span>
              )}
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
        {tab === 'detail' && <Summary row={row} detail={detail} now={now} />}
        {tab === 'events' && <GameTimeline timeline={timeline} />}
        {tab === 'json' && (
          <pre className="tp-gs-json">{JSON.stringify(detail.challenge, null, 2)}</pre>
        )}
        {tab === 'dispatcher' &&
          (dispatcher ? (
            dispatcher(row.id)
          ) : (
            <p className="tp-muted">The dispatcher console arrives with the dispatcher.</p>
          ))}
        {tab === 'recordings' &&
          (recordings ? (
            recordings(row.id)
          ) : (
            <p className="tp-muted">Console recordings are not shown here.</p>
          ))}
      </div>
    </div>
  );
}
