// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { UNSET_DATE } from '../../domain/time';
import { flush } from '../../machines/testing/deferred';
import {
  workspaceResultsMachine,
  type GameResult,
  type WorkspaceResults,
} from '../../machines/workspaceResultsMachine';
import { ResultsView } from './ResultsView';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const game = (id: string, name: string, score: number): GameResult => ({
  gamespaceId: id,
  workspaceId: 'ws1',
  name: 'Lab',
  managerId: id,
  managerName: name,
  players: [{ id, name, isManager: true }],
  isTeam: false,
  whenCreated: '2026-11-30T10:00:00+00:00',
  startTime: `2026-11-30T1${id === 'a' ? 0 : 1}:00:00+00:00`,
  endTime: UNSET_DATE,
  expirationTime: UNSET_DATE,
  secondsUsed: 65,
  isRunning: true,
  score,
  maxPoints: 100,
  questionSets: [{ name: 'Recon', score, maxScore: 100, attempts: 1 }],
  attempts: 1,
  maxAttempts: 3,
});

let root: Root | null = null;
let container: HTMLElement;
afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
});

async function renderWith(load: () => Promise<WorkspaceResults>) {
  const actor = createActor(
    workspaceResultsMachine.provide({
      actors: {
        loadResults: fromPromise(load),
        exportResults: fromPromise(() => Promise.resolve()),
      },
    }),
    { input: { workspaceId: 'ws1' } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() =>
    root!.render(
      <MemoryRouter>
        <ResultsView results={actor} />
      </MemoryRouter>,
    ),
  );
  await act(flush);
  return actor;
}

const headingOf = (label: string) =>
  [...container.querySelectorAll('th[aria-sort]')].find((th) =>
    th.textContent?.startsWith(label),
  ) as HTMLElement;
const firstColumn = () => [...container.querySelectorAll('tbody th')].map((th) => th.textContent);

describe('ResultsView', () => {
  it('sorts by a column when its heading is clicked, and says so with aria-sort', async () => {
    await renderWith(async () => ({
      workspaceId: 'ws1',
      workspaceName: 'Lab',
      now: '2026-11-30T12:00:00+00:00',
      games: [game('b', 'Bob', 20), game('a', 'Ann', 90)],
    }));
    expect(container.querySelector('h1')?.textContent).toBe('Results: Lab');
    expect(firstColumn()).toEqual(['Bob', 'Ann']);
    expect(headingOf('Started').getAttribute('aria-sort')).toBe('descending');
    expect(headingOf('Score').getAttribute('aria-sort')).toBe('none');
    act(() => headingOf('Score').querySelector('button')!.click());
    expect(firstColumn()).toEqual(['Ann', 'Bob']);
    expect(headingOf('Score').getAttribute('aria-sort')).toBe('descending');
    expect(headingOf('Started').getAttribute('aria-sort')).toBe('none');
    // A column per question set, named after it; time used as a clock.
    expect(headingOf('Recon')).toBeTruthy();
    expect(container.textContent).toContain('00:01:05');
    expect(container.textContent).toContain('1 of 3 per set');
  });

  it('says when the workspace has no games, and offers no export', async () => {
    await renderWith(async () => ({
      workspaceId: 'ws1',
      workspaceName: 'Lab',
      now: '2026-11-30T12:00:00+00:00',
      games: [],
    }));
    expect(container.textContent).toContain(
      'No gamespace of this workspace has been launched yet.',
    );
    const exportButton = [...container.querySelectorAll('button')].find((b) =>
      b.textContent?.includes('Export CSV'),
    );
    expect(exportButton?.disabled).toBe(true);
  });

  it('says why the results could not be loaded, with Retry', async () => {
    await renderWith(async () => {
      throw { status: 403, message: 'ActionForbidden' };
    });
    const alert = container.querySelector('[role="alert"]');
    expect(alert?.textContent).toContain('The results could not be loaded: You are not allowed');
    expect(alert?.querySelector('button')?.textContent).toBe('Retry');
  });
});
