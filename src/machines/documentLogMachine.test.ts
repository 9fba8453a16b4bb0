import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { documentLogMachine, type DocumentLogReport } from './documentLogMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** The log over loads the test settles; `reports` are what the document editor was told. */
function startLog() {
  const clock = new SimulatedClock();
  const loads: Array<Deferred<{ update: string }>> = [];
  const reports: DocumentLogReport[] = [];
  const reportTo = createActor(
    fromCallback<DocumentLogReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    documentLogMachine.provide({
      actors: {
        loadCrdt: fromPromise<{ update: string }, { workspaceId: string }>(() => {
          const result = deferred<{ update: string }>();
          loads.push(result);
          return result.promise;
        }),
      },
    }),
    { clock, input: { workspaceId: 'ws-1', reportTo } },
  ).start();
  const settle = async (outcome: 'ok' | 'fail', update = 'AQID') => {
    const load = loads.at(-1);
    if (!load) throw new Error('no load');
    if (outcome === 'ok') load.resolve({ update });
    else load.reject({ status: 500, message: 'Error' });
    await flush();
  };
  const resync = () => actor.send({ type: 'log.resyncRequested' });
  return { actor, loads, reports, settle, resync, snapshot: () => actor.getSnapshot() };
}

describe('documentLogMachine', () => {
  it('loads the log as soon as it starts, with no wait, and reports it', async () => {
    const l = startLog();
    expect(l.loads).toHaveLength(1);
    await l.settle('ok', 'AQID');
    expect(l.reports).toEqual([{ type: 'document.logLoaded', update: 'AQID', resync: false }]);
  });

  it('reports an empty document when the load fails (spec §8)', async () => {
    const l = startLog();
    await l.settle('fail');
    expect(l.reports).toEqual([{ type: 'document.logLoaded', update: null, resync: false }]);
  });

  it('resyncs on request, one at a time, and a failed resync changes nothing', async () => {
    const l = startLog();
    // The first load is a load: a resync asked for meanwhile adds nothing to it.
    l.resync();
    expect(l.loads).toHaveLength(1);
    await l.settle('ok', 'AQ==');
    l.resync();
    l.resync();
    expect(l.loads).toHaveLength(2);
    await l.settle('ok', 'Ag==');
    l.resync();
    await l.settle('fail');
    expect(l.reports).toEqual([
      { type: 'document.logLoaded', update: 'AQ==', resync: false },
      { type: 'document.logLoaded', update: 'Ag==', resync: true },
    ]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(documentLogMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: 'ws-1' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the first load at once, then resyncs one at a time, each answer reported (a
 * failed first load as an empty document, a failed resync not at all).
 */
describe('documentLogMachine against the load and resync model', () => {
  type ModelEvent = { type: 'LOADED' } | { type: 'FAILED' } | { type: 'RESYNC' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'documentLogModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'loaded', FAILED: 'loaded', RESYNC: 'loading' } },
      loaded: { on: { RESYNC: 'resyncing' } },
      resyncing: { on: { LOADED: 'loaded', FAILED: 'loaded', RESYNC: 'resyncing' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, documentLogMachine, {
        states: {
          loading: 'loading',
          loaded: 'loaded',
          resyncing: 'resyncing',
        },
        events: {
          LOADED: ['xstate.done.actor.load', 'xstate.done.actor.resync'],
          FAILED: ['xstate.error.actor.load', 'xstate.error.actor.resync'],
          RESYNC: 'log.resyncRequested',
        },
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
      const l = startLog();
      // The first load starts with the log.
      let loads = 1;
      const reports: DocumentLogReport[] = [];
      type State = 'loading' | 'loaded' | 'resyncing';
      let current: State = 'loading';
      const expectLog = (state: State) => () => {
        current = state;
        expect(l.snapshot().matches(state)).toBe(true);
        expect(l.loads).toHaveLength(loads);
        expect(l.reports).toEqual(reports);
      };
      await path.test({
        states: {
          loading: expectLog('loading'),
          loaded: expectLog('loaded'),
          resyncing: expectLog('resyncing'),
        },
        events: {
          RESYNC: () => {
            if (current === 'loaded') loads += 1;
            l.resync();
          },
          LOADED: async () => {
            const update = `update-${loads}`;
            reports.push({ type: 'document.logLoaded', update, resync: current === 'resyncing' });
            await l.settle('ok', update);
          },
          FAILED: async () => {
            if (current === 'loading') {
              reports.push({ type: 'document.logLoaded', update: null, resync: false });
            }
            await l.settle('fail');
          },
        },
      });
    });
  }
});
