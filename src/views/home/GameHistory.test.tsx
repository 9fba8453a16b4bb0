// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { UNSET_DATE } from '../../domain/time';
import { myResultsMachine, type GameResult } from '../../machines/myResultsMachine';
import { flush } from '../../machines/testing/deferred';
import { GameHistory } from './GameHistory';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const game = (id: string, name: string, over: Partial<GameResult>): GameResult => ({
  gamespaceId: id,
  workspaceId: 'ws1',
  name,
  managerId: 'u1',
  managerName: 'Ann',
  players: [{ id: 'u1', name: 'Ann', isManager: true }],
  isTeam: false,
  whenCreated: '2026-11-30T10:00:00+00:00',
  startTime: '2026-11-30T10:00:00+00:00',
  endTime: UNSET_DATE,
  expirationTime: UNSET_DATE,
  secondsUsed: 3_725,
  isRunning: true,
  score: 40,
  maxPoints: 100,
  questionSets: [],
  attempts: 1,
  maxAttempts: 0,
  ...over,
});

let root: Root | null = null;
let container: HTMLElement;
afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
});

async function render(games: GameResult[]) {
  const history = createActor(
    myResultsMachine.provide({ actors: { loadMyResults: fromPromise(async () => games) } }),
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() =>
    root!.render(
      <MemoryRouter>
        <GameHistory history={history} />
      </MemoryRouter>,
    ),
  );
  await act(flush);
}

describe('GameHistory', () => {
  it('lists each game with its score and time, and a way back into a running one', async () => {
    await render([
      game('g2', 'Blue Lab', {}),
      game('g1', 'Red Lab', { isRunning: false, endTime: '2026-11-30T11:00:00+00:00' }),
    ]);
    const rows = [...container.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.querySelector('th')?.textContent)).toEqual(['Blue Lab', 'Red Lab']);
    expect(rows[0]?.textContent).toContain('40 / 100');
    expect(rows[0]?.textContent).toContain('01:02:05');
    expect(rows[0]?.querySelector('a')?.getAttribute('href')).toBe('/mojo/g2');
    expect(rows[1]?.querySelector('a')).toBeNull();
    expect(rows[1]?.textContent).toContain('ended');
  });

  it('says when there is no game yet', async () => {
    await render([]);
    expect(container.textContent).toContain('You have not played a game yet.');
    expect(container.querySelector('table')).toBeNull();
  });
});
