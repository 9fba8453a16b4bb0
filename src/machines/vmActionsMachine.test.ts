import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { Vm, VmOperation } from '../api/vm';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  REQUEST_DEBOUNCE_MS,
  vmActionsMachine,
  type VmActionsEvent,
  type VmActionsReport,
} from './vmActionsMachine';
import {
  selectCanDeleteVm,
  selectCanDeploy,
  selectCanInitialize,
  selectCanRevert,
  selectCanSave,
  selectCanStart,
  selectCanStop,
  selectIsVmBusy,
  selectVmConfirmation,
  selectVmErrors,
} from './vmControllerMachine.selectors';
import type { VmControls } from './vmControllerRules';
import { vmRequestMachine } from './vmRequestMachine';

const TEMPLATE = { id: 'tm-1', isLinked: false };

const machine = (extra: Partial<Vm> = {}): Vm => ({
  id: 'vm-1',
  name: 'web-01#ws-1',
  status: 'deployed',
  state: 'running',
  task: null,
  operations: ['start', 'stop', 'save', 'delete', 'reset'],
  ...extra,
});

const controlsOf = (vm: Vm | null, extra: Partial<VmControls> = {}): VmControls => ({
  vm,
  template: TEMPLATE,
  hideDelete: false,
  ...extra,
});

interface Call {
  kind: 'initializeTemplate' | 'deployTemplate' | 'changeVmState';
  input: unknown;
  answer: Deferred<unknown>;
  settled: boolean;
}

/** The actions of a controller showing `controls`, each call waiting for the test, on a clock. */
function startActions(controls: VmControls = controlsOf(machine())) {
  const clock = new SimulatedClock();
  const calls: Call[] = [];
  const reports: VmActionsReport[] = [];
  const call = <T, I>(kind: Call['kind']) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer, settled: false });
      return answer.promise as Promise<T>;
    });
  const parentRef = createActor(
    fromCallback<VmActionsReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    vmActionsMachine.provide({
      actors: {
        vmRequest: vmRequestMachine.provide({
          actors: {
            initializeTemplate: call<number, { templateId: string }>('initializeTemplate'),
            deployTemplate: call<Vm, { templateId: string }>('deployTemplate'),
            changeVmState: call<Vm, VmOperation>('changeVmState'),
          },
        }),
      },
    }),
    { clock, input: { controls, parentRef } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  const send = (event: VmActionsEvent) => actor.send(event);
  /** A click, then the pause that sends it. */
  const click = (event: VmActionsEvent) => {
    send(event);
    clock.increment(REQUEST_DEBOUNCE_MS);
  };
  const settle = async (how: (call: Call) => void) => {
    const call = calls.at(-1);
    if (!call) throw new Error('no call');
    how(call);
    call.settled = true;
    await flush();
  };
  const answer = (value: unknown) => settle((call) => call.answer.resolve(value));
  const fail = (error: unknown) => settle((call) => call.answer.reject(error));
  const sent = () => calls.map((c) => [c.kind, c.input]);
  /** Calls the server has not answered yet. */
  const open = () => calls.filter((c) => !c.settled).length;
  return { actor, clock, calls, reports, snapshot, send, click, answer, fail, sent, open };
}

describe('vmActionsMachine', () => {
  it('offers what the machine shown allows, and follows it when the controller says it changed', () => {
    const a = startActions(controlsOf({ ...machine(), id: '', status: 'created', state: 'off' }));
    expect(selectCanInitialize(a.snapshot())).toBe(true);
    expect(selectCanDeploy(a.snapshot())).toBe(false);
    a.send({
      type: 'vm.controlsChanged',
      controls: controlsOf({ ...machine(), id: '', status: 'initialized', state: 'off' }),
    });
    expect(selectCanInitialize(a.snapshot())).toBe(false);
    expect(selectCanDeploy(a.snapshot())).toBe(true);
    a.send({ type: 'vm.controlsChanged', controls: controlsOf(machine()) });
    expect(selectCanStop(a.snapshot())).toBe(true);
    expect(selectCanStart(a.snapshot())).toBe(false);
    expect(selectCanSave(a.snapshot())).toBe(true);
    // Revert only where the hypervisor keeps a snapshot; Delete unless the page hides it.
    expect(selectCanRevert(a.snapshot())).toBe(false);
    expect(selectCanDeleteVm(a.snapshot())).toBe(true);
    a.send({ type: 'vm.controlsChanged', controls: controlsOf(machine(), { hideDelete: true }) });
    expect(selectCanDeleteVm(a.snapshot())).toBe(false);
  });

  it('sends one request for a burst of clicks, 300 ms after the last, and reports its answer', async () => {
    const a = startActions();
    a.send({ type: 'vm.stopRequested' });
    a.clock.increment(REQUEST_DEBOUNCE_MS - 1);
    a.send({ type: 'vm.saveRequested' });
    a.clock.increment(REQUEST_DEBOUNCE_MS - 1);
    expect(a.sent()).toEqual([]);
    a.clock.increment(1);
    // The last click of the burst is the one sent.
    expect(a.sent()).toEqual([['changeVmState', { id: 'vm-1', type: 'save' }]]);
    expect(selectIsVmBusy(a.snapshot())).toBe(true);
    expect(selectCanStop(a.snapshot())).toBe(false);
    await a.answer(machine());
    expect(a.reports).toEqual([
      { type: 'vm.answered', answer: { request: 'save', vm: machine() } },
    ]);
    expect(selectIsVmBusy(a.snapshot())).toBe(false);
    expect(a.snapshot().context.pending).toBeNull();
  });

  it("initializes and deploys by the template, and reports the copy's progress", async () => {
    const a = startActions(controlsOf({ ...machine(), id: '', status: 'created', state: 'off' }));
    a.click({ type: 'vm.initializeRequested' });
    expect(a.sent()).toEqual([['initializeTemplate', { templateId: 'tm-1' }]]);
    await a.answer(40);
    expect(a.reports).toEqual([
      { type: 'vm.answered', answer: { request: 'initialize', progress: 40 } },
    ]);
    a.send({
      type: 'vm.controlsChanged',
      controls: controlsOf({ ...machine(), id: '', status: 'initialized', state: 'off' }),
    });
    a.click({ type: 'vm.deployRequested' });
    expect(a.sent().at(-1)).toEqual(['deployTemplate', { templateId: 'tm-1' }]);
    await a.answer(machine());
    expect(a.reports.at(-1)).toEqual({
      type: 'vm.answered',
      answer: { request: 'deploy', vm: machine() },
    });
  });

  it('asks before reverting or deleting, and sends nothing when cancelled', async () => {
    const a = startActions(controlsOf(machine({ operations: ['revert', 'delete'] })));
    a.send({ type: 'vm.revertRequested' });
    expect(selectVmConfirmation(a.snapshot())).toBe('revert');
    // Nothing else is offered while the user is asked.
    expect(selectCanStop(a.snapshot())).toBe(false);
    a.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(a.sent()).toEqual([]);
    a.send({ type: 'vm.requestCancelled' });
    expect(selectVmConfirmation(a.snapshot())).toBeNull();
    a.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(a.sent()).toEqual([]);
    a.send({ type: 'vm.deleteRequested' });
    a.send({ type: 'vm.requestConfirmed' });
    expect(selectVmConfirmation(a.snapshot())).toBeNull();
    a.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(a.sent()).toEqual([['changeVmState', { id: 'vm-1', type: 'delete' }]]);
  });

  it('drops a request that no longer applies once the clicks pause', () => {
    const a = startActions();
    a.send({ type: 'vm.stopRequested' });
    // A hub event: the machine was stopped elsewhere meanwhile.
    a.send({ type: 'vm.controlsChanged', controls: controlsOf(machine({ state: 'off' })) });
    a.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(a.sent()).toEqual([]);
    expect(a.snapshot().value).toBe('idle');
    expect(a.snapshot().context.pending).toBeNull();
  });

  it('drops a confirmed request that no longer applies', () => {
    const a = startActions();
    a.send({ type: 'vm.deleteRequested' });
    a.send({ type: 'vm.controlsChanged', controls: controlsOf(null) });
    a.send({ type: 'vm.requestConfirmed' });
    a.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(a.sent()).toEqual([]);
    expect(selectVmConfirmation(a.snapshot())).toBeNull();
  });

  it('lists failed requests as the error catalogue says them, until dismissed', async () => {
    const a = startActions();
    a.click({ type: 'vm.saveRequested' });
    await a.fail({ status: 400, message: 'WorkspaceNotIsolated', gamespaces: 2 });
    a.click({ type: 'vm.stopRequested' });
    await a.fail({ error: { message: 'ResourceNotFound' }, message: 'Http' });
    expect(selectVmErrors(a.snapshot())).toEqual([
      'Cannot save this machine while 2 gamespaces of this workspace are running. Delete them with Delete gamespaces at the top of the Templates tab first.',
      'It was not found: it may have been deleted.',
    ]);
    expect(a.reports).toEqual([]);
    expect(selectCanStop(a.snapshot())).toBe(true);
    a.send({ type: 'vm.errorDismissed', index: 0 });
    expect(selectVmErrors(a.snapshot())).toEqual(['It was not found: it may have been deleted.']);
  });

  it('reaches every state', () => {
    const parentRef = createActor(fromCallback(() => undefined));
    expect(
      unreachedStateIds(vmActionsMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as { context: { pending: string | null } };
          return JSON.stringify([snapshot.value, context.pending]);
        },
        inputs: [{ controls: controlsOf(machine()), parentRef }],
      }),
    ).toEqual([]);
  });
});

describe('vmActionsMachine against an abstract model', () => {
  // The requests of a deployed machine's Save (sent after a pause) and Delete (confirmed first);
  // the server answers or refuses; a hub event may take a request away during its pause.
  const model = createMachine({
    id: 'vmActionsModel',
    initial: 'idle',
    states: {
      idle: { on: { SAVE: 'debouncing', DELETE: 'confirming' } },
      debouncing: { on: { SAVE: 'debouncing', PAUSED: 'sending', WITHDRAWN: 'idle' } },
      confirming: { on: { CONFIRM: 'debouncing', CANCEL: 'idle' } },
      sending: { on: { ANSWERED: 'idle', REFUSED: 'failed' } },
      failed: { on: { DISMISSED: 'idle', SAVE: 'debouncing' } },
    },
  });
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, vmActionsMachine, {
        states: {
          idle: 'idle',
          debouncing: 'debouncing',
          confirming: 'confirming',
          sending: 'sending',
          // A failure leaves the actions idle, with the failure listed.
          failed: 'idle',
        },
        events: {
          SAVE: 'vm.saveRequested',
          DELETE: 'vm.deleteRequested',
          PAUSED: 'xstate.after.requestDebounce.vmActions.debouncing',
          WITHDRAWN: ['vm.controlsChanged', 'xstate.after.requestDebounce.vmActions.debouncing'],
          CONFIRM: 'vm.requestConfirmed',
          CANCEL: 'vm.requestCancelled',
          ANSWERED: 'xstate.done.actor.vmRequest',
          REFUSED: 'xstate.error.actor.vmRequest',
          DISMISSED: 'vm.errorDismissed',
        },
        // The other requests take the same paths as Save (debounced) or Delete (confirmed).
        unmodelledEvents: [
          'vm.initializeRequested',
          'vm.deployRequested',
          'vm.startRequested',
          'vm.stopRequested',
          'vm.revertRequested',
        ],
      }),
    ).toEqual([]);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const a = startActions();
      await path.test({
        states: {
          idle: () => {
            expect(a.snapshot().value).toBe('idle');
            expect(a.open()).toBe(0);
            expect(selectIsVmBusy(a.snapshot())).toBe(false);
            expect(selectVmConfirmation(a.snapshot())).toBeNull();
            expect(selectVmErrors(a.snapshot())).toEqual([]);
          },
          debouncing: () => {
            expect(a.snapshot().context.pending).not.toBeNull();
            expect(selectIsVmBusy(a.snapshot())).toBe(false);
            expect(a.open()).toBe(0);
          },
          confirming: () => {
            expect(selectVmConfirmation(a.snapshot())).toBe('delete');
            expect(selectCanSave(a.snapshot())).toBe(false);
          },
          sending: () => {
            expect(selectIsVmBusy(a.snapshot())).toBe(true);
            expect(selectCanSave(a.snapshot())).toBe(false);
            expect(a.open()).toBe(1);
            expect(a.calls.at(-1)?.kind).toBe('changeVmState');
          },
          failed: () => {
            expect(selectVmErrors(a.snapshot())).toEqual([
              'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.',
            ]);
            expect(selectIsVmBusy(a.snapshot())).toBe(false);
            expect(selectCanSave(a.snapshot())).toBe(true);
          },
        },
        events: {
          SAVE: () => void a.send({ type: 'vm.saveRequested' }),
          DELETE: () => void a.send({ type: 'vm.deleteRequested' }),
          PAUSED: () => void a.clock.increment(REQUEST_DEBOUNCE_MS),
          WITHDRAWN: () => {
            // The machine was deleted elsewhere meanwhile: nothing applies to it any more.
            a.send({ type: 'vm.controlsChanged', controls: controlsOf(null) });
            a.clock.increment(REQUEST_DEBOUNCE_MS);
          },
          CONFIRM: () => void a.send({ type: 'vm.requestConfirmed' }),
          CANCEL: () => void a.send({ type: 'vm.requestCancelled' }),
          ANSWERED: () => a.answer(machine()),
          REFUSED: () => a.fail({ status: 500, message: 'Error' }),
          DISMISSED: () => void a.send({ type: 'vm.errorDismissed', index: 0 }),
        },
      });
    });
  }
});
