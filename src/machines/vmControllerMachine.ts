import {
  assertEvent,
  assign,
  enqueueActions,
  forwardTo,
  fromEventObservable,
  raise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { Vm, VmOperation } from '../api/vm';
import { REQUEST_DEBOUNCE_MS, vmActionsMachine } from './vmActionsMachine';
import {
  answerEvents,
  consoleUrl,
  hasDeployedVm,
  hasRunningTask,
  isDeployedVm,
  isShownVm,
  type VmControls,
} from './vmControllerRules';
import type {
  VmControllerContext,
  VmControllerEvent,
  VmControllerInput,
  VmControllerReport,
} from './vmControllerMachine.types';
import { vmLoadMachine } from './vmLoadMachine';
import type { VmRequest } from './vmRequestMachine';

/** The machine and operation as the controller's effects exchange them (views may not import api). */
export type { Vm, VmOperation };

/** A task is polled this often until its progress reaches 100 (spec §4, §9). */
export const POLL_INTERVAL_MS = 2_000;
export { REQUEST_DEBOUNCE_MS };

export type * from './vmControllerMachine.types';
export type { VmRequest };
export { consoleUrl, offers, splitVmName, supportsOperation } from './vmControllerRules';

const notProvided = (name: string): Error =>
  new Error(`vmControllerMachine: '${name}' is provided by the app (src/app)`);

/** What the actions decide their offers by. */
const controlsOf = ({ vm, template, hideDelete }: VmControllerContext): VmControls => ({
  vm,
  template,
  hideDelete,
});

/** The status of the machine an answer brought. */
const answeredStatus = (event: VmControllerEvent) => {
  assertEvent(event, 'vm.received');
  return event.vm?.status;
};

/** The status an answer names, checked in this order; anything else is unknown. */
const statusTransitions = [
  { guard: 'isDeployedAnswer', target: '.deployed', actions: ['storeVm', 'tellActions'] },
  { guard: 'isInitializedAnswer', target: '.initialized', actions: ['storeVm', 'tellActions'] },
  { guard: 'isCreatedAnswer', target: '.created', actions: ['storeVm', 'tellActions'] },
  { target: '.unknown', actions: ['storeVm', 'tellActions'] },
] as const;

/** The buttons' events go to the actions, which decide what they offer. */
const toActions = { actions: 'forwardToActions' } as const;

/**
 * The machine of one template (spec §2 Machine controller, §4 Machine). Two regions, which share
 * the machine as last loaded, and a child:
 * - `status`: what the last answer said the machine is: `created` (its disks must be copied:
 *   Initialize), `initialized` (Deploy), `deployed` (power, save, revert, delete, console), or
 *   `unknown` (not loaded, or the load failed). The template editor is told when `deployed`
 *   starts or stops, which locks and unlocks it.
 * - `sync`: loading the machine (a `vmLoad` child), then polling every 2 s while its task is
 *   below 100, then clearing the task. Refresh and the hub's VmEvents for this machine (or
 *   VM.DEPLOY for this template) load it again after a 300 ms pause.
 * - the buttons' requests run in the `vmActions` child (`actions`), which is told each machine
 *   received and each change of template (what they offer depends on them) and answers with what
 *   each request returned (`vm.answered`).
 */
export const vmControllerMachine = setup({
  types: {
    input: {} as VmControllerInput,
    context: {} as VmControllerContext,
    events: {} as VmControllerEvent,
    children: {} as { actions: 'vmActions'; vmLoad: 'vmLoad' },
    // 'loading': the machine is being loaded; 'task': a task runs and is polled.
    tags: {} as 'loading' | 'task',
  },
  actors: {
    /** One load; provide it with GET vm/{id} and GET vm-template/{templateId}. */
    vmLoad: vmLoadMachine,
    /** The buttons' requests; provide its vmRequest with the calls of the requests. */
    vmActions: vmActionsMachine,
    /** The workspace's VmEvents as `vm.announced`. */
    vmEvents: fromEventObservable<VmControllerEvent, { workspaceId: string }>(() => {
      throw notProvided('vmEvents');
    }),
  },
  actions: {
    /** Opens the console in a new browser tab. */
    openConsole: (_, _params: { url: string }) => {
      throw notProvided('openConsole');
    },
    /** Keeps an answer, and tells the editor when the deployment changed. */
    storeVm: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'vm.received');
      enqueue.assign({ vm: event.vm });
      const deployed = isDeployedVm(event.vm);
      // The editor's lock follows the deployment: it is told only when that changes.
      if (context.reportTo && deployed !== isDeployedVm(context.vm)) {
        const report: VmControllerReport = { type: 'template.deploymentChanged', deployed };
        enqueue.sendTo(context.reportTo, report);
      }
    }),
    /** What a request's answer means for what is shown. */
    applyAnswer: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'vm.answered');
      for (const answer of answerEvents(event.answer, context.vm)) enqueue.raise(answer);
    }),
    /** The task reached 100 or disappeared: it is no longer shown. */
    clearTask: assign({
      vm: ({ context }) => (context.vm?.task != null ? { ...context.vm, task: null } : context.vm),
    }),
    /** What the buttons offer follows the machine and the template. */
    tellActions: sendTo('actions', ({ context }) => ({
      type: 'vm.controlsChanged' as const,
      controls: controlsOf(context),
    })),
    forwardToActions: forwardTo('actions'),
  },
  guards: {
    hasRunningTask: ({ context }) => hasRunningTask(context.vm),
    canOpenConsole: ({ context }) => hasDeployedVm(context.vm),
    /** The machine shown is a deployed one (known from the start, before any load). */
    isDeployedVmShown: ({ context }) => hasDeployedVm(context.vm),
    isDeployedAnswer: ({ event }) => answeredStatus(event) === 'deployed',
    isInitializedAnswer: ({ event }) => answeredStatus(event) === 'initialized',
    isCreatedAnswer: ({ event }) => answeredStatus(event) === 'created',
    isLinkChanged: ({ context, event }) => {
      assertEvent(event, 'vm.templateChanged');
      return event.template.isLinked !== context.template.isLinked;
    },
    /** VM.DELETE of the machine shown. */
    isDeleteOfThisVm: ({ context, event }) => {
      assertEvent(event, 'vm.announced');
      return event.kind === 'vm.deleted' && isShownVm(context.vm, event.modelId);
    },
    /** Any other VmEvent of the machine shown. */
    isAboutThisVm: ({ context, event }) => {
      assertEvent(event, 'vm.announced');
      return event.kind !== 'vm.deployed' && isShownVm(context.vm, event.modelId);
    },
    /** VM.DEPLOY carries the template's id (wire reference §1.4). */
    isDeployOfTemplate: ({ context, event }) => {
      assertEvent(event, 'vm.announced');
      return event.kind === 'vm.deployed' && event.modelId === context.template.id;
    },
  },
  delays: {
    pollInterval: POLL_INTERVAL_MS,
    refreshDebounce: REQUEST_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'vmController',
  description:
    "A template's machine: created -> initialized -> deployed, with its task polled every 2 s until 100 and the hub's VmEvents refreshing it; the buttons' requests run in its actions.",
  context: ({ input }) => ({
    template: input.template,
    hideDelete: input.hideDelete ?? false,
    fullbleed: input.fullbleed ?? false,
    sessionId: input.sessionId ?? null,
    vm: input.known ?? null,
    reportTo: input.reportTo ?? null,
  }),
  invoke: [
    {
      src: 'vmEvents',
      input: ({ context }) => ({ workspaceId: context.template.workspaceId }),
      // Without hub events the controller still works: Refresh and polling load the machine.
      onError: {},
    },
    {
      id: 'actions',
      src: 'vmActions',
      input: ({ context, self }) => ({ controls: controlsOf(context), parentRef: self }),
    },
  ],
  on: {
    'vm.initializeRequested': toActions,
    'vm.deployRequested': toActions,
    'vm.startRequested': toActions,
    'vm.stopRequested': toActions,
    'vm.saveRequested': toActions,
    'vm.revertRequested': toActions,
    'vm.deleteRequested': toActions,
    'vm.requestConfirmed': toActions,
    'vm.requestCancelled': toActions,
    'vm.errorDismissed': toActions,
    'vm.answered': { actions: 'applyAnswer' },
    'vm.consoleRequested': {
      guard: 'canOpenConsole',
      actions: {
        type: 'openConsole',
        params: ({ context }) => ({
          url: consoleUrl(context.vm ?? { id: '', name: '' }, context),
        }),
      },
    },
    'vm.templateChanged': [
      {
        guard: 'isLinkChanged',
        actions: [
          assign({ template: ({ event }) => event.template }),
          'tellActions',
          raise({ type: 'vm.stale' }),
        ],
      },
      { actions: [assign({ template: ({ event }) => event.template }), 'tellActions'] },
    ],
  },
  type: 'parallel',
  states: {
    status: {
      initial: 'unknown',
      on: {
        'vm.received': statusTransitions,
      },
      states: {
        // A machine known from the start (input.known) is shown deployed before its load.
        unknown: { always: { guard: 'isDeployedVmShown', target: 'deployed' } },
        created: {},
        initialized: {},
        deployed: {},
      },
    },
    sync: {
      initial: 'loading',
      on: {
        'vm.stale': '.loading',
        'vm.refreshRequested': '.debouncing',
        'vm.announced': [
          {
            guard: 'isDeleteOfThisVm',
            target: '.debouncing',
            actions: raise({ type: 'vm.received', vm: null }),
          },
          { guard: 'isAboutThisVm', target: '.debouncing' },
          { guard: 'isDeployOfTemplate', target: '.debouncing' },
        ],
      },
      states: {
        /** Refreshes wait for a pause too: a burst of clicks or events loads once. */
        // An answer meanwhile (a request's) does not replace the refresh that was asked for.
        debouncing: { after: { refreshDebounce: 'loading' } },
        // Any answer (a request's too) is the machine as it now is: the load is not needed.
        loading: {
          tags: ['loading'],
          invoke: {
            id: 'vmLoad',
            src: 'vmLoad',
            input: ({ context }) => ({
              templateId: context.template.id,
              vmId: hasDeployedVm(context.vm) ? (context.vm?.id ?? null) : null,
            }),
            onDone: { actions: raise(({ event }) => ({ type: 'vm.received', vm: event.output })) },
          },
          on: { 'vm.received': 'settled' },
        },
        /** An answer arrived: poll while its task runs, else stop showing the task. */
        settled: {
          always: [
            { guard: 'hasRunningTask', target: 'polling' },
            { target: 'idle', actions: 'clearTask' },
          ],
        },
        polling: {
          tags: ['task'],
          after: { pollInterval: 'loading' },
          on: { 'vm.received': 'settled' },
        },
        idle: { on: { 'vm.received': 'settled' } },
      },
    },
  },
});

export type VmControllerActorRef = ActorRefFrom<typeof vmControllerMachine>;
export type VmControllerSnapshot = SnapshotFrom<typeof vmControllerMachine>;
