// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromEventObservable,
  fromPromise,
  type Subscribable,
} from 'xstate';
import {
  gamespaceBrowserMachine,
  gamespaceListSearchMachine,
  type DeleteOutcome,
  type GamespaceRow,
} from '../../machines/gamespaceBrowserMachine';
import {
  gamespaceDetailMachine,
  type GamespaceDetail,
} from '../../machines/gamespaceDetailMachine';
import { flush } from '../../machines/testing/deferred';
import { vmControllerMachine } from '../../machines/vmControllerMachine';
import type { VmControllerEvent } from '../../machines/vmControllerMachine';
import { GamespaceBrowser } from './GamespaceBrowser';

/** A source that never emits (no clock ticks, no hub events in these tests). */
const silent = <T,>(): Subscribable<T> => ({
  subscribe: () => ({ unsubscribe: () => undefined }),
});

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = Date.parse('2026-01-01T00:30:00Z');
const rows: GamespaceRow[] = [
  {
    id: 'aaaaaaaa-1111',
    name: 'Live Lab',
    managerName: 'Ann',
    startTime: '2026-01-01T00:00:00Z',
    endTime: '0001-01-01T00:00:00+00:00',
    expirationTime: '2026-01-01T01:00:00Z',
  },
  {
    id: 'bbbbbbbb-2222',
    name: 'Old Lab',
    managerName: 'Bob',
    startTime: '2025-01-01T00:00:00Z',
    endTime: '2025-01-01T00:10:00Z',
    expirationTime: '2025-01-01T01:00:00Z',
  },
];
const detail: GamespaceDetail = {
  challenge: {
    maxPoints: 100,
    maxAttempts: 3,
    score: 0.5,
    variant: 0,
    challenge: {
      sections: [
        {
          name: 'First',
          score: 0.5,
          questions: [
            { weight: 0.5, isCorrect: true },
            { weight: 0.5, isCorrect: false },
          ],
        },
      ],
    },
  },
  vms: [{ id: 'vm-1', name: 'web' }],
  players: [{ subjectName: 'Pat' }],
};

let root: Root | null = null;
afterEach(() => {
  act(() => root?.unmount());
  root = null;
  document.body.innerHTML = '';
});

async function renderBrowser(fullAdminView: boolean) {
  const deleted: string[][] = [];
  const logic = gamespaceBrowserMachine.provide({
    actors: {
      gamespaceSearch: gamespaceListSearchMachine.provide({
        actors: { fetchPage: fromPromise(async () => rows) },
      }),
      gamespaceDetail: gamespaceDetailMachine.provide({
        actors: {
          loadDetail: fromPromise(async () => detail),
          // The controller never hears back: it shows its machine as loading.
          vmController: vmControllerMachine.provide({
            actors: {
              vmLoad: createMachine({}) as never,
              vmEvents: fromEventObservable(() => silent<VmControllerEvent>()),
            },
          }),
        },
      }),
      clock: fromEventObservable(() => silent<{ type: 'clock.ticked'; now: number }>()),
      deleteGamespaces: fromPromise<DeleteOutcome, { ids: string[] }>(async ({ input }) => {
        deleted.push(input.ids);
        return { deleted: input.ids, errors: [] };
      }),
    },
  });
  const browser = createActor(logic, { input: { fullAdminView, now: NOW } }).start();
  const container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(<GamespaceBrowser browser={browser} />));
  await act(flush);
  return { container, deleted };
}

const button = (container: HTMLElement, name: string) =>
  [...container.querySelectorAll('button')].filter((b) => b.textContent?.trim() === name);

describe('GamespaceBrowser', () => {
  it('lists each gamespace by short id, countdown, manager and name, green or dark', async () => {
    const { container } = await renderBrowser(false);
    const items = [...container.querySelectorAll('.tp-gs-row')];
    expect(items.map((i) => i.querySelector('.tp-gs-id')?.textContent)).toEqual([
      'aaaaaaaa',
      'bbbbbbbb',
    ]);
    expect(items[0]?.textContent).toContain('00:30:00');
    expect(items[0]?.textContent).toContain('Ann');
    expect(items[0]?.classList.contains('tp-gs-live')).toBe(true);
    expect(items[1]?.classList.contains('tp-gs-over')).toBe(true);
    // Ended: when, not a countdown to an expiry that no longer matters.
    expect(items[1]?.querySelector('[aria-label="ended"]')?.textContent).toBe(
      `ended ${new Date('2025-01-01T00:10:00Z').toLocaleString()}`,
    );
    expect(items[1]?.querySelector('[aria-label="countdown"]')).toBeNull();
    expect(container.querySelector('input[aria-label="term"]')).not.toBeNull();
    expect(container.querySelectorAll('nav.tp-pager')).toHaveLength(2);
  });

  it('is view-only for observers: no checkboxes and no deletes, machines without Delete', async () => {
    const { container } = await renderBrowser(false);
    expect(container.querySelector('input[type="checkbox"]')).toBeNull();
    expect(button(container, 'Delete')).toHaveLength(0);
    expect(button(container, 'Delete Selected')).toHaveLength(0);
  });

  it('View shows the machines and the detail tabs; a second View hides them', async () => {
    const { container } = await renderBrowser(false);
    await act(async () => button(container, 'View')[0]?.click());
    await act(flush);
    // The machine's name once: its controller's.
    const machine = container.querySelector('.tp-gs-vm');
    expect(machine?.querySelector('[role="group"]')?.getAttribute('aria-label')).toBe(
      'Machine web',
    );
    expect(machine?.textContent?.match(/web/g)).toHaveLength(1);
    const summary = container.querySelector('[aria-label="Summary"]');
    const card = (title: string) =>
      [...(summary?.querySelectorAll('section') ?? [])].find(
        (section) => section.querySelector('h3')?.textContent === title,
      )?.textContent ?? '';
    expect(card('Players')).toBe('PlayersPat');
    expect(card('Challenge')).toContain('Score50 of 100');
    expect(card('Challenge')).toContain('Attempts0 of 3');
    expect(card('Challenge')).toContain('First50 of 1001 of 2');
    expect(card('Time')).toContain('Time left00:30:00');
    expect(container.textContent).not.toContain('TODO');
    await act(async () => button(container, 'Json')[0]?.click());
    expect(container.querySelector('.tp-gs-json')?.textContent).toContain('"maxPoints": 100');
    await act(async () => button(container, 'View')[0]?.click());
    expect(container.querySelector('.tp-gs-detail')).toBeNull();
  });

  it('deletes the selected gamespaces after confirmation in the full admin view', async () => {
    const { container, deleted } = await renderBrowser(true);
    const selectAll = [...container.querySelectorAll('label')].find((l) =>
      l.textContent?.includes('select all'),
    );
    await act(async () => selectAll?.querySelector('input')?.click());
    await act(async () => button(container, 'Delete Selected')[0]?.click());
    expect(deleted).toEqual([]);
    await act(async () => button(container, 'Confirm')[0]?.click());
    await act(flush);
    expect(deleted).toEqual([['aaaaaaaa-1111', 'bbbbbbbb-2222']]);
  });
});
