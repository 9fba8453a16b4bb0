import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
} from 'xstate';
import type { Alert } from '../api/alerts';
import type { AlertRaisedEvent } from '../streams/alerts';
import { alertsMachine, ALERTS_REFRESH_MS } from './alertsMachine';
import {
  alertLines,
  selectAlerts,
  selectAlertsError,
  selectIsAlertsLive,
  selectIsAlertsLoading,
} from './alertsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const alert = (id: string, fields: Partial<Alert> = {}): Alert => ({
  id,
  at: '2026-11-30T14:00:00.000Z',
  workspaceId: 'ws-1',
  kind: 'shared',
  gamespaceId: 'gs-blue',
  otherGamespaceId: 'gs-red',
  question: { sectionIndex: 0, sectionName: null, questionIndex: 1, text: 'The flag?' },
  submitterNames: 'Team Blue',
  ownerNames: 'Team Red',
  answer: 'flag{a1b2}',
  text: '',
  ...fields,
});

function start(workspaceId: string | null) {
  const loads: Deferred<Alert[]>[] = [];
  const requested: Array<string | null> = [];
  const listening: string[] = [];
  const raised = new Subject<AlertRaisedEvent>();
  const clock = new SimulatedClock();
  const actor = createActor(
    alertsMachine.provide({
      actors: {
        loadAlerts: fromPromise<Alert[], { workspaceId: string | null }>(({ input }) => {
          requested.push(input.workspaceId);
          const load = deferred<Alert[]>();
          loads.push(load);
          return load.promise;
        }),
        listenToChannel: fromCallback<EventObject, { workspaceId: string }>(({ input }) => {
          listening.push(input.workspaceId);
          return () => listening.splice(listening.indexOf(input.workspaceId), 1);
        }),
        alertEvents: fromEventObservable(() => raised),
      },
    }),
    { input: { workspaceId }, clock },
  ).start();
  return {
    actor,
    loads,
    requested,
    listening,
    clock,
    raise: () => raised.next({ type: 'alerts.raised', gamespaceId: 'gs-blue' }),
    snap: () => actor.getSnapshot(),
  };
}

describe('alertsMachine', () => {
  it("lists one workspace's alerts, says each plainly, and loads again when one is raised", async () => {
    const a = start('ws-1');
    expect(a.requested).toEqual(['ws-1']);
    expect(a.listening).toEqual(['ws-1']);
    expect(selectIsAlertsLive(a.snap())).toBe(true);
    expect(selectIsAlertsLoading(a.snap())).toBe(true);
    a.loads[0]!.resolve([alert('a1')]);
    await flush();
    expect(alertLines(selectAlerts(a.snap()))?.map((l) => l.text)).toEqual([
      'Team Blue submitted the answer generated for Team Red — Question 2 of Set 1',
    ]);
    a.raise();
    expect(a.loads).toHaveLength(2);
    a.loads[1]!.resolve([alert('a2', { kind: 'canary', ownerNames: '' }), alert('a1')]);
    await flush();
    expect(alertLines(selectAlerts(a.snap()))?.map((l) => l.text)).toEqual([
      'Team Blue submitted a canary answer — Question 2 of Set 1',
      'Team Blue submitted the answer generated for Team Red — Question 2 of Set 1',
    ]);
    // Nothing reloads on a timer: the channel says when.
    a.clock.increment(10 * ALERTS_REFRESH_MS);
    expect(a.loads).toHaveLength(2);
    a.actor.stop();
    expect(a.listening).toEqual([]);
  });

  it('loads again when an alert is raised during a load, so the list has it', async () => {
    const a = start('ws-1');
    a.raise();
    expect(a.loads).toHaveLength(2);
    a.loads[1]!.resolve([alert('a1')]);
    await flush();
    expect(selectAlerts(a.snap())).toHaveLength(1);
    expect(selectIsAlertsLoading(a.snap())).toBe(false);
  });

  it("lists every workspace's alerts without listening, loading again every ALERTS_REFRESH_MS", async () => {
    const a = start(null);
    expect(a.requested).toEqual([null]);
    expect(a.listening).toEqual([]);
    expect(selectIsAlertsLive(a.snap())).toBe(false);
    a.loads[0]!.resolve([]);
    await flush();
    expect(selectAlerts(a.snap())).toEqual([]);
    a.clock.increment(ALERTS_REFRESH_MS - 1);
    expect(a.loads).toHaveLength(1);
    a.clock.increment(1);
    expect(a.loads).toHaveLength(2);
  });

  it('keeps the list when a load fails, says why, and loads on Refresh', async () => {
    const a = start(null);
    a.loads[0]!.resolve([alert('a1')]);
    await flush();
    a.actor.send({ type: 'alerts.refreshRequested' });
    a.loads[1]!.reject({ status: 403, message: 'ActionForbidden' });
    await flush();
    expect(selectAlertsError(a.snap())).toBe('You are not allowed to do this.');
    expect(selectAlerts(a.snap())).toHaveLength(1);
    a.actor.send({ type: 'alerts.refreshRequested' });
    a.loads[2]!.resolve([]);
    await flush();
    expect(selectAlertsError(a.snap())).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(alertsMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ workspaceId: 'ws-1' }, { workspaceId: null }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of one workspace's live list: loads answered or failed, alerts raised while
 * loading and after, Refresh; after each step, what the view reads (a failure keeps the list and
 * says why; a raised alert always ends in a load that has it).
 */
describe('alertsMachine against its model', () => {
  type ModelEvent =
    { type: 'LOADED' } | { type: 'LOAD_FAILED' } | { type: 'RAISED' } | { type: 'REFRESH' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'alertsModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'idle', LOAD_FAILED: 'idle', RAISED: 'loading' } },
      idle: { on: { RAISED: 'loading', REFRESH: 'loading' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, alertsMachine, {
        states: { loading: 'oneWorkspace.loading', idle: 'oneWorkspace.idle' },
        events: {
          LOADED: 'xstate.done.actor.0.alerts.oneWorkspace.loading',
          LOAD_FAILED: 'xstate.error.actor.0.alerts.oneWorkspace.loading',
          RAISED: 'alerts.raised',
          REFRESH: 'alerts.refreshRequested',
        },
        // Every workspace's list has its own tests above: it loads on a timer, not on events.
        unmodelledStates: ['everyWorkspace'],
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
      const a = start('ws-1');
      let ids: string[] | null = null;
      let error: string | null = null;
      let next = 0;
      const expectList = (state: 'loading' | 'idle') => () => {
        const s = a.snap();
        expect(s.value).toEqual({ oneWorkspace: state });
        expect(selectIsAlertsLoading(s)).toBe(state === 'loading');
        expect(selectIsAlertsLive(s)).toBe(true);
        expect(selectAlerts(s)?.map((x) => x.id) ?? null).toEqual(ids);
        expect(selectAlertsError(s)).toBe(error);
        // One load at a time, and always of this workspace.
        expect(new Set(a.requested)).toEqual(new Set(['ws-1']));
      };
      await path.test({
        states: { loading: expectList('loading'), idle: expectList('idle') },
        events: {
          LOADED: async () => {
            next += 1;
            ids = [`a${next}`];
            error = null;
            a.loads.at(-1)!.resolve([alert(`a${next}`)]);
            await flush();
          },
          LOAD_FAILED: async () => {
            error = 'You are not allowed to do this.';
            a.loads.at(-1)!.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          RAISED: () => a.raise(),
          REFRESH: () => a.actor.send({ type: 'alerts.refreshRequested' }),
        },
      });
    });
  }
});
