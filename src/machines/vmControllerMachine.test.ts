import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import type { Vm, VmOperation } from '../api/vm';
import { flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { vmActionsMachine } from './vmActionsMachine';
import {
  consoleUrl,
  POLL_INTERVAL_MS,
  REQUEST_DEBOUNCE_MS,
  vmControllerMachine,
  type VmControllerEvent,
  type VmControllerInput,
  type VmControllerReport,
} from './vmControllerMachine';
import {
  selectCanDeleteVm,
  selectCanDeploy,
  selectCanInitialize,
  selectCanOpenConsole,
  selectCanRevert,
  selectCanSave,
  selectCanStart,
  selectCanStop,
  selectIsVmBusy,
  selectIsVmLoading,
  selectIsVmRunning,
  selectVmActions,
  selectVmConfirmation,
  selectVmErrors,
  selectVmHasRevert,
  selectVmName,
  selectVmPowerState,
  selectVmStateText,
  selectVmStateTone,
  selectVmStatus,
  selectVmTaskProgress,
} from './vmControllerMachine.selectors';
import { vmLoadMachine } from './vmLoadMachine';
import { vmRequestMachine } from './vmRequestMachine';

const TEMPLATE = { id: 'tm-1', name: 'web-01', isLinked: false, workspaceId: 'ws-1' };

/** What the server says of a simulated (proxmox-like) machine, and of a vSphere one. */
const PROXMOX_OPERATIONS = ['start', 'stop', 'save', 'delete', 'reset'];
const VSPHERE = { hypervisorType: 'vsphere', operations: [...PROXMOX_OPERATIONS, 'revert'] };

const pseudo = (status: 'created' | 'initialized', progress?: number): Vm => ({
  id: '',
  name: 'web-01#ws-1',
  status,
  state: 'off',
  task: progress === undefined ? null : { name: 'initializing', progress },
  hypervisorType: 'proxmox',
  operations: PROXMOX_OPERATIONS,
});

const deployed = (state: 'off' | 'running' = 'running', extra: Partial<Vm> = {}): Vm => ({
  id: 'vm-1',
  name: 'web-01#ws-1',
  status: 'deployed',
  state,
  task: null,
  hypervisorType: 'proxmox',
  operations: PROXMOX_OPERATIONS,
  ...extra,
});

type CallKind =
  'loadTemplateMachine' | 'loadVm' | 'initializeTemplate' | 'deployTemplate' | 'changeVmState';

interface Call {
  kind: CallKind;
  input: unknown;
  signal: AbortSignal;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/** The controller with every call waiting for the test to answer it, on a simulated clock. */
function startController(input: Partial<VmControllerInput> = {}) {
  const clock = new SimulatedClock();
  const calls: Call[] = [];
  const opened: string[] = [];
  const reports: VmControllerReport[] = [];
  const hub = new Subject<VmControllerEvent>();
  const call = <TOutput, TInput>(kind: CallKind) =>
    fromPromise<TOutput, TInput>(
      ({ input: args, signal }) =>
        new Promise<TOutput>((resolve, reject) =>
          calls.push({
            kind,
            input: args,
            signal,
            resolve: (value) => resolve(value as TOutput),
            reject,
          }),
        ),
    );
  const reportTo = createActor(
    fromCallback<VmControllerReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    vmControllerMachine.provide({
      actors: {
        vmLoad: vmLoadMachine.provide({
          actors: {
            loadTemplateMachine: call<Vm, { templateId: string }>('loadTemplateMachine'),
            loadVm: call<Vm | null, { id: string }>('loadVm'),
          },
        }),
        vmActions: vmActionsMachine.provide({
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
        vmEvents: fromEventObservable(() => hub),
      },
      actions: { openConsole: (_, { url }) => void opened.push(url) },
    }),
    { clock, input: { template: TEMPLATE, reportTo, ...input } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  // What the buttons offer, the request in flight and its failures are the actions' (a child).
  const actions = () => {
    const ref = selectVmActions(snapshot());
    if (!ref) throw new Error('no actions');
    return ref.getSnapshot();
  };
  const send = (event: VmControllerEvent) => actor.send(event);
  /** Answers the newest open call of `kind` and lets the answer arrive. */
  const answer = async (kind: CallKind, value: unknown) => {
    const open = calls.filter((c) => c.kind === kind && !c.signal.aborted);
    const target = open.at(-1);
    if (!target) throw new Error(`no open ${kind} call`);
    target.resolve(value);
    await flush();
  };
  const fail = async (kind: CallKind, error: unknown) => {
    const target = calls.filter((c) => c.kind === kind).at(-1);
    if (!target) throw new Error(`no ${kind} call`);
    target.reject(error);
    await flush();
  };
  const count = (kind: CallKind) => calls.filter((c) => c.kind === kind).length;
  const announce = (
    kind: Extract<VmControllerEvent, { type: 'vm.announced' }>['kind'],
    id: string,
  ) => hub.next({ type: 'vm.announced', kind, modelId: id });
  return {
    actor,
    clock,
    calls,
    opened,
    reports,
    snapshot,
    actions,
    send,
    answer,
    fail,
    count,
    announce,
  };
}

/** A controller whose template's machine is deployed (and loaded). */
async function startDeployed(vm: Vm = deployed(), input: Partial<VmControllerInput> = {}) {
  const c = startController(input);
  await c.answer('loadTemplateMachine', vm);
  return c;
}

describe('vmControllerMachine', () => {
  it("loads the template's machine at once", () => {
    const c = startController();
    expect(c.calls.map((call) => [call.kind, call.input])).toEqual([
      ['loadTemplateMachine', { templateId: 'tm-1' }],
    ]);
    expect(selectIsVmLoading(c.snapshot())).toBe(true);
    expect(selectVmName(c.snapshot())).toBe('web-01');
  });

  it('shows a machine known to run as running before its own load, which still happens', async () => {
    const c = startController({
      known: { id: 'vm-1', name: 'web-01', status: 'deployed', state: 'running' },
    });
    expect(selectVmStatus(c.snapshot())).toBe('deployed');
    expect(selectIsVmRunning(c.snapshot())).toBe(true);
    expect(selectCanOpenConsole(c.snapshot())).toBe(true);
    // Loaded by its id, as a deployed machine is; the answer replaces what was known.
    expect(c.calls.map((call) => [call.kind, call.input])).toEqual([['loadVm', { id: 'vm-1' }]]);
    await c.answer('loadVm', deployed('off'));
    expect(selectVmStatus(c.snapshot())).toBe('deployed');
    expect(selectIsVmRunning(c.snapshot())).toBe(false);
  });

  it('offers Initialize for a created machine, Deploy for an initialized one', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('created'));
    expect(selectVmStatus(c.snapshot())).toBe('created');
    expect(selectCanInitialize(c.actions())).toBe(true);
    expect(selectCanDeploy(c.actions())).toBe(false);
    expect(selectCanStart(c.actions())).toBe(false);

    c.send({ type: 'vm.refreshRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    expect(selectVmStatus(c.snapshot())).toBe('initialized');
    expect(selectCanInitialize(c.actions())).toBe(false);
    expect(selectCanDeploy(c.actions())).toBe(true);
    expect(selectCanOpenConsole(c.snapshot())).toBe(false);
  });

  it('sends one request for a burst of clicks, 300 ms after the last', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    c.send({ type: 'vm.deployRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS - 1);
    c.send({ type: 'vm.deployRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS - 1);
    c.send({ type: 'vm.deployRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS - 1);
    expect(c.count('deployTemplate')).toBe(0);
    c.clock.increment(1);
    expect(c.calls.filter((call) => call.kind === 'deployTemplate').map((x) => x.input)).toEqual([
      { templateId: 'tm-1' },
    ]);
    expect(selectIsVmBusy(c.actions())).toBe(true);
    expect(selectCanDeploy(c.actions())).toBe(false);
  });

  it("polls initialize's progress every 2 s until it reaches 100, then clears the task", async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('created'));
    c.send({ type: 'vm.initializeRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls.at(-1)).toMatchObject({
      kind: 'initializeTemplate',
      input: { templateId: 'tm-1' },
    });
    await c.answer('initializeTemplate', 0);
    expect(selectVmTaskProgress(c.snapshot())).toBe(0);
    expect(c.snapshot().hasTag('task')).toBe(true);

    c.clock.increment(POLL_INTERVAL_MS - 1);
    expect(c.count('loadTemplateMachine')).toBe(1);
    c.clock.increment(1);
    expect(c.count('loadTemplateMachine')).toBe(2);
    await c.answer('loadTemplateMachine', pseudo('created', 40));
    expect(selectVmTaskProgress(c.snapshot())).toBe(40);

    c.clock.increment(POLL_INTERVAL_MS);
    await c.answer('loadTemplateMachine', pseudo('initialized', 100));
    expect(selectVmTaskProgress(c.snapshot())).toBeNull();
    expect(c.snapshot().context.vm?.task).toBeNull();
    expect(selectVmStatus(c.snapshot())).toBe('initialized');
    expect(c.snapshot().hasTag('task')).toBe(false);

    c.clock.increment(10 * POLL_INTERVAL_MS);
    expect(c.count('loadTemplateMachine')).toBe(3);
  });

  it('stops polling when the task disappears', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('created', 10));
    c.clock.increment(POLL_INTERVAL_MS);
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    c.clock.increment(10 * POLL_INTERVAL_MS);
    expect(c.count('loadTemplateMachine')).toBe(2);
  });

  it('loads the status at once when initialize had nothing to copy', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('created'));
    c.send({ type: 'vm.initializeRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer('initializeTemplate', 100);
    expect(c.count('loadTemplateMachine')).toBe(2);
  });

  it("polls a deployed machine's task by its id", async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    c.send({ type: 'vm.deployRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer(
      'deployTemplate',
      deployed('off', { task: { name: 'deploying', progress: 20 } }),
    );
    expect(selectVmStatus(c.snapshot())).toBe('deployed');
    expect(selectVmTaskProgress(c.snapshot())).toBe(20);
    c.clock.increment(POLL_INTERVAL_MS);
    expect(c.calls.at(-1)).toMatchObject({ kind: 'loadVm', input: { id: 'vm-1' } });
    await c.answer('loadVm', deployed('running', { task: { name: 'deploying', progress: 100 } }));
    expect(selectVmTaskProgress(c.snapshot())).toBeNull();
    expect(selectVmPowerState(c.snapshot())).toBe('running');
  });

  it("names what is happening in the badge: 'Loading', then the task, then the power state", async () => {
    const c = startController();
    expect([selectVmStateText(c.snapshot()), selectVmStateTone(c.snapshot())]).toEqual([
      'Loading',
      'busy',
    ]);
    // A machine being deployed is still off: the badge says it is deploying, not 'Off'.
    await c.answer(
      'loadTemplateMachine',
      deployed('off', { task: { name: 'deploying', progress: 21 } }),
    );
    expect([selectVmStateText(c.snapshot()), selectVmStateTone(c.snapshot())]).toEqual([
      'Deploying',
      'busy',
    ]);
    c.clock.increment(POLL_INTERVAL_MS);
    await c.answer('loadVm', deployed('running', { task: { name: 'deploying', progress: 100 } }));
    expect([selectVmStateText(c.snapshot()), selectVmStateTone(c.snapshot())]).toEqual([
      'Running',
      'running',
    ]);
  });

  it('names an undeployed template in the badge, and a machine that could not be loaded', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('created'));
    expect(selectVmStateText(c.snapshot())).toBe('Not initialized');
    const failed = startController();
    await failed.fail('loadTemplateMachine', new Error('down'));
    expect(selectVmStateText(failed.snapshot())).toBe('Unknown');
  });

  it('tells the template editor when the machine becomes deployed and when it stops being so', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    expect(c.reports).toEqual([]);
    c.send({ type: 'vm.deployRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer('deployTemplate', deployed());
    expect(c.reports).toEqual([{ type: 'template.deploymentChanged', deployed: true }]);
    c.send({ type: 'vm.stopRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer('changeVmState', deployed('off'));
    expect(c.reports).toHaveLength(1);
    c.send({ type: 'vm.deleteRequested' });
    c.send({ type: 'vm.requestConfirmed' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.answer('changeVmState', { ...deployed('off'), status: 'initialized' });
    expect(c.reports.at(-1)).toEqual({ type: 'template.deploymentChanged', deployed: false });
  });

  it('offers start when not running and stop when running', async () => {
    const running = await startDeployed(deployed('running'));
    expect(selectCanStop(running.actions())).toBe(true);
    expect(selectCanStart(running.actions())).toBe(false);
    running.send({ type: 'vm.stopRequested' });
    running.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(running.calls.at(-1)).toMatchObject({
      kind: 'changeVmState',
      input: { id: 'vm-1', type: 'stop' },
    });
    await running.answer('changeVmState', deployed('off'));
    expect(selectVmPowerState(running.snapshot())).toBe('off');
    expect(selectCanStart(running.actions())).toBe(true);
    expect(selectCanStop(running.actions())).toBe(false);
  });

  it('offers save only for a template of its own (with an id, not linked)', async () => {
    expect(selectCanSave((await startDeployed()).actions())).toBe(true);
    const linked = await startDeployed(deployed(), { template: { ...TEMPLATE, isLinked: true } });
    expect(selectCanSave(linked.actions())).toBe(false);
    const noId = await startDeployed(deployed(), { template: { ...TEMPLATE, id: '' } });
    expect(selectCanSave(noId.actions())).toBe(false);
  });

  it('offers revert only where the machine says it supports it, and sends it once confirmed', async () => {
    const proxmox = await startDeployed();
    expect([selectCanRevert(proxmox.actions()), selectVmHasRevert(proxmox.snapshot())]).toEqual([
      false,
      false,
    ]);
    // `operations` decides, not the type: the wire keeps to the reference's two type names.
    const unsaid = await startDeployed(
      deployed('running', { hypervisorType: 'vsphere', operations: null }),
    );
    expect([selectCanRevert(unsaid.actions()), selectVmHasRevert(unsaid.snapshot())]).toEqual([
      false,
      false,
    ]);
    const c = await startDeployed(deployed('running', VSPHERE));
    expect(selectVmHasRevert(c.snapshot())).toBe(true);
    c.send({ type: 'vm.revertRequested' });
    expect(selectVmConfirmation(c.actions())).toBe('revert');
    c.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(c.count('changeVmState')).toBe(0);
    c.send({ type: 'vm.requestConfirmed' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls.at(-1)?.input).toEqual({ id: 'vm-1', type: 'revert' });
  });

  it('deletes after confirmation, then shows the initialized template and refreshes', async () => {
    const c = await startDeployed();
    c.send({ type: 'vm.deleteRequested' });
    expect(selectVmConfirmation(c.actions())).toBe('delete');
    c.send({ type: 'vm.requestConfirmed' });
    expect(selectVmConfirmation(c.actions())).toBeNull();
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls.at(-1)?.input).toEqual({ id: 'vm-1', type: 'delete' });
    await c.answer('changeVmState', { ...deployed(), status: 'deployed' });
    expect(selectVmStatus(c.snapshot())).toBe('initialized');
    expect(selectCanDeploy(c.actions())).toBe(true);
    expect(c.calls.at(-1)).toMatchObject({ kind: 'loadTemplateMachine' });
  });

  it('sends nothing when a confirmation is cancelled', async () => {
    const c = await startDeployed();
    c.send({ type: 'vm.deleteRequested' });
    c.send({ type: 'vm.requestCancelled' });
    c.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(selectVmConfirmation(c.actions())).toBeNull();
    expect(c.count('changeVmState')).toBe(0);
    expect(selectCanDeleteVm(c.actions())).toBe(true);
  });

  it('hides delete when asked to', async () => {
    const c = await startDeployed(deployed(), { hideDelete: true });
    expect(selectCanDeleteVm(c.actions())).toBe(false);
    c.send({ type: 'vm.deleteRequested' });
    expect(selectVmConfirmation(c.actions())).toBeNull();
  });

  it('opens the console in a new tab with the machine name, f=0 and the isolation tag', async () => {
    const c = await startDeployed();
    c.send({ type: 'vm.consoleRequested' });
    expect(c.opened).toEqual(['/console/vm-1/web-01?f=0&s=ws-1&v=web-01']);
  });

  it('passes the play page its full-bleed flag and gamespace id', async () => {
    const c = await startDeployed(deployed(), { fullbleed: true, sessionId: 'gs-9' });
    c.send({ type: 'vm.consoleRequested' });
    expect(c.opened).toEqual(['/console/vm-1/web-01?f=1&s=gs-9&v=web-01']);
    expect(consoleUrl({ id: 'a b', name: 'x y#t' }, { fullbleed: false, sessionId: null })).toBe(
      '/console/a%20b/x%20y?f=0&s=t&v=x%20y',
    );
  });

  it('on VM.DELETE of its machine clears it and refreshes', async () => {
    const c = await startDeployed();
    c.announce('vm.deleted', 'vm-1');
    expect(selectVmStatus(c.snapshot())).toBe('unknown');
    expect(c.reports.at(-1)).toEqual({ type: 'template.deploymentChanged', deployed: false });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls.at(-1)).toMatchObject({ kind: 'loadTemplateMachine' });
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    expect(selectVmStatus(c.snapshot())).toBe('initialized');
  });

  it('on any other event for its machine refreshes it', async () => {
    const c = await startDeployed(deployed('running'));
    c.announce('vm.stopped', 'vm-1');
    c.announce('vm.updated', 'vm-1');
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls.slice(1).map((call) => [call.kind, call.input])).toEqual([
      ['loadVm', { id: 'vm-1' }],
    ]);
    await c.answer('loadVm', deployed('off'));
    expect(selectVmPowerState(c.snapshot())).toBe('off');
  });

  it('on VM.DEPLOY of its template refreshes; events of other machines change nothing', async () => {
    const c = startController();
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    c.announce('vm.started', 'vm-2');
    c.announce('vm.deleted', 'vm-2');
    c.announce('vm.deployed', 'tm-2');
    c.clock.increment(10 * REQUEST_DEBOUNCE_MS);
    expect(c.calls).toHaveLength(1);
    c.announce('vm.deployed', 'tm-1');
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.calls).toHaveLength(2);
    await c.answer('loadTemplateMachine', deployed());
    expect(selectVmStatus(c.snapshot())).toBe('deployed');
  });

  it("lists failed requests as alerts in the error catalogue's words, until dismissed", async () => {
    const c = await startDeployed();
    c.send({ type: 'vm.saveRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.fail('changeVmState', { status: 400, message: 'WorkspaceNotIsolated', gamespaces: 2 });
    c.send({ type: 'vm.stopRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    await c.fail('changeVmState', { error: { message: 'ResourceNotFound' }, message: 'Http' });
    expect(selectVmErrors(c.actions())).toEqual([
      'Cannot save this machine while 2 gamespaces of this workspace are running. Delete them with Delete gamespaces at the top of the Templates tab first.',
      'It was not found: it may have been deleted.',
    ]);
    expect(selectCanStop(c.actions())).toBe(true);
    c.send({ type: 'vm.errorDismissed', index: 0 });
    expect(selectVmErrors(c.actions())).toEqual(['It was not found: it may have been deleted.']);
  });

  it('shows nothing known when the machine cannot be loaded, without an alert', async () => {
    const c = startController();
    await c.fail('loadTemplateMachine', { status: 500, message: 'Error' });
    expect(selectVmStatus(c.snapshot())).toBe('unknown');
    expect(selectVmErrors(c.actions())).toEqual([]);
    expect(selectCanInitialize(c.actions())).toBe(false);
    expect(selectCanDeploy(c.actions())).toBe(false);
    c.send({ type: 'vm.refreshRequested' });
    c.clock.increment(REQUEST_DEBOUNCE_MS);
    expect(c.count('loadTemplateMachine')).toBe(2);
  });

  it('loads again when the template is unlinked (its disks must now be initialized)', async () => {
    const c = startController({ template: { ...TEMPLATE, isLinked: true } });
    await c.answer('loadTemplateMachine', pseudo('initialized'));
    c.send({ type: 'vm.templateChanged', template: { ...TEMPLATE, isLinked: true, name: 'x' } });
    expect(c.count('loadTemplateMachine')).toBe(1);
    c.send({ type: 'vm.templateChanged', template: { ...TEMPLATE, isLinked: false } });
    expect(c.count('loadTemplateMachine')).toBe(2);
    await c.answer('loadTemplateMachine', pseudo('created'));
    expect(selectCanInitialize(c.actions())).toBe(true);
  });

  it("offers Save by the template's link at once, before the machine loads again", async () => {
    const c = await startDeployed();
    expect(selectCanSave(c.actions())).toBe(true);
    c.send({ type: 'vm.templateChanged', template: { ...TEMPLATE, isLinked: true } });
    expect(selectCanSave(c.actions())).toBe(false);
    c.send({ type: 'vm.templateChanged', template: TEMPLATE });
    expect(selectCanSave(c.actions())).toBe(true);
  });

  it('offers nothing of its machine once it is deleted elsewhere', async () => {
    const c = await startDeployed();
    expect(selectCanStop(c.actions())).toBe(true);
    c.announce('vm.deleted', 'vm-1');
    expect(selectCanStop(c.actions())).toBe(false);
    expect(selectCanDeleteVm(c.actions())).toBe(false);
    expect(selectCanOpenConsole(c.snapshot())).toBe(false);
  });

  it('reaches every state', () => {
    const vms = [
      pseudo('created'),
      pseudo('created', 30),
      pseudo('initialized'),
      deployed('running'),
      deployed('off', VSPHERE),
    ];
    expect(
      unreachedStateIds(vmControllerMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as {
            context: { vm: Vm | null; template: { isLinked: boolean } };
          };
          const { vm } = context;
          return JSON.stringify([
            snapshot.value,
            vm?.status,
            vm?.state,
            vm?.operations?.includes('revert'),
            (vm?.task?.progress ?? 100) < 100,
            context.template.isLinked,
          ]);
        },
        inputs: [{ template: TEMPLATE }],
        payloads: [
          ...vms.map((vm) => ({ type: 'vm.received', vm })),
          { type: 'xstate.done.actor.vmLoad', output: null },
          { type: 'vm.answered', answer: { request: 'start', vm: deployed() } },
          { type: 'vm.templateChanged', template: TEMPLATE },
          { type: 'vm.templateChanged', template: { ...TEMPLATE, isLinked: true } },
        ],
      }),
    ).toEqual([]);
  });
});

describe('vmControllerMachine against an abstract model', () => {
  type ModelEvent =
    | { type: 'INITIALIZE' }
    | { type: 'POLL_ELAPSED' }
    | { type: 'DEPLOY' }
    | { type: 'START' }
    | { type: 'STOP' }
    | { type: 'DELETE' }
    | { type: 'CONFIRM' }
    | { type: 'CANCEL' }
    | { type: 'REFRESH' }
    | { type: 'DELETED_ELSEWHERE' };

  // What the author sees of an unlinked template's machine, against a server that copies the disks
  // by the first poll and deploys machines running.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'vmControllerModel',
    initial: 'created',
    states: {
      created: { on: { INITIALIZE: 'initializing', REFRESH: 'created' } },
      initializing: { on: { POLL_ELAPSED: 'initialized' } },
      initialized: { on: { DEPLOY: 'running', REFRESH: 'initialized' } },
      running: { on: { STOP: 'off', REFRESH: 'running', DELETED_ELSEWHERE: 'initialized' } },
      off: { on: { START: 'running', DELETE: 'confirmingDelete' } },
      confirmingDelete: { on: { CONFIRM: 'initialized', CANCEL: 'off' } },
    },
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  it('agrees with the machine', () => {
    expect(
      modelDisagreements(model, vmControllerMachine, {
        states: {
          created: 'status.created',
          initializing: ['status.created', 'sync.polling'],
          initialized: 'status.initialized',
          running: 'status.deployed',
          off: ['status.deployed', 'sync.idle'],
          // The confirmation is the actions' (vmActionsMachine.test.ts models it).
          confirmingDelete: 'status.deployed',
        },
        events: {
          INITIALIZE: 'vm.initializeRequested',
          POLL_ELAPSED: 'xstate.after.pollInterval.vmController.sync.polling',
          DEPLOY: 'vm.deployRequested',
          START: 'vm.startRequested',
          STOP: 'vm.stopRequested',
          DELETE: 'vm.deleteRequested',
          CONFIRM: 'vm.requestConfirmed',
          CANCEL: 'vm.requestCancelled',
          REFRESH: 'vm.refreshRequested',
          DELETED_ELSEWHERE: 'vm.announced',
        },
        // Passed through within one step of the model: the first load, a click's pause, a load in
        // flight.
        unmodelledStates: ['status.unknown', 'sync.debouncing', 'sync.loading'],
        // Save, revert, the console, alerts and link changes are tested above; vm.received and
        // vm.stale are the machine's own, vm.answered its actions' report of each request.
        unmodelledEvents: [
          'vm.answered',
          'vm.saveRequested',
          'vm.revertRequested',
          'vm.consoleRequested',
          'vm.errorDismissed',
          'vm.templateChanged',
          'vm.received',
          'vm.stale',
        ],
      }),
    ).toEqual([]);
  });

  /** A server of one template's machine, answering the controller's calls at once. */
  function fakeServer() {
    const server = {
      status: 'created' as 'created' | 'initialized' | 'deployed',
      state: 'off' as 'off' | 'running',
      copying: false,
    };
    const vm = (): Vm =>
      server.status === 'deployed'
        ? deployed(server.state)
        : { ...pseudo(server.status, server.copying ? 0 : undefined) };
    const finishCopy = () => {
      if (server.copying) Object.assign(server, { copying: false, status: 'initialized' });
    };
    return { server, vm, finishCopy };
  }

  for (const path of paths) {
    it(path.description, async () => {
      const clock = new SimulatedClock();
      const { server, vm, finishCopy } = fakeServer();
      const hub = new Subject<VmControllerEvent>();
      const reports: VmControllerReport[] = [];
      const reportTo = createActor(
        fromCallback<VmControllerReport>(({ receive }) => receive((e) => reports.push(e))),
      ).start();
      const actor = createActor(
        vmControllerMachine.provide({
          actors: {
            vmLoad: vmLoadMachine.provide({
              actors: {
                loadTemplateMachine: fromPromise(async () => {
                  finishCopy();
                  return vm();
                }),
                loadVm: fromPromise(async () => (server.status === 'deployed' ? vm() : null)),
              },
            }),
            vmActions: vmActionsMachine.provide({
              actors: {
                vmRequest: vmRequestMachine.provide({
                  actors: {
                    initializeTemplate: fromPromise(async () => {
                      server.copying = true;
                      return 0;
                    }),
                    deployTemplate: fromPromise(async () => {
                      Object.assign(server, { status: 'deployed', state: 'running' });
                      return vm();
                    }),
                    changeVmState: fromPromise(async ({ input }: { input: VmOperation }) => {
                      if (input.type === 'delete') {
                        Object.assign(server, { status: 'initialized', state: 'off' });
                        return { ...deployed('off'), status: 'initialized' };
                      }
                      server.state = input.type === 'start' ? 'running' : 'off';
                      return vm();
                    }),
                  },
                }),
              },
            }),
            vmEvents: fromEventObservable(() => hub),
          },
        }),
        { clock, input: { template: TEMPLATE, reportTo } },
      ).start();
      await flush();
      const snapshot = () => actor.getSnapshot();
      const actions = () => {
        const ref = selectVmActions(snapshot());
        if (!ref) throw new Error('no actions');
        return ref.getSnapshot();
      };
      const click = async (event: VmControllerEvent) => {
        actor.send(event);
        clock.increment(REQUEST_DEBOUNCE_MS);
        await flush();
        await flush();
      };
      const expectDeployed = (deployedNow: boolean) =>
        expect(reports.at(-1)?.deployed ?? false).toBe(deployedNow);

      await path.test({
        states: {
          created: () => {
            expect(selectVmStatus(snapshot())).toBe('created');
            expect(selectCanInitialize(actions())).toBe(true);
            expect(selectVmTaskProgress(snapshot())).toBeNull();
          },
          initializing: () => {
            expect(selectVmStatus(snapshot())).toBe('created');
            expect(selectVmTaskProgress(snapshot())).toBe(0);
            expect(selectCanInitialize(actions())).toBe(true);
          },
          initialized: () => {
            expect(selectVmStatus(snapshot())).toBe('initialized');
            expect(selectCanDeploy(actions())).toBe(true);
            expect(selectVmTaskProgress(snapshot())).toBeNull();
            expectDeployed(false);
          },
          running: () => {
            expect(selectVmPowerState(snapshot())).toBe('running');
            expect(selectCanStop(actions())).toBe(true);
            expect(selectCanStart(actions())).toBe(false);
            expectDeployed(true);
          },
          off: () => {
            expect(selectVmPowerState(snapshot())).toBe('off');
            expect(selectCanStart(actions())).toBe(true);
            expect(selectVmConfirmation(actions())).toBeNull();
            expectDeployed(true);
          },
          confirmingDelete: () => {
            expect(selectVmConfirmation(actions())).toBe('delete');
            expect(selectVmStatus(snapshot())).toBe('deployed');
          },
        },
        events: {
          INITIALIZE: () => click({ type: 'vm.initializeRequested' }),
          POLL_ELAPSED: async () => {
            clock.increment(POLL_INTERVAL_MS);
            await flush();
          },
          DEPLOY: () => click({ type: 'vm.deployRequested' }),
          START: () => click({ type: 'vm.startRequested' }),
          STOP: () => click({ type: 'vm.stopRequested' }),
          DELETE: () => void actor.send({ type: 'vm.deleteRequested' }),
          CONFIRM: () => click({ type: 'vm.requestConfirmed' }),
          CANCEL: () => void actor.send({ type: 'vm.requestCancelled' }),
          REFRESH: () => click({ type: 'vm.refreshRequested' }),
          DELETED_ELSEWHERE: async () => {
            Object.assign(server, { status: 'initialized', state: 'off' });
            hub.next({ type: 'vm.announced', kind: 'vm.deleted', modelId: 'vm-1' });
            clock.increment(REQUEST_DEBOUNCE_MS);
            await flush();
          },
        },
      });
    });
  }
});
