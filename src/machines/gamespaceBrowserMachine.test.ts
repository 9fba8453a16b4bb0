import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import { Subject } from 'rxjs';
import {
  BROWSER_DEBOUNCE_MS,
  BROWSER_REFRESH_MS,
  gamespaceBrowserMachine,
  gamespaceListSearchMachine,
  type DeleteOutcome,
  type GamespaceRow,
} from './gamespaceBrowserMachine';
import {
  detailTimes,
  rowSession,
  selectCanDeleteSelected,
  selectConfirming,
  selectFilter,
  selectGamespaceSearch,
  selectSelectedIds,
  selectViewed,
  selectViewedId,
} from './gamespaceBrowserMachine.selectors';
import { gamespaceDetailMachine, type GamespaceDetail } from './gamespaceDetailMachine';
import type { PageQuery } from './pagedSearchMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const row = (id: string, over = false): GamespaceRow => ({
  id,
  name: `game ${id}`,
  managerName: 'Manager',
  startTime: '2026-01-01T00:00:00Z',
  endTime: over ? '2026-01-01T00:10:00Z' : '0001-01-01T00:00:00+00:00',
  expirationTime: '2026-01-01T01:00:00Z',
});

function startBrowser({ fullAdminView = true } = {}) {
  const clock = new SimulatedClock();
  const queries: PageQuery[] = [];
  const deletes: Array<Deferred<DeleteOutcome> & { ids: string[] }> = [];
  const details: string[] = [];
  const ticks = new Subject<{ type: 'clock.ticked'; now: number }>();
  let page: GamespaceRow[] = [row('aaaaaaaa-1'), row('bbbbbbbb-2')];
  const logic = gamespaceBrowserMachine.provide({
    actors: {
      gamespaceSearch: gamespaceListSearchMachine.provide({
        actors: {
          fetchPage: fromPromise(async ({ input }: { input: PageQuery }) => {
            queries.push(input);
            return page;
          }),
        },
      }),
      gamespaceDetail: gamespaceDetailMachine.provide({
        actors: {
          loadDetail: fromPromise<GamespaceDetail, { gamespaceId: string }>(async ({ input }) => {
            details.push(input.gamespaceId);
            return { challenge: {}, vms: [], players: null };
          }),
        },
      }),
      clock: fromEventObservable(() => ticks),
      deleteGamespaces: fromPromise(({ input }: { input: { ids: string[] } }) => {
        const d = Object.assign(deferred<DeleteOutcome>(), { ids: input.ids });
        deletes.push(d);
        return d.promise;
      }),
    },
  });
  const actor = createActor(logic, { input: { fullAdminView, now: 0 }, clock });
  actor.start();
  return {
    actor,
    clock,
    queries,
    deletes,
    details,
    ticks,
    setPage: (rows: GamespaceRow[]) => (page = rows),
    send: actor.send.bind(actor),
    snapshot: () => actor.getSnapshot(),
    search: () => selectGamespaceSearch(actor.getSnapshot()),
  };
}

describe('gamespaceBrowserMachine', () => {
  it('searches all active gamespaces first, 100 at a time', async () => {
    const b = startBrowser();
    await flush();
    expect(b.queries).toEqual([{ term: '', filter: ['all', 'active'], skip: 0, take: 100 }]);
    expect(selectFilter(b.search().getSnapshot())).toBe('active');
  });

  it('toggles to inactive from the first page, and reloads every 60 s', async () => {
    const b = startBrowser();
    await flush();
    b.search().send({ type: 'search.nextRequested' });
    b.send({ type: 'filter.toggled', filter: 'inactive' });
    await flush();
    expect(b.queries.at(-1)).toEqual({ term: '', filter: ['all', 'inactive'], skip: 0, take: 100 });
    expect(selectFilter(b.search().getSnapshot())).toBe('inactive');
    const count = b.queries.length;
    b.clock.increment(BROWSER_REFRESH_MS);
    await flush();
    expect(b.queries).toHaveLength(count + 1);
  });

  it('waits 500 ms of quiet typing before searching the term', async () => {
    const b = startBrowser();
    await flush();
    b.search().send({ type: 'search.termChanged', term: 'lab' });
    b.clock.increment(BROWSER_DEBOUNCE_MS - 1);
    await flush();
    expect(b.queries).toHaveLength(1);
    b.clock.increment(1);
    await flush();
    expect(b.queries.at(-1)?.term).toBe('lab');
  });

  it('moves the countdowns with the clock: HH:MM:SS, and over once expired or ended', () => {
    const b = startBrowser();
    b.ticks.next({ type: 'clock.ticked', now: Date.parse('2026-01-01T00:30:00Z') });
    const now = b.snapshot().context.now;
    expect(rowSession(row('a'), now)).toEqual({ countdown: '00:30:00', over: false, ended: null });
    expect(rowSession(row('a', true), now).over).toBe(true);
    expect(rowSession(row('a'), Date.parse('2026-01-01T02:00:00Z'))).toMatchObject({
      countdown: '00:00:00',
      over: true,
    });
  });

  it('says when an ended gamespace ended, instead of counting down to its old expiry', () => {
    const ended = row('a', true);
    const now = Date.parse('2026-01-01T00:30:00Z');
    expect(rowSession(ended, now)).toEqual({
      countdown: '00:30:00',
      over: true,
      ended: new Date('2026-01-01T00:10:00Z').toLocaleString(),
    });
    // A game whose time ran out ended at its expiry, whenever the janitor came by.
    expect(rowSession(row('a'), Date.parse('2026-01-01T02:00:00Z')).ended).toBe(
      new Date('2026-01-01T01:00:00Z').toLocaleString(),
    );
  });

  it('gives the detail its times: time left during play, when it ended and the time used after', () => {
    const now = Date.parse('2026-01-01T00:30:00Z');
    expect(detailTimes(row('a'), now)).toEqual({
      started: new Date('2026-01-01T00:00:00Z').toLocaleString(),
      timeLeft: '00:30:00',
      ended: null,
      timeUsed: null,
    });
    expect(detailTimes(row('a', true), now)).toEqual({
      started: new Date('2026-01-01T00:00:00Z').toLocaleString(),
      timeLeft: null,
      ended: new Date('2026-01-01T00:10:00Z').toLocaleString(),
      timeUsed: '00:10:00',
    });
  });

  it('View expands a row with its detail and a second View collapses it', async () => {
    const b = startBrowser();
    b.send({ type: 'gamespace.viewToggled', id: 'aaaaaaaa-1' });
    expect(selectViewedId(b.snapshot())).toBe('aaaaaaaa-1');
    const detail = selectViewed(b.snapshot());
    await flush();
    expect(b.details).toEqual(['aaaaaaaa-1']);
    expect(detail?.getSnapshot().value).toBe('loaded');
    b.send({ type: 'gamespace.viewToggled', id: 'bbbbbbbb-2' });
    expect(detail?.getSnapshot().status).toBe('stopped');
    expect(selectViewedId(b.snapshot())).toBe('bbbbbbbb-2');
    b.send({ type: 'gamespace.viewToggled', id: 'bbbbbbbb-2' });
    expect(selectViewedId(b.snapshot())).toBeNull();
    expect(selectViewed(b.snapshot())).toBeNull();
  });

  it('selects rows one by one, all, and none again', () => {
    const b = startBrowser();
    b.send({ type: 'gamespace.selectionToggled', id: 'a' });
    expect(selectSelectedIds(b.snapshot())).toEqual(['a']);
    b.send({ type: 'gamespace.allSelectionToggled', ids: ['a', 'b'] });
    expect(selectSelectedIds(b.snapshot())).toEqual(['a', 'b']);
    b.send({ type: 'gamespace.allSelectionToggled', ids: ['a', 'b'] });
    expect(selectSelectedIds(b.snapshot())).toEqual([]);
  });

  it('deletes the selection only once confirmed, then forgets it and reloads the page', async () => {
    const b = startBrowser();
    await flush();
    expect(selectCanDeleteSelected(b.snapshot())).toBe(false);
    b.send({ type: 'gamespace.allSelectionToggled', ids: ['aaaaaaaa-1', 'bbbbbbbb-2'] });
    b.send({ type: 'gamespace.viewToggled', id: 'aaaaaaaa-1' });
    b.send({ type: 'gamespace.deleteSelectedRequested' });
    expect(selectConfirming(b.snapshot())).toEqual({ kind: 'selected' });
    expect(b.deletes).toHaveLength(0);
    b.send({ type: 'gamespace.deleteConfirmed' });
    expect(b.deletes[0]?.ids).toEqual(['aaaaaaaa-1', 'bbbbbbbb-2']);
    const before = b.queries.length;
    b.setPage([]);
    b.deletes[0]?.resolve({ deleted: ['aaaaaaaa-1'], errors: ['bbbbbbbb: Forbidden'] });
    await flush();
    expect(b.snapshot().value).toBe('browsing');
    expect(selectSelectedIds(b.snapshot())).toEqual(['bbbbbbbb-2']);
    expect(selectViewedId(b.snapshot())).toBeNull();
    expect(b.snapshot().context.errors).toEqual(['bbbbbbbb: Forbidden']);
    expect(b.queries.length).toBe(before + 1);
  });

  it('deletes one row once confirmed, and a cancel deletes nothing', () => {
    const b = startBrowser();
    b.send({ type: 'gamespace.deleteRequested', id: 'aaaaaaaa-1' });
    expect(selectConfirming(b.snapshot())).toEqual({ kind: 'row', id: 'aaaaaaaa-1' });
    b.send({ type: 'gamespace.deleteCancelled' });
    expect(selectConfirming(b.snapshot())).toBeNull();
    b.send({ type: 'gamespace.deleteRequested', id: 'aaaaaaaa-1' });
    b.send({ type: 'gamespace.deleteConfirmed' });
    expect(b.deletes.map((d) => d.ids)).toEqual([['aaaaaaaa-1']]);
  });

  it('offers observers neither selection nor deletes', () => {
    const b = startBrowser({ fullAdminView: false });
    b.send({ type: 'gamespace.selectionToggled', id: 'a' });
    b.send({ type: 'gamespace.allSelectionToggled', ids: ['a'] });
    b.send({ type: 'gamespace.deleteRequested', id: 'a' });
    b.send({ type: 'gamespace.deleteSelectedRequested' });
    expect(selectSelectedIds(b.snapshot())).toEqual([]);
    expect(b.snapshot().value).toBe('browsing');
    // Viewing is for everyone.
    b.send({ type: 'gamespace.viewToggled', id: 'a' });
    expect(selectViewedId(b.snapshot())).toBe('a');
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceBrowserMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ fullAdminView: true, now: 0 }],
        payloads: [
          { type: 'gamespace.allSelectionToggled', ids: ['a'] },
          { type: 'gamespace.viewToggled', id: 'a' },
          { type: 'gamespace.selectionToggled', id: 'a' },
          { type: 'gamespace.deleteRequested', id: 'a' },
          { type: 'filter.toggled', filter: 'inactive' },
          { type: 'alert.dismissed', index: 0 },
          { type: 'clock.ticked', now: 1 },
        ],
      }),
    ).toEqual([]);
  });
});

describe('gamespaceBrowserMachine deletes against an abstract model', () => {
  type ModelEvent =
    | { type: 'ROW_DELETE' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELLED' }
    | { type: 'DONE' }
    | { type: 'FAILED' };
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'gamespaceBrowserModel',
    initial: 'browsing',
    states: {
      browsing: { on: { ROW_DELETE: 'confirming' } },
      confirming: { on: { CONFIRMED: 'deleting', CANCELLED: 'browsing' } },
      deleting: { on: { DONE: 'browsing', FAILED: 'browsing' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gamespaceBrowserMachine, {
        states: { browsing: 'browsing', confirming: 'confirming', deleting: 'deleting' },
        events: {
          ROW_DELETE: ['gamespace.deleteRequested', 'gamespace.deleteSelectedRequested'],
          CONFIRMED: 'gamespace.deleteConfirmed',
          CANCELLED: 'gamespace.deleteCancelled',
          DONE: 'xstate.done.actor.0.gamespaceBrowser.deleting',
          FAILED: 'xstate.error.actor.0.gamespaceBrowser.deleting',
        },
        // Selection, viewing, the filter, the clock and alerts change no mode (tests above).
        unmodelledEvents: [
          'gamespace.selectionToggled',
          'gamespace.allSelectionToggled',
          'gamespace.viewToggled',
          'filter.toggled',
          'clock.ticked',
          'alert.dismissed',
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
      const b = startBrowser();
      await path.test({
        states: {
          browsing: () => {
            expect(b.snapshot().value).toBe('browsing');
            expect(selectConfirming(b.snapshot())).toBeNull();
          },
          confirming: () => {
            expect(selectConfirming(b.snapshot())).toEqual({ kind: 'row', id: 'x' });
          },
          deleting: () => {
            expect(b.snapshot().hasTag('deleting')).toBe(true);
            expect(b.deletes.at(-1)?.ids).toEqual(['x']);
          },
        },
        events: {
          ROW_DELETE: () => b.send({ type: 'gamespace.deleteRequested', id: 'x' }),
          CONFIRMED: () => b.send({ type: 'gamespace.deleteConfirmed' }),
          CANCELLED: () => b.send({ type: 'gamespace.deleteCancelled' }),
          DONE: async () => {
            b.deletes.at(-1)?.resolve({ deleted: ['x'], errors: [] });
            await flush();
          },
          FAILED: async () => {
            b.deletes.at(-1)?.reject(new Error('Failed to fetch'));
            await flush();
          },
        },
      });
    });
  }
});
