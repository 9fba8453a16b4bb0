import { useSyncExternalStore } from 'react';

/** One recorded event, as the event log keeps it. */
export interface EventLogRow {
  readonly seq: number;
  readonly at: number;
  readonly actorId: string;
  readonly event: { readonly type: string };
}

/** How many of the newest entries are listed; the export holds them all. */
const SHOWN_ENTRIES = 300;

const timeOf = (at: number) => new Date(at).toISOString().slice(11, 23);

/** The actor system's event log, live, newest first, with a JSON export (DESIGN.md). */
export function EventLogView({
  subscribe,
  entries,
  onExport,
}: {
  subscribe: (listener: () => void) => () => void;
  /** Returns the same array until the log changes. */
  entries: () => readonly EventLogRow[];
  onExport: () => void;
}) {
  const rows = useSyncExternalStore(subscribe, entries);
  const shown = rows.slice(-SHOWN_ENTRIES).reverse();

  return (
    <section aria-labelledby="tp-event-log">
      <div className="tp-section-header">
        <h2 id="tp-event-log">Event log</h2>
        <button type="button" className="p-button p-component p-button-sm" onClick={onExport}>
          <i className="pi pi-download" aria-hidden="true" />
          <span>Export</span>
        </button>
      </div>
      <p className="tp-muted">
        {rows.length} events recorded
        {rows.length > shown.length ? `; the newest ${shown.length} are listed` : ''}.
      </p>
      <table className="tp-table" aria-label="Events">
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Actor</th>
            <th scope="col">Event</th>
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((row) => {
            const { type, ...payload } = row.event;
            const details = JSON.stringify(payload);
            return (
              <tr key={row.seq}>
                <td>{row.seq}</td>
                <td>{timeOf(row.at)}</td>
                <td>{row.actorId}</td>
                <td>
                  <code>{type}</code>
                </td>
                <td className="tp-payload">{details === '{}' ? '' : details}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </section>
  );
}
