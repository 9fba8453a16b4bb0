import { useMemo, useState, useSyncExternalStore } from 'react';
import {
  EVENT_KINDS,
  matchesFilter,
  timelineEntryOf,
  type EventKind,
  type RecordedEvent,
} from '../../domain/eventTimeline';
import { Icon, piAngleDown, piAngleRight, piDownload } from '../common/icons';
import './admin.css';

/** One recorded event, as the event log keeps it. */
export type EventLogRow = RecordedEvent;

/** How many of the newest matching entries are listed; the export holds them all. */
const SHOWN_ENTRIES = 300;

/** Longest one-line summary of a payload, in characters; its disclosure shows all of it. */
export const SUMMARY_CHARS = 120;

const COLUMNS = 6;

const summaryOf = (line: string) =>
  line.length > SUMMARY_CHARS ? `${line.slice(0, SUMMARY_CHARS)}…` : line;

/**
 * One event: when, on which screen, what happened and the state it moved between; its data
 * summed up on one line, with a button that opens the whole of it in a row of its own.
 */
function EventRow({ row }: { row: EventLogRow }) {
  const [open, setOpen] = useState(false);
  const entry = timelineEntryOf(row);
  const { type, ...payload } = row.event;
  const line = JSON.stringify(payload);
  const detailsId = `tp-event-${row.seq}`;
  return (
    <>
      <tr>
        <td>{row.seq}</td>
        <td>{entry.time}</td>
        <td>{entry.screen}</td>
        <td title={type}>{entry.happened}</td>
        <td>
          {entry.before === entry.after ? (
            entry.after
          ) : (
            <>
              {entry.before || '–'} <span aria-label="to">→</span> {entry.after || '–'}
            </>
          )}
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
          <td colSpan={COLUMNS}>
            <pre id={detailsId} className="tp-payload-json">
              {JSON.stringify(payload, null, 2)}
            </pre>
          </td>
        </tr>
      )}
    </>
  );
}

/** The actor system's event log, live, newest first, with filters and a JSON export. */
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
  // The filters are this view's own: nothing else reads them, and the log does not change.
  const [screen, setScreen] = useState('');
  const [kinds, setKinds] = useState<readonly EventKind[]>([]);
  const [text, setText] = useState('');
  const screens = useMemo(
    () => [...new Set(rows.map((row) => timelineEntryOf(row).screen))].sort(),
    [rows],
  );
  const matching = rows.filter((row) =>
    matchesFilter(timelineEntryOf(row), { screen, kinds, text }),
  );
  const shown = matching.slice(-SHOWN_ENTRIES).reverse();
  const toggleKind = (kind: EventKind) =>
    setKinds(kinds.includes(kind) ? kinds.filter((k) => k !== kind) : [...kinds, kind]);

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
        What happened in this browser tab, screen by screen: each action, each piece of work that
        finished or failed, and the state it moved the screen to. The export holds every event
        recorded, as JSON.
      </p>
      <form
        className="tp-event-filters"
        aria-label="Filter events"
        onSubmit={(e) => e.preventDefault()}
      >
        <label className="tp-field">
          <span>Screen</span>
          <select
            className="p-inputtext p-component"
            value={screen}
            onChange={(e) => setScreen(e.target.value)}
          >
            <option value="">All screens</option>
            {screens.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <label className="tp-field">
          <span>Search</span>
          <input
            type="search"
            className="p-inputtext p-component"
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </label>
        <fieldset>
          <legend>Show</legend>
          {(Object.keys(EVENT_KINDS) as EventKind[]).map((kind) => (
            <label key={kind}>
              <input
                type="checkbox"
                checked={kinds.includes(kind)}
                onChange={() => toggleKind(kind)}
              />
              {EVENT_KINDS[kind]}
            </label>
          ))}
        </fieldset>
      </form>
      <p className="tp-muted" role="status">
        {rows.length} events recorded
        {matching.length < rows.length ? `, ${matching.length} match the filter` : ''}
        {matching.length > shown.length ? `; the newest ${shown.length} are listed` : ''}.
      </p>
      {/* Fixed columns: the data takes the width that is left, instead of the narrowest. */}
      <table className="tp-table tp-event-table" aria-label="Events">
        <colgroup>
          <col className="tp-event-seq" />
          <col className="tp-event-time" />
          <col className="tp-event-actor" />
          <col className="tp-event-type" />
          <col className="tp-event-state" />
          <col />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">#</th>
            <th scope="col">Time</th>
            <th scope="col">Screen</th>
            <th scope="col">What happened</th>
            <th scope="col">State before → after</th>
            <th scope="col">Data</th>
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
