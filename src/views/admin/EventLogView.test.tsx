// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { EventLogView, SUMMARY_CHARS, type EventLogRow } from './EventLogView';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const LONG_TEXT = 'x'.repeat(SUMMARY_CHARS * 2);

const ROWS: readonly EventLogRow[] = [
  { seq: 1, at: 0, actorId: 'sidebar', event: { type: 'sidebar.pointerEntered' } },
  {
    seq: 2,
    at: 1_000,
    actorId: 'workspaceBrowser',
    event: { type: 'search.termChanged', term: 'lab', page: { skip: 0, take: 20 } } as {
      type: string;
    },
  },
  {
    seq: 3,
    at: 2_000,
    actorId: 'documentEditor',
    event: { type: 'document.edited', text: LONG_TEXT } as { type: string },
  },
];

let root: Root | undefined;
afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
});

function render(rows: readonly EventLogRow[]) {
  const container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() =>
    root?.render(
      <EventLogView subscribe={() => () => undefined} entries={() => rows} onExport={() => {}} />,
    ),
  );
  return container;
}

/** The row of event `seq`. */
function rowOf(container: HTMLElement, seq: number): HTMLTableRowElement {
  const row = [...container.querySelectorAll('tbody tr')].find(
    (tr) => tr.querySelector('td')?.textContent === String(seq),
  );
  if (!(row instanceof HTMLTableRowElement)) throw new Error(`no row for event ${seq}`);
  return row;
}

const payloadCell = (container: HTMLElement, seq: number) => rowOf(container, seq).cells[4];

describe('EventLogView', () => {
  it('lays the table out in fixed columns, so that the payload gets the width left over', () => {
    const container = render(ROWS);
    const table = container.querySelector('table');
    expect(table?.classList.contains('tp-event-table')).toBe(true);
    const cols = [...(table?.querySelectorAll('colgroup col') ?? [])];
    expect(cols).toHaveLength(5);
    // The first four columns have widths of their own; the payload column has none.
    expect(cols.slice(0, 4).every((col) => col.className !== '')).toBe(true);
    expect(cols[4]?.className).toBe('');
  });

  it('sums up each payload on one line, cut with an ellipsis when long, behind a closed disclosure', () => {
    const container = render(ROWS);
    const short = payloadCell(container, 2)?.querySelector('button');
    expect(short?.getAttribute('aria-expanded')).toBe('false');
    expect(short?.textContent).toBe('{"term":"lab","page":{"skip":0,"take":20}}');
    const long = payloadCell(container, 3)?.textContent ?? '';
    expect(long).not.toContain('\n');
    expect(long).toHaveLength(SUMMARY_CHARS + 1);
    expect(long.endsWith('…')).toBe(true);
    // Nothing pretty-printed until asked for.
    expect(container.querySelector('pre')).toBeNull();
    expect(container.querySelectorAll('tbody tr')).toHaveLength(ROWS.length);
  });

  it('shows no disclosure for an event without a payload', () => {
    const container = render(ROWS);
    expect(payloadCell(container, 1)?.textContent).toBe('');
    expect(payloadCell(container, 1)?.querySelector('button')).toBeNull();
  });

  it('pretty-prints the whole payload across the table when its disclosure is opened, and drops it when closed', () => {
    const container = render(ROWS);
    const toggle = payloadCell(container, 3)?.querySelector('button');
    act(() => toggle?.click());
    expect(toggle?.getAttribute('aria-expanded')).toBe('true');
    const details = rowOf(container, 3).nextElementSibling as HTMLTableRowElement | null;
    expect(details?.cells).toHaveLength(1);
    expect(details?.cells[0]?.colSpan).toBe(5);
    const pre = details?.querySelector('pre');
    expect(toggle?.getAttribute('aria-controls')).toBe(pre?.id);
    expect(pre?.textContent).toBe(JSON.stringify({ text: LONG_TEXT }, null, 2));
    expect(pre?.textContent).toContain('\n  "text": "');

    act(() => toggle?.click());
    expect(toggle?.getAttribute('aria-expanded')).toBe('false');
    expect(container.querySelector('pre')).toBeNull();
    expect(rowOf(container, 3).nextElementSibling?.querySelector('td')?.textContent).toBe('2');
  });
});
