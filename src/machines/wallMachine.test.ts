import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import { UNSET_DATE } from '../domain/time';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { WALL_REFRESH_MS, wallMachine, type WallEntry } from './wallMachine';
import {
  selectIsPinned,
  selectIsWallFirstLoading,
  selectTimeLeft,
  selectWallEntry,
  selectWallError,
  selectWallIds,
  selectWallWorkspaces,
} from './wallMachine.selectors';

const NOW = Date.parse('2026-11-30T12:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

const entry = (id: string, over: Partial<WallEntry> = {}): WallEntry => ({
  gamespaceId: id,
  workspaceId: 'ws-a',
  workspaceName: 'Alpha',
  managerName: 'Manager',
  players: [{ id: `p-${id}`, name: `Player ${id}` }],
  startTime: at(-10),
  endTime: UNSET_DATE,
  expirationTime: at(30),
  score: 0,
  maxPoints: 100,
  attempts: 0,
  maxAttempts: 3,
  state: 'running',
  lastActivity: null,
  machines: [{ id: `vm-${id}`, name: 'kali', state: 'running' }],
  ...over,
});

function startWall(pinned: string[] = []) {
  const clock = new SimulatedClock();
  const loads: Deferred<WallEntry[]>[] = [];
  const remembered: string[][] = [];
  const ticks = new Subject<{ type: 'clock.ticked'; now: number }>();
  const actor = createActor(
    wallMachine.provide({
      actors: {
        loadWall: fromPromise(() => {
          const load = deferred<WallEntry[]>();
          loads.push(load);
          return load.promise;
        }),
        clock: fromEventObservable(() => ticks),
      },
      actions: {
        rememberPinned: (_, { pinned }) => {
          remembered.push([...pinned]);
        },
      },
    }),
    { input: { now: NOW, pinned }, clock },
  ).start();
  const answer = async (entries: WallEntry[]) => {
    loads.at(-1)?.resolve(entries);
    await flush();
  };
  return { actor, clock, loads, remembered, ticks, answer, snapshot: () => actor.getSnapshot() };
}

describe('wallMachine', () => {
  it('shows a spinner until the first answer, then the gamespaces by least time left', async () => {
    const w = startWall();
    expect(selectIsWallFirstLoading(w.snapshot())).toBe(true);
    await w.answer([entry('late', { expirationTime: at(50) }), entry('soon')]);
    expect(selectIsWallFirstLoading(w.snapshot())).toBe(false);
    expect(selectWallIds(w.snapshot())).toEqual(['soon', 'late']);
  });

  it('asks again every WALL_REFRESH_MS, keeping the tiles of unchanged gamespaces', async () => {
    const w = startWall();
    await w.answer([entry('a'), entry('b')]);
    const before = selectWallEntry(w.snapshot(), 'a');
    const ids = selectWallIds(w.snapshot());
    w.clock.increment(WALL_REFRESH_MS - 1);
    expect(w.loads).toHaveLength(1);
    w.clock.increment(1);
    expect(w.loads).toHaveLength(2);
    // The wall keeps showing what it had while it asks.
    expect(selectWallIds(w.snapshot())).toEqual(['a', 'b']);
    await w.answer([entry('a'), entry('b', { score: 10 })]);
    expect(selectWallEntry(w.snapshot(), 'a')).toBe(before);
    expect(selectWallEntry(w.snapshot(), 'b')?.score).toBe(10);
    // Same order: the same array, so that the grid does not render again.
    expect(selectWallIds(w.snapshot())).toBe(ids);
  });

  it('says what failed, keeps what it had and tries again after WALL_REFRESH_MS', async () => {
    const w = startWall();
    await w.answer([entry('a')]);
    w.actor.send({ type: 'wall.refreshRequested' });
    w.loads.at(-1)?.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(selectWallError(w.snapshot())).toBe('You are not allowed to do this.');
    expect(selectWallIds(w.snapshot())).toEqual(['a']);
    w.clock.increment(WALL_REFRESH_MS);
    await w.answer([entry('a')]);
    expect(selectWallError(w.snapshot())).toBeNull();
  });

  it('filters by workspace and by text, and sorts by score or last activity', async () => {
    const w = startWall();
    await w.answer([
      entry('a', { score: 10, lastActivity: at(-1), players: [{ id: 'u1', name: 'Ada' }] }),
      entry('b', { score: 90, lastActivity: at(-9), workspaceId: 'ws-b', workspaceName: 'Bravo' }),
      entry('c', { score: 50, players: [{ id: 'u3', name: 'Cy' }] }),
    ]);
    expect(selectWallWorkspaces(w.snapshot())).toEqual([
      { id: 'ws-a', name: 'Alpha' },
      { id: 'ws-b', name: 'Bravo' },
    ]);
    w.actor.send({ type: 'wall.sortChosen', sort: 'score' });
    expect(selectWallIds(w.snapshot())).toEqual(['b', 'c', 'a']);
    w.actor.send({ type: 'wall.sortChosen', sort: 'lastActivity' });
    expect(selectWallIds(w.snapshot())).toEqual(['a', 'b', 'c']);
    w.actor.send({ type: 'wall.workspaceChosen', workspaceId: 'ws-a' });
    expect(selectWallIds(w.snapshot())).toEqual(['a', 'c']);
    w.actor.send({ type: 'wall.textChanged', text: 'cy' });
    expect(selectWallIds(w.snapshot())).toEqual(['c']);
    w.actor.send({ type: 'wall.workspaceChosen', workspaceId: null });
    w.actor.send({ type: 'wall.textChanged', text: '' });
    expect(selectWallIds(w.snapshot())).toHaveLength(3);
  });

  it('puts pinned gamespaces first and remembers the pins', async () => {
    const w = startWall();
    await w.answer([entry('a', { score: 1 }), entry('b', { score: 2 })]);
    w.actor.send({ type: 'wall.sortChosen', sort: 'score' });
    expect(selectWallIds(w.snapshot())).toEqual(['b', 'a']);
    w.actor.send({ type: 'wall.pinToggled', gamespaceId: 'a' });
    expect(selectWallIds(w.snapshot())).toEqual(['a', 'b']);
    expect(selectIsPinned(w.snapshot(), 'a')).toBe(true);
    expect(w.remembered).toEqual([['a']]);
    w.actor.send({ type: 'wall.pinToggled', gamespaceId: 'a' });
    expect(selectWallIds(w.snapshot())).toEqual(['b', 'a']);
    expect(w.remembered).toEqual([['a'], []]);
  });

  it('starts with the pins of the last visit and lets go of those of ended gamespaces', async () => {
    const w = startWall(['gone', 'b']);
    await w.answer([entry('a'), entry('b', { expirationTime: at(50) })]);
    expect(selectWallIds(w.snapshot())).toEqual(['b', 'a']);
    expect(w.remembered).toEqual([['b']]);
    // An answer that leaves no pin out changes nothing of them.
    w.clock.increment(WALL_REFRESH_MS);
    await w.answer([entry('a'), entry('b', { expirationTime: at(50) })]);
    expect(w.remembered).toEqual([['b']]);
  });

  it('counts the time left down with the clock, without changing the order', async () => {
    const w = startWall();
    await w.answer([entry('a')]);
    const ids = selectWallIds(w.snapshot());
    expect(selectTimeLeft(w.snapshot(), 'a')).toBe('00:30:00');
    w.ticks.next({ type: 'clock.ticked', now: NOW + 61_000 });
    expect(selectTimeLeft(w.snapshot(), 'a')).toBe('00:28:59');
    expect(selectWallIds(w.snapshot())).toBe(ids);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(wallMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ now: NOW, pinned: [] }],
      }),
    ).toEqual([]);
  });
});

describe('wallMachine against an abstract model', () => {
  type ModelEvent =
    | { type: 'ANSWERED' }
    | { type: 'FAILED' }
    | { type: 'REFRESHED' }
    | { type: 'INTERVAL_ELAPSED' };

  // What the viewer sees: the wall on its way, shown, or shown with an error; it asks again on
  // request or when the interval passes, whichever came.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'wallModel',
    initial: 'loading',
    states: {
      loading: {
        on: { ANSWERED: 'loaded', FAILED: 'failed' },
      },
      loaded: {
        on: { REFRESHED: 'loading', INTERVAL_ELAPSED: 'loading' },
      },
      failed: {
        on: { REFRESHED: 'loading', INTERVAL_ELAPSED: 'loading' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, wallMachine, {
        states: { loading: 'loading', loaded: 'loaded', failed: 'failed' },
        events: {
          ANSWERED: 'xstate.done.actor.loadWall',
          FAILED: 'xstate.error.actor.loadWall',
          REFRESHED: 'wall.refreshRequested',
          INTERVAL_ELAPSED: [
            'xstate.after.refreshInterval.wall.loaded',
            'xstate.after.refreshInterval.wall.failed',
          ],
        },
        // Filters, sort, pins and the clock change what is shown, not the mode: the tests above.
        unmodelledEvents: [
          'wall.workspaceChosen',
          'wall.textChanged',
          'wall.sortChosen',
          'wall.pinToggled',
          'clock.ticked',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const w = startWall();
      let answers = 0;
      /** The ids of the last answer. */
      let shown: string[] = [];
      const expectShown = (value: 'loaded' | 'failed', error: boolean) => () => {
        const snapshot = w.snapshot();
        expect(snapshot.value).toBe(value);
        expect(snapshot.hasTag('loading')).toBe(false);
        expect(selectWallIds(snapshot)).toEqual(shown);
        expect(selectWallError(snapshot) !== null).toBe(error);
      };
      await path.test({
        states: {
          loading: () => {
            const snapshot = w.snapshot();
            expect(snapshot.value).toBe('loading');
            expect(snapshot.hasTag('loading')).toBe(true);
            expect(selectWallIds(snapshot)).toEqual(shown);
          },
          loaded: expectShown('loaded', false),
          failed: expectShown('failed', true),
        },
        events: {
          ANSWERED: async () => {
            shown = [`g${++answers}`];
            await w.answer(shown.map((id) => entry(id)));
          },
          FAILED: async () => {
            w.loads.at(-1)?.reject({ status: 500, message: 'Error' });
            await flush();
          },
          REFRESHED: () => w.actor.send({ type: 'wall.refreshRequested' }),
          INTERVAL_ELAPSED: () => w.clock.increment(WALL_REFRESH_MS),
        },
      });
    });
  }
});
