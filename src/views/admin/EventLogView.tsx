import { useState, useSyncExternalStore } from 'react';
import { Icon, piAngleDown, piAngleRight, piDownload } from '../common/icons';

/** One recorded event, as the event log keeps it. */
export interface EventLogRow {
  readonly seq: number;
  readonly at: number;
  readonly actorId: string;
  readonly event: { readonly type: string };
}

/** How many of the newest entries are listed; the export holds them all. */
const SHOWN_ENTRIES = 300;

/** Longest one-line summary of a payload, in characters; its disclosure shows all of it. */
export const SUMMARY_CHARS = 120;

const timeOf = (at: number) => new Date(at).toISOString().slice(11, 23);

const summaryOf = (line: string) =>
  line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;

/**
 * One event: its payload summed up on one line, a button that opens the whole of it,
 * pretty-printed, in a row of its own across the table's width.
 */
function EventRow({ row }: { row: EventLogRow }) {
  const [open, setOpen] = useState(false);
  const { type, ...payload } = row.event;
  const line = JSON.stringify(payload);
  const detailsId = `tp-event-${row.seq}`;
  return (
    <>
      <tr>
        <td>{row.seq}</td>
        <td>{timeOf(row.at)}</td>
        <td>{row.actorId}</td>
        <td>
          <code>{type}</code>
        </td>
        <td className="tp-payload">
          {line !== '{}' && (
            <button
              type="button"
              className="tp-payload-toggle"
              aria-expanded={open}
              aria-controls={open ? detailsId : undefined}
              onClick={() => setOpen(!open)}
            >
              <Icon shape={open ? piAngleDown : piAngleRight} />
              <code>{summaryOf(line)}</code>
            </button>
          )}
        </td>
      </tr>
      {/* Pretty-printed only when asked for: 300 rows of it would be mostly unread. */}
      {open && (
        <tr className="tp-payload-details">
          <td colSpan={5}>
            <pre id={detailsId} className="tp-payload-json">
              {JSON.stringify(payload, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}

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
          <Icon shape={piDownload} />
          <span>Export</span>
        </button>
      </div>
      <p className="tp-muted">
        {rows.length} events recorded
        {rows.length > shown.length ? `; the newest ${shown.length} are listed` : ''}.
      </p>
      {/* Fixed columns: the payload takes the width that is left, instead of the narrowest. */}
      <table className="tp-table tp-event-table" aria-label="Events">
        <colgroup>
          <col className="tp-event-seq" />
          <col className="tp-event-time" />
          <col className="tp-event-actor" />
          <col className="tp-event-type" />
          <col />
        </colgroup>
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
          {shown.map((row) => (
            <EventRow key={row.seq} row={row} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
