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

const payloadCell = (container: HTMLElement, seq: number) => rowOf(container, seq).cells[5];

/** The text of each visible row's cells, newest first. */
const cellsOf = (container: HTMLElement) =>
  [...container.querySelectorAll('tbody tr')].map((tr) =>
    [...tr.querySelectorAll('td')].map((td) => td.textContent),
  );

function change(element: HTMLInputElement | HTMLSelectElement, value: string) {
  const proto = Object.getPrototypeOf(element) as object;
  Object.getOwnPropertyDescriptor(proto, 'value')?.set?.call(element, value);
  element.dispatchEvent(
    new Event(element instanceof HTMLSelectElement ? 'change' : 'input', { bubbles: true }),
  );
}

const TIMELINE: readonly EventLogRow[] = [
  {
    seq: 1,
    at: new Date(2026, 10, 29, 9, 14, 3, 120).getTime(),
    actorId: 'x:39',
    machine: 'workspaceArchive',
    event: { type: 'archive.downloadRequested' },
    before: 'idle',
    after: 'downloading',
  },
  {
    seq: 2,
    at: new Date(2026, 10, 29, 9, 14, 4, 0).getTime(),
    actorId: 'x:39',
    machine: 'workspaceArchive',
    event: { type: 'xstate.done.actor.0.workspaceArchive.downloading' },
    before: 'downloading',
    after: 'idle',
  },
  {
    seq: 3,
    at: new Date(2026, 10, 29, 9, 14, 5, 0).getTime(),
    actorId: 'hubConnection',
    machine: 'hubConnection',
    event: { type: 'xstate.after.2000.hubConnection.reconnecting' },
    before: 'reconnecting',
    after: 'connecting',
  },
];

describe('EventLogView as a timeline', () => {
  it('shows time, screen, what happened and the state before and after, not xstate names', () => {
    const container = render(TIMELINE);
    expect(cellsOf(container).map((cells) => cells.slice(0, 5))).toEqual([
      [
        '3',
        '09:14:05.000',
        'Hub connection',
        '2 s passed in reconnecting',
        'reconnecting → connecting',
      ],
      ['2', '09:14:04.000', 'Workspace archive', 'Finished: downloading', 'downloading → idle'],
      [
        '1',
        '09:14:03.120',
        'Workspace archive',
        'Archive: download requested',
        'idle → downloading',
      ],
    ]);
    expect(container.textContent).not.toContain('x:39');
    expect(container.textContent).not.toContain('xstate.done');
  });

  it('filters by screen, by kind and by words', () => {
    const container = render(TIMELINE);
    const screen = container.querySelector('select')!;
    act(() => change(screen, 'Hub connection'));
    expect(cellsOf(container).map((cells) => cells[0])).toEqual(['3']);
    act(() => change(screen, ''));

    const finished = [...container.querySelectorAll('label')].find(
      (label) => label.textContent === 'Work finished',
    );
    act(() => finished?.querySelector('input')?.click());
    expect(cellsOf(container).map((cells) => cells[0])).toEqual(['2']);
    act(() => finished?.querySelector('input')?.click());

    act(() => change(container.querySelector<HTMLInputElement>('input[type=search]')!, 'request'));
    expect(cellsOf(container).map((cells) => cells[0])).toEqual(['1']);
    expect(container.querySelector('[role=status]')?.textContent).toBe(
      '3 events recorded, 1 match the filter.',
    );
  });
});

describe('EventLogView', () => {
  it('lays the table out in fixed columns, so that the payload gets the width left over', () => {
    const container = render(ROWS);
    const table = container.querySelector('table');
    expect(table?.classList.contains('tp-event-table')).toBe(true);
    const cols = [...(table?.querySelectorAll('colgroup col') ?? [])];
    expect(cols).toHaveLength(6);
    // The first five columns have widths of their own; the payload column has none.
    expect(cols.slice(0, 5).every((col) => col.className !== '')).toBe(true);
    expect(cols[5]?.className).toBe('');
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
    expect(details?.cells[0]?.colSpan).toBe(6);
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
