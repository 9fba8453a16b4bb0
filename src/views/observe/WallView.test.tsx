// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromEventObservable, fromPromise, type Subscribable } from 'xstate';
import { UNSET_DATE } from '../../domain/time';
import { flush } from '../../machines/testing/deferred';
import { wallMachine, type WallEntry } from '../../machines/wallMachine';
import WallView from './WallView';

// The wall's view over a real wall machine (its list and clock faked): what a tile shows, and
// that a clock tick renders the countdowns only, not the tiles with their pictures.

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const NOW = Date.parse('2026-11-30T12:00:00Z');

const entry = (id: string, name: string, over: Partial<WallEntry> = {}): WallEntry => ({
  gamespaceId: id,
  workspaceId: 'ws-a',
  workspaceName: 'Alpha Lab',
  managerName: 'Manager',
  players: [{ id: `u-${id}`, name }],
  startTime: new Date(NOW - 600_000).toISOString(),
  endTime: UNSET_DATE,
  expirationTime: new Date(NOW + 1_800_000).toISOString(),
  score: 50,
  maxPoints: 100,
  attempts: 1,
  maxAttempts: 3,
  state: 'someOff',
  lastActivity: null,
  machines: [
    { id: `vm-${id}-1`, name: 'kali', state: 'running' },
    { id: `vm-${id}-2`, name: 'web', state: 'off' },
  ],
  ...over,
});

type Tick = { type: 'clock.ticked'; now: number };

/** The wall's clock, ticked by the test. */
function testClock() {
  const listeners = new Set<(tick: Tick) => void>();
  const source: Subscribable<Tick> = {
    subscribe: (observer) => {
      const next = typeof observer === 'function' ? observer : (t: Tick) => observer.next?.(t);
      listeners.add(next);
      return { unsubscribe: () => listeners.delete(next) };
    },
  };
  return { source, next: (tick: Tick) => listeners.forEach((l) => l(tick)) };
}

let root: Root | null = null;
let host: HTMLElement | null = null;
afterEach(() => {
  act(() => root?.unmount());
  host?.remove();
  root = null;
});

async function renderWall(
  entries: WallEntry[],
  extra: Pick<Parameters<typeof WallView>[0], 'timeline' | 'aside'> = {},
) {
  const ticks = testClock();
  const wall = createActor(
    wallMachine.provide({
      actors: {
        loadWall: fromPromise(async () => entries),
        clock: fromEventObservable(() => ticks.source),
      },
      actions: { rememberPinned: () => undefined },
    }),
    { input: { now: NOW, pinned: [] } },
  ).start();
  const slots: string[] = [];
  host = document.createElement('div');
  document.body.append(host);
  root = createRoot(host);
  act(() =>
    root!.render(
      <WallView
        wall={wall}
        thumbnail={(vm) => {
          slots.push(vm.id);
          return <span data-testid="picture">{vm.name}</span>;
        }}
        {...extra}
      />,
    ),
  );
  await act(flush);
  return { wall, ticks, slots, host };
}

describe('WallView', () => {
  it('marks a raised hand, who is on it, and alerts on the tile', async () => {
    const { host } = await renderWall([
      entry('g1', 'Ada', {
        help: { id: 'h1', message: 'Stuck', raisedAt: '', claimedByName: 'Grace' },
        alerts: 2,
      }),
      entry('g2', 'Bob', { help: null, alerts: 0 }),
    ]);
    const [ada, bob] = [...host.querySelectorAll('li.tp-wall-card')];
    expect(ada!.getAttribute('data-hand')).toBe('raised');
    expect(ada!.querySelector('.tp-wall-hand')?.textContent).toBe(
      'Hand raised (Grace is on it): Stuck',
    );
    expect(ada!.querySelector('.tp-wall-alert')?.textContent).toBe(
      '2 alerts: an answer generated for another gamespace',
    );
    expect(bob!.hasAttribute('data-hand')).toBe(false);
    expect(bob!.querySelector('.tp-wall-hand, .tp-wall-alert')).toBeNull();
  });

  it("opens a tile's timeline from its button, and the workspace's queue beside the grid", async () => {
    const asked: Array<string | null> = [];
    const { host, wall } = await renderWall([entry('g1', 'Ada')], {
      timeline: (game) => <p data-testid="timeline">{`${game.gamespaceId}@${game.workspaceId}`}</p>,
      aside: (workspaceId) => {
        asked.push(workspaceId);
        return <p data-testid="aside">{workspaceId ?? 'all'}</p>;
      },
    });
    expect(host.querySelector('[data-testid="aside"]')?.textContent).toBe('all');
    const toggle = host.querySelector<HTMLButtonElement>('.tp-wall-timeline-toggle')!;
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(host.querySelector('[data-testid="timeline"]')).toBeNull();
    act(() => toggle.click());
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(host.querySelector('[data-testid="timeline"]')?.textContent).toBe('g1@ws-a');
    act(() => wall.send({ type: 'wall.workspaceChosen', workspaceId: 'ws-a' }));
    expect(host.querySelector('[data-testid="aside"]')?.textContent).toBe('ws-a');
    expect(asked.at(-1)).toBe('ws-a');
  });

  it('shows each gamespace as a tile with its facts and its machines’ console links', async () => {
    const { host } = await renderWall([entry('g1', 'Ada')]);
    const tile = host.querySelector('li.tp-wall-card')!;
    expect(tile.querySelector('h2')?.textContent).toBe('Ada');
    expect(tile.textContent).toContain('Alpha Lab');
    expect(tile.textContent).toContain('Score50 / 100');
    expect(tile.textContent).toContain('Attempts1 / 3');
    expect(tile.textContent).toContain('Time left00:30:00');
    expect(tile.textContent).toContain('StateSome machines off');
    const links = [...tile.querySelectorAll('a')];
    expect(links.map((a) => a.getAttribute('href'))).toEqual([
      '/console/vm-g1-1/kali?f=0&s=g1&v=kali',
      '/console/vm-g1-2/web?f=0&s=g1&v=web',
    ]);
    expect(links.map((a) => a.textContent)).toEqual([
      'kalikali: open the console (Ada)',
      'Offweb (off): open the console (Ada)',
    ]);
    expect(links.every((a) => a.target === '_blank')).toBe(true);
  });

  it('renders the countdowns on a clock tick, not the tiles and their pictures', async () => {
    const { ticks, slots, host } = await renderWall([entry('g1', 'Ada'), entry('g2', 'Bo')]);
    // One picture per running machine.
    expect(slots).toEqual(['vm-g1-1', 'vm-g2-1']);
    act(() => ticks.next({ type: 'clock.ticked', now: NOW + 1_000 }));
    expect(host.textContent).toContain('Time left00:29:59');
    expect(slots).toHaveLength(2);
  });

  it('pins a gamespace from its tile: it goes first and its button says so', async () => {
    const { wall, host } = await renderWall([entry('g1', 'Ada'), entry('g2', 'Bo')]);
    const button = host.querySelector<HTMLButtonElement>('button[aria-label="Pin Bo"]')!;
    act(() => button.click());
    expect([...host.querySelectorAll('h2')].map((h) => h.textContent)).toEqual(['Bo', 'Ada']);
    expect(host.querySelector('button[aria-label="Unpin Bo"]')?.getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(wall.getSnapshot().context.pinned).toEqual(['g2']);
  });
});
