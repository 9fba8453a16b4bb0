import { useSelector } from '@xstate/react';
import { useMemo } from 'react';
import { ALERTS_REFRESH_MS, type AlertsActorRef } from '../../machines/alertsMachine';
import {
  alertLines,
  selectAlerts,
  selectAlertsError,
  selectIsAlertsLive,
  selectIsAlertsLoading,
} from '../../machines/alertsMachine.selectors';
import { Icon, piRefresh } from '../common/icons';
import './alerts.css';

const KIND_LABELS = { shared: 'Shared answer', canary: 'Canary' } as const;

/**
 * Answer-sharing alerts, newest first: who submitted whose generated answer (or a canary) to
 * which question, and when, with the answer submitted. One workspace's list shows new alerts as
 * they are recorded; every workspace's is loaded again every few seconds. Refresh loads it now.
 */
export function AlertList({ alerts }: { alerts: AlertsActorRef }) {
  const loaded = useSelector(alerts, selectAlerts);
  const error = useSelector(alerts, selectAlertsError);
  const loading = useSelector(alerts, selectIsAlertsLoading);
  const live = useSelector(alerts, selectIsAlertsLive);
  const lines = useMemo(() => alertLines(loaded), [loaded]);

  return (
    <div className="tp-alerts">
      <div className="tp-alerts-bar">
        <button
          type="button"
          className="p-button p-component p-button-sm p-button-outlined"
          onClick={() => alerts.send({ type: 'alerts.refreshRequested' })}
          disabled={loading}
        >
          <Icon shape={piRefresh} spin={loading} /> Refresh
        </button>
        <span className="tp-muted">
          {live
            ? 'New alerts show as they happen.'
            : `Checked for new alerts every ${ALERTS_REFRESH_MS / 1000} seconds.`}
        </span>
        {error && (
          <span className="tp-browser-error" role="alert">
            {error}
          </span>
        )}
      </div>
      {lines === null ? (
        loading && <p className="tp-muted">Loading…</p>
      ) : lines.length === 0 ? (
        <p className="tp-muted">No alerts.</p>
      ) : (
        // Scrolls past a few alerts, so that the gamespaces below stay in reach; focusable, so
        // that the keyboard scrolls it too.
        <ul className="tp-alert-list" aria-label="Alerts" tabIndex={0}>
          {lines.map((line) => (
            <li key={line.id} className={`tp-alert tp-alert-${line.kind}`}>
              <time dateTime={line.time}>{line.time}</time>
              <p className="tp-alert-text">
                <span className="tp-alert-kind">{KIND_LABELS[line.kind]}</span>
                {line.text}
              </p>
              <p className="tp-alert-detail">
                Answer <code>{line.answer}</code>
                {line.question && <> · {line.question}</>}
              </p>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
