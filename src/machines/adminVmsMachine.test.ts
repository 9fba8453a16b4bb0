import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import type { Vm } from '../api/vm';
import { adminVmsMachine, type AdminVmOperation } from './adminVmsMachine';
import {
  selectCanOperate,
  selectIsLoadingVms,
  selectConfirmingDeleteId,
  selectPending,
  selectVms,
  selectVmsError,
} from './adminVmsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const kali: Vm = {
  id: 'vm-1',
  name: 'kali#gs-1',
  groupName: 'gamespace: Lab#gs-1',
  state: 'running',
};
const stray: Vm = { id: 'vm-2', name: 'web#x', groupName: '__orphaned#x', state: 'off' };

function start() {
  const loads: Deferred<Vm[]>[] = [];
  const operations: {
    input: { id: string; operation: AdminVmOperation };
    answer: Deferred<void>;
  }[] = [];
  const actor = createActor(
    adminVmsMachine.provide({
      actors: {
        loadVms: fromPromise<Vm[], void>(() => {
          const answer = deferred<Vm[]>();
          loads.push(answer);
          return answer.promise;
        }),
        operateVm: fromPromise<void, { id: string; operation: AdminVmOperation }>(({ input }) => {
          const answer = deferred<void>();
          operations.push({ input, answer });
          return answer.promise;
        }),
      },
    }),
  ).start();
  const load = async (vms: Vm[]) => {
    loads.at(-1)!.resolve(vms);
    await flush();
  };
  return { actor, loads, operations, load, snap: () => actor.getSnapshot() };
}

describe('adminVmsMachine', () => {
  it('lists every machine, orphaned ones too, as loaded', async () => {
    const m = start();
    await m.load([kali, stray]);
    expect(selectVms(m.snap())).toEqual([kali, stray]);
  });

  it('runs one operation at a time, then loads the list again', async () => {
    const m = start();
    await m.load([kali]);
    m.actor.send({ type: 'vm.operationRequested', id: 'vm-1', operation: 'stop' });
    expect(m.operations.map((o) => o.input)).toEqual([{ id: 'vm-1', operation: 'stop' }]);
    expect(selectPending(m.snap())).toEqual({ id: 'vm-1', operation: 'stop' });
    expect(selectCanOperate(m.snap())).toBe(false);
    m.actor.send({ type: 'vm.operationRequested', id: 'vm-1', operation: 'delete' });
    expect(m.operations).toHaveLength(1);
    m.operations[0]!.answer.resolve();
    await flush();
    expect(m.loads).toHaveLength(2);
    await m.load([{ ...kali, state: 'off' }]);
    expect(selectVms(m.snap())[0]!.state).toBe('off');
    expect(selectCanOperate(m.snap())).toBe(true);
  });

  it('asks before a delete, and deletes nothing when cancelled', async () => {
    const m = start();
    await m.load([kali]);
    m.actor.send({ type: 'vm.operationRequested', id: 'vm-1', operation: 'delete' });
    expect(selectConfirmingDeleteId(m.snap())).toBe('vm-1');
    expect(m.operations).toHaveLength(0);
    expect(selectCanOperate(m.snap())).toBe(false);
    m.actor.send({ type: 'vm.deleteCancelled' });
    expect(selectConfirmingDeleteId(m.snap())).toBeNull();
    expect(selectPending(m.snap())).toBeNull();
    expect(m.operations).toHaveLength(0);
    m.actor.send({ type: 'vm.operationRequested', id: 'vm-1', operation: 'delete' });
    m.actor.send({ type: 'vm.deleteConfirmed' });
    expect(m.operations.map((o) => o.input)).toEqual([{ id: 'vm-1', operation: 'delete' }]);
  });

  it('says why an operation failed and still reloads', async () => {
    const m = start();
    await m.load([kali]);
    m.actor.send({ type: 'vm.operationRequested', id: 'vm-1', operation: 'delete' });
    m.actor.send({ type: 'vm.deleteConfirmed' });
    m.operations[0]!.answer.reject({ error: { message: 'ResourceNotFound' } });
    await flush();
    await m.load([]);
    expect(selectVmsError(m.snap())).toBe('It was not found: it may have been deleted.');
    expect(selectVms(m.snap())).toEqual([]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(adminVmsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        payloads: [
          { type: 'vm.operationRequested', id: 'vm-1', operation: 'start' },
          { type: 'vm.operationRequested', id: 'vm-1', operation: 'delete' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the list loading, operations one at a time (a delete confirmed or dropped
 * first), each followed by a reload, checking what the view reads after every step.
 */
describe('adminVmsMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'REFRESH' }
    | { type: 'OPERATE' }
    | { type: 'DELETE' }
    | { type: 'CONFIRM' }
    | { type: 'CANCEL' }
    | { type: 'OPERATED' }
    | { type: 'OPERATE_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'adminVmsModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'ready', LOAD_FAILED: 'ready' } },
      ready: { on: { REFRESH: 'loading', OPERATE: 'operating', DELETE: 'confirming' } },
      confirming: { on: { CONFIRM: 'operating', CANCEL: 'ready' } },
      operating: { on: { OPERATED: 'loading', OPERATE_FAILED: 'loading' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, adminVmsMachine, {
        states: {
          loading: 'loading',
          ready: 'ready',
          confirming: 'confirmingDelete',
          operating: 'operating',
        },
        // The invokes have no id of their own: XState names them after their states.
        events: {
          LOADED: 'xstate.done.actor.0.adminVms.loading',
          LOAD_FAILED: 'xstate.error.actor.0.adminVms.loading',
          REFRESH: 'vms.refreshRequested',
          OPERATE: 'vm.operationRequested',
          DELETE: 'vm.operationRequested',
          CONFIRM: 'vm.deleteConfirmed',
          CANCEL: 'vm.deleteCancelled',
          OPERATED: 'xstate.done.actor.0.adminVms.operating',
          OPERATE_FAILED: 'xstate.error.actor.0.adminVms.operating',
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
      const m = start();
      let names: string[] = [];
      let error: string | null = null;
      let pending: { id: string; operation: AdminVmOperation } | null = null;
      let next = 0;
      const expectVms = (state: 'loading' | 'ready' | 'confirmingDelete' | 'operating') => () => {
        const s = m.snap();
        expect(s.value).toBe(state);
        expect(selectIsLoadingVms(s)).toBe(state === 'loading');
        expect(selectCanOperate(s)).toBe(state === 'ready');
        expect(selectVms(s).map((vm) => vm.name)).toEqual(names);
        expect(selectVmsError(s)).toBe(error);
        expect(selectPending(s)).toEqual(pending);
        expect(selectConfirmingDeleteId(s)).toBe(
          state === 'confirmingDelete' ? (pending?.id ?? null) : null,
        );
        if (state === 'operating') expect(m.operations.at(-1)!.input).toEqual(pending);
      };
      const request = (operation: AdminVmOperation) => {
        pending = { id: `vm-${++next}`, operation };
        error = null;
        m.actor.send({ type: 'vm.operationRequested', ...pending });
      };
      await path.test({
        states: {
          loading: expectVms('loading'),
          ready: expectVms('ready'),
          confirming: expectVms('confirmingDelete'),
          operating: expectVms('operating'),
        },
        events: {
          LOADED: async () => {
            names = [`vm#load-${m.loads.length}`];
            pending = null;
            await m.load([{ ...kali, name: names[0]! }]);
          },
          LOAD_FAILED: async () => {
            error = 'You are not allowed to do this.';
            pending = null;
            m.loads.at(-1)!.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          REFRESH: () => {
            error = null;
            m.actor.send({ type: 'vms.refreshRequested' });
          },
          OPERATE: () => request(next % 2 === 0 ? 'start' : 'stop'),
          DELETE: () => request('delete'),
          CONFIRM: () => m.actor.send({ type: 'vm.deleteConfirmed' }),
          CANCEL: () => {
            pending = null;
            m.actor.send({ type: 'vm.deleteCancelled' });
          },
          OPERATED: async () => {
            m.operations.at(-1)!.answer.resolve();
            await flush();
          },
          OPERATE_FAILED: async () => {
            error = 'It was not found: it may have been deleted.';
            m.operations.at(-1)!.answer.reject({ status: 404, message: 'ResourceNotFound' });
            await flush();
          },
        },
      });
    });
  }
});
