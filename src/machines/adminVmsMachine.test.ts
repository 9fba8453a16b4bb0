import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import type { Vm } from '../api/vm';
import { adminVmsMachine, type AdminVmOperation } from './adminVmsMachine';
import {
  isOrphaned,
  selectCanOperate,
  selectConfirmingDeleteId,
  selectPending,
  selectVms,
  selectVmsError,
} from './adminVmsMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
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
  it('lists every machine and flags the orphaned ones', async () => {
    const m = start();
    await m.load([kali, stray]);
    expect(selectVms(m.snap()).map(isOrphaned)).toEqual([false, true]);
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
