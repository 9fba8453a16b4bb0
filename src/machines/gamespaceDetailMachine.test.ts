import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import { gameTimelineMachine } from './gameTimelineMachine';
import type { GameEvent } from '../api/gameEvents';
import type { GameVm } from '../api/play';
import {
  detailSummary,
  selectDetailControllers,
  selectDetailError,
  selectDetailTab,
  selectDetailTimeline,
  selectIsDetailLoading,
} from './gamespaceBrowserMachine.selectors';
import {
  DETAIL_TABS,
  gamespaceDetailMachine,
  type DetailTab,
  type GamespaceDetail,
} from './gamespaceDetailMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const vms: GameVm[] = [
  { id: 'vm-1', name: 'web' },
  { id: 'vm-2', name: 'db' },
];

function startDetail(fullAdminView: boolean) {
  const loads: Deferred<GamespaceDetail>[] = [];
  const controllerInputs: unknown[] = [];
  const logic = gamespaceDetailMachine.provide({
    actors: {
      loadDetail: fromPromise(() => {
        const d = deferred<GamespaceDetail>();
        loads.push(d);
        return d.promise;
      }),
      // A stand-in controller that records what it was given.
      vmController: createMachine({
        context: ({ input }: { input: unknown }) => {
          controllerInputs.push(input);
          return {};
        },
      }) as never,
      gameTimeline: gameTimelineMachine.provide({
        actors: {
          loadEvents: fromPromise(async (): Promise<GameEvent[]> => []),
          liveEvents: fromCallback(() => undefined),
        },
      }),
    },
  });
  const actor = createActor(logic, {
    input: { gamespaceId: 'gs-1', workspaceId: 'ws-1', fullAdminView },
  }).start();
  return { actor, loads, controllerInputs, snapshot: () => actor.getSnapshot() };
}

describe('gamespaceDetailMachine', () => {
  it('gives each machine a controller once the detail arrives, delete only in the full view', async () => {
    const d = startDetail(false);
    d.loads[0]?.resolve({ challenge: {}, vms, players: null });
    await flush();
    expect(Object.keys(selectDetailControllers(d.snapshot()))).toEqual(['vm-1', 'vm-2']);
    expect(d.controllerInputs[0]).toMatchObject({
      template: { id: 'vm-1', name: 'web', workspaceId: 'gs-1' },
      hideDelete: true,
      fullbleed: false,
      sessionId: 'gs-1',
    });
    const admin = startDetail(true);
    admin.loads[0]?.resolve({ challenge: {}, vms, players: [] });
    await flush();
    expect(admin.controllerInputs[0]).toMatchObject({ hideDelete: false });
  });

  it('shows why loading failed and loads again on retry', async () => {
    const d = startDetail(false);
    d.loads[0]?.reject({ status: 403, message: 'Forbidden' });
    await flush();
    expect(d.snapshot().value).toBe('failed');
    expect(selectDetailError(d.snapshot())).not.toBeNull();
    d.actor.send({ type: 'detail.retryRequested' });
    expect(d.loads).toHaveLength(2);
    expect(d.snapshot().value).toBe('loading');
  });

  it('switches between the Detail, Events, Json and Dispatcher tabs', () => {
    const d = startDetail(false);
    expect(selectDetailTab(d.snapshot())).toBe('detail');
    d.actor.send({ type: 'detail.tabSelected', tab: 'json' });
    expect(selectDetailTab(d.snapshot())).toBe('json');
  });

  it('shows the Events tab’s log only while that tab is selected', () => {
    const d = startDetail(false);
    const timeline = () => selectDetailTimeline(d.snapshot()).getSnapshot().value;
    expect(timeline()).toBe('hidden');
    // Its log is heard on the gamespace's workspace's observe channel.
    expect(selectDetailTimeline(d.snapshot()).getSnapshot().context.workspaceId).toBe('ws-1');
    d.actor.send({ type: 'detail.tabSelected', tab: 'events' });
    expect(timeline()).toMatchObject({ shown: expect.any(String) });
    d.actor.send({ type: 'detail.tabSelected', tab: 'json' });
    expect(timeline()).toBe('hidden');
  });

  it('sums up the variant (1-based) and the points per question set', () => {
    expect(
      detailSummary({
        maxPoints: 100,
        score: 0.75,
        variant: 1,
        maxAttempts: 3,
        submissions: [{}, {}],
        challenge: {
          sections: [
            {
              name: 'First',
              score: 0.5,
              questions: [
                { weight: 0.5, isCorrect: true },
                { weight: 0.25, isCorrect: false },
              ],
            },
            { score: 0.25, questions: [{ weight: 0.25, isCorrect: true }] },
          ],
        },
      }),
    ).toEqual({
      variant: 2,
      score: 75,
      maxPoints: 100,
      attempts: 2,
      maxAttempts: 3,
      sets: [
        { name: 'First', points: 50, maxPoints: 75, correct: 1, questions: 2 },
        { name: 'Set 2', points: 25, maxPoints: 25, correct: 1, questions: 1 },
      ],
    });
    expect(detailSummary({}).variant).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(gamespaceDetailMachine, {
        serializeState: (s) => JSON.stringify(s.value),
        inputs: [{ gamespaceId: 'gs-1', fullAdminView: true }],
        payloads: [{ type: 'detail.tabSelected', tab: 'json' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: loading, failing, retrying and switching tabs in any mode, checking the
 * spinner, the error, the tab and the machines' controllers after every step.
 */
describe('gamespaceDetailMachine against its model', () => {
  type ModelEvent =
    { type: 'LOADED' } | { type: 'LOAD_FAILED' } | { type: 'RETRY' } | { type: 'TAB' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'gamespaceDetailModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'loaded', LOAD_FAILED: 'failed', TAB: 'loading' } },
      loaded: { on: { TAB: 'loaded' } },
      failed: { on: { RETRY: 'loading', TAB: 'failed' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, gamespaceDetailMachine, {
        states: { loading: 'loading', loaded: 'loaded', failed: 'failed' },
        events: {
          LOADED: 'xstate.done.actor.0.gamespaceDetail.loading',
          LOAD_FAILED: 'xstate.error.actor.0.gamespaceDetail.loading',
          RETRY: 'detail.retryRequested',
          TAB: 'detail.tabSelected',
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
      const d = startDetail(false);
      let tab: DetailTab = 'detail';
      let error: string | null = null;
      let controllers: string[] = [];
      let tabs = 0;
      let retries = 0;
      const expectDetail = (state: string) => () => {
        const s = d.snapshot();
        expect(s.value).toBe(state);
        expect(selectIsDetailLoading(s)).toBe(state === 'loading');
        expect(selectDetailTab(s)).toBe(tab);
        expect(selectDetailError(s)).toBe(error);
        expect(Object.keys(selectDetailControllers(s))).toEqual(controllers);
        if (state === 'loading') expect(d.loads).toHaveLength(1 + retries);
      };
      await path.test({
        states: {
          loading: expectDetail('loading'),
          loaded: expectDetail('loaded'),
          failed: expectDetail('failed'),
        },
        events: {
          LOADED: async () => {
            error = null;
            controllers = ['vm-1', 'vm-2'];
            d.loads.at(-1)!.resolve({ challenge: {}, vms, players: null });
            await flush();
          },
          LOAD_FAILED: async () => {
            error = 'You are not allowed to do this.';
            d.loads.at(-1)!.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          RETRY: () => {
            retries++;
            d.actor.send({ type: 'detail.retryRequested' });
          },
          TAB: () => {
            tab = DETAIL_TABS[++tabs % DETAIL_TABS.length]!;
            d.actor.send({ type: 'detail.tabSelected', tab });
          },
        },
      });
    });
  }
});
