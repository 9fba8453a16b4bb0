import {
  assign,
  enqueueActions,
  fromEventObservable,
  fromPromise,
  raise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { Vm, VmOperation, VmOperationType } from '../api/vm';
import { toQueryString } from '../domain/query';
import { errorMessage } from '../domain/text';
import type { VmHubEvent } from '../streams/hub';

/** The machine and operation as the controller's effects exchange them (views may not import api). */
export type { Vm, VmOperation };

/** A task is polled this often until its progress reaches 100 (spec §4, §9). */
export const POLL_INTERVAL_MS = 2_000;
/** Requests wait for clicks to pause this long, so that a burst sends one (spec §9). */
export const REQUEST_DEBOUNCE_MS = 300;

/** What the controller knows of its template; the editor tells it when the link state changes. */
export interface VmControllerTemplate {
  id: string;
  name: string;
  isLinked: boolean;
  workspaceId: string;
}

/** Everything a button may ask the server for. */
export type VmRequest = 'initialize' | 'deploy' | VmOperationType;

/** What the controller tells its template editor: the lock follows the deployment (spec §2). */
export type VmControllerReport = { type: 'template.deploymentChanged'; deployed: boolean };

export type VmControllerEvent =
  | { type: 'vm.refreshRequested' }
  | { type: 'vm.initializeRequested' }
  | { type: 'vm.deployRequested' }
  | { type: 'vm.startRequested' }
  | { type: 'vm.stopRequested' }
  | { type: 'vm.saveRequested' }
  /** Revert and delete ask first; the answer is one of the two events below. */
  | { type: 'vm.revertRequested' }
  | { type: 'vm.deleteRequested' }
  | { type: 'vm.requestConfirmed' }
  | { type: 'vm.requestCancelled' }
  | { type: 'vm.consoleRequested' }
  | { type: 'vm.errorDismissed'; index: number }
  /** The template was saved, unlinked or re-linked (unlinking gives it disks to initialize). */
  | { type: 'vm.templateChanged'; template: VmControllerTemplate }
  /** A VmEvent of the workspace's hub channel; `modelId` is the template's id for vm.deployed. */
  | { type: 'vm.announced'; kind: VmHubEvent['type']; modelId: string }
  /** Internal: an answer about the machine arrived (null: it could not be loaded). */
  | { type: 'vm.received'; vm: Vm | null }
  /** Internal: what is shown is out of date; load the machine now. */
  | { type: 'vm.stale' };

export interface VmControllerInput {
  template: VmControllerTemplate;
  /** The play page hides Delete. */
  hideDelete?: boolean;
  /** The console's f flag: 1 on the play page (full bleed), 0 in the workspace. */
  fullbleed?: boolean;
  /** The console's s: the gamespace id on the play page; by default the machine's isolation tag. */
  sessionId?: string;
  reportTo?: ActorRef<Snapshot<unknown>, VmControllerReport>;
}

export interface VmControllerContext {
  template: VmControllerTemplate;
  hideDelete: boolean;
  fullbleed: boolean;
  sessionId: string | null;
  /**
   * The machine as last loaded: the deployed one, or the template's pseudo-machine (status
   * created or initialized). Null before the first answer and after a failed load (spec §7
   * substitutes an empty object: nothing is known, so nothing but Refresh is offered).
   */
  vm: Vm | null;
  /** The request the clicks settled on, sent once they pause (and, for some, once confirmed). */
  pending: VmRequest | null;
  /** Failed requests, camel-case split, until dismissed (spec §8). */
  errors: string[];
  reportTo: VmControllerInput['reportTo'] | null;
}

/** 'web-01#ws-1' -> { name: 'web-01', tag: 'ws-1' }. */
export function splitVmName(fullName: string): { name: string; tag: string } {
  const at = fullName.indexOf('#');
  return at < 0
    ? { name: fullName, tag: '' }
    : { name: fullName.slice(0, at), tag: fullName.slice(at + 1) };
}

/**
 * The console page of a machine (spec §2): /console/{id}/{name}?f=&s=&v=, where name and v are the
 * machine name without its '#tag', and s is the session (the tag unless the page says otherwise).
 */
export function consoleUrl(
  vm: Pick<Vm, 'id' | 'name'>,
  options: { fullbleed: boolean; sessionId: string | null },
): string {
  const { name, tag } = splitVmName(vm.name ?? '');
  const query = toQueryString({ s: options.sessionId ?? tag, v: name });
  // f is always written: 0 is a value here, not an absent one.
  const rest = query === '' ? '' : `&${query.slice(1)}`;
  return `/console/${encodeURIComponent(vm.id)}/${encodeURIComponent(name)}?f=${options.fullbleed ? 1 : 0}${rest}`;
}

const hasRunningTask = (vm: Vm | null): boolean =>
  vm?.task != null && typeof vm.task.progress === 'number' && vm.task.progress < 100;

const isDeployedVm = (vm: Vm | null): boolean => vm?.status === 'deployed';

/**
 * Whether the machine's hypervisor supports an operation, as the server says in `operations`
 * (not `hypervisorType`, which keeps to the reference's two names for its clients' sake). A
 * machine that does not say supports none of the optional ones.
 */
export const supportsOperation = (vm: Vm | null, operation: VmOperationType): boolean =>
  vm?.operations?.includes(operation) ?? false;

const notProvided = (name: string): Error =>
  new Error(`vmControllerMachine: '${name}' is provided by the app (src/app)`);

/** The editor's lock follows the deployment: it is told only when that changes. */
const deploymentChange = (before: Vm | null, after: Vm | null): VmControllerReport | null =>
  isDeployedVm(before) === isDeployedVm(after)
    ? null
    : { type: 'template.deploymentChanged', deployed: isDeployedVm(after) };

/** Whether the machine as last loaded offers a request (spec §2 Machine controller). */
export function offers(context: VmControllerContext, request: VmRequest): boolean {
  const { vm, template } = context;
  const deployed = isDeployedVm(vm) && (vm?.id ?? '') !== '';
  switch (request) {
    case 'initialize':
      return vm?.status === 'created';
    case 'deploy':
      return vm?.status === 'initialized';
    case 'start':
      return deployed && vm?.state !== 'running';
    case 'stop':
      return deployed && vm?.state === 'running';
    // Saving writes the template's own disks: a linked template has none.
    case 'save':
      return deployed && template.id !== '' && !template.isLinked;
    // Only some hypervisors keep a snapshot to go back to (spec: vSphere's, not proxmox's).
    case 'revert':
      return deployed && supportsOperation(vm, 'revert');
    case 'delete':
      return deployed && !context.hideDelete;
  }
}

/** Requests sent once the clicks pause: the same transition from idle and from debouncing. */
const requestTransitions = {
  'vm.initializeRequested': {
    guard: 'canInitialize',
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request: 'initialize' } },
  },
  'vm.deployRequested': {
    guard: 'canDeploy',
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request: 'deploy' } },
  },
  'vm.startRequested': {
    guard: 'canStart',
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request: 'start' } },
  },
  'vm.stopRequested': {
    guard: 'canStop',
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request: 'stop' } },
  },
  'vm.saveRequested': {
    guard: 'canSave',
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request: 'save' } },
  },
  'vm.revertRequested': {
    guard: 'canRevert',
    target: 'confirming',
    actions: { type: 'setPending', params: { request: 'revert' } },
  },
  'vm.deleteRequested': {
    guard: 'canDelete',
    target: 'confirming',
    actions: { type: 'setPending', params: { request: 'delete' } },
  },
} as const;

/**
 * The machine of one template (spec §2 Machine controller, §4 Machine). Three regions:
 * - `status`: what the last answer said the machine is: `created` (its disks must be copied:
 *   Initialize), `initialized` (Deploy), `deployed` (power, save, revert, delete, console), or
 *   `unknown` (not loaded, or the load failed). The template editor is told when `deployed`
 *   starts or stops, which locks and unlocks it.
 * - `sync`: loading the machine (GET vm/{id} while deployed, else GET vm-template/{id}), then
 *   polling every 2 s while its task is below 100, then clearing the task. Refresh and the hub's
 *   VmEvents for this machine (or VM.DEPLOY for this template) load it again after a 300 ms pause.
 * - `request`: the buttons' requests, debounced 300 ms so that a burst sends one; revert and
 *   delete are confirmed first. Failures are listed as dismissible alerts.
 */
export const vmControllerMachine = setup({
  types: {
    input: {} as VmControllerInput,
    context: {} as VmControllerContext,
    events: {} as VmControllerEvent,
    // 'busy': a request is in flight; 'loading': the machine is being loaded; 'task': a task runs.
    tags: {} as 'busy' | 'loading' | 'task',
  },
  actors: {
    /** GET vm-template/{templateId}. */
    loadTemplateMachine: fromPromise<Vm, { templateId: string }>(() => {
      throw notProvided('loadTemplateMachine');
    }),
    /** GET vm/{id}: null once the machine is gone. */
    loadVm: fromPromise<Vm | null, { id: string }>(() => {
      throw notProvided('loadVm');
    }),
    /** PUT vm-template/{templateId}: the disks' progress. */
    initializeTemplate: fromPromise<number, { templateId: string }>(() => {
      throw notProvided('initializeTemplate');
    }),
    /** POST vm-template/{templateId}. */
    deployTemplate: fromPromise<Vm, { templateId: string }>(() => {
      throw notProvided('deployTemplate');
    }),
    /** PUT vm {id, type}. */
    changeVmState: fromPromise<Vm, VmOperation>(() => {
      throw notProvided('changeVmState');
    }),
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
      if (event.type !== 'vm.received') return;
      enqueue.assign({ vm: event.vm });
      const report = deploymentChange(context.vm, event.vm);
      if (report && context.reportTo) enqueue.sendTo(context.reportTo, report);
    }),
    /** The task reached 100 or disappeared: it is no longer shown. */
    clearTask: assign({
      vm: ({ context }) => (context.vm?.task != null ? { ...context.vm, task: null } : context.vm),
    }),
    setPending: assign({ pending: (_, { request }: { request: VmRequest }) => request }),
    clearPending: assign({ pending: null }),
    recordError: assign({
      errors: ({ context, event }) => [
        ...context.errors,
        errorMessage((event as { error?: unknown }).error),
      ],
    }),
  },
  guards: {
    hasRunningTask: ({ context }) => hasRunningTask(context.vm),
    hasDeployedVm: ({ context }) => isDeployedVm(context.vm) && (context.vm?.id ?? '') !== '',
    isPending: ({ context }, { request }: { request: VmRequest }) => context.pending === request,
    canInitialize: ({ context }) => offers(context, 'initialize'),
    canDeploy: ({ context }) => offers(context, 'deploy'),
    canStart: ({ context }) => offers(context, 'start'),
    canStop: ({ context }) => offers(context, 'stop'),
    canSave: ({ context }) => offers(context, 'save'),
    canRevert: ({ context }) => offers(context, 'revert'),
    canDelete: ({ context }) => offers(context, 'delete'),
    canOpenConsole: ({ context }) => isDeployedVm(context.vm) && (context.vm?.id ?? '') !== '',
    /** The request still applies once the clicks paused (a hub event may have changed things). */
    canSendPending: ({ context }) => context.pending !== null && offers(context, context.pending),
    isReceivedStatus: ({ event }, { status }: { status: string }) =>
      event.type === 'vm.received' && event.vm?.status === status,
    isLinkChanged: ({ context, event }) =>
      event.type === 'vm.templateChanged' && event.template.isLinked !== context.template.isLinked,
    /** VM.DELETE of the machine shown. */
    isDeleteOfThisVm: ({ context, event }) =>
      event.type === 'vm.announced' &&
      event.kind === 'vm.deleted' &&
      (context.vm?.id ?? '') !== '' &&
      event.modelId === context.vm?.id,
    /** Any other VmEvent of the machine shown. */
    isAboutThisVm: ({ context, event }) =>
      event.type === 'vm.announced' &&
      event.kind !== 'vm.deployed' &&
      (context.vm?.id ?? '') !== '' &&
      event.modelId === context.vm?.id,
    /** VM.DEPLOY carries the template's id (wire reference §1.4). */
    isDeployOfTemplate: ({ context, event }) =>
      event.type === 'vm.announced' &&
      event.kind === 'vm.deployed' &&
      event.modelId === context.template.id,
  },
  delays: {
    pollInterval: POLL_INTERVAL_MS,
    requestDebounce: REQUEST_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'vmController',
  description:
    "A template's machine: created -> initialized -> deployed, with its task polled every 2 s until 100; requests debounced 300 ms, revert and delete confirmed; the hub's VmEvents refresh it.",
  context: ({ input }) => ({
    template: input.template,
    hideDelete: input.hideDelete ?? false,
    fullbleed: input.fullbleed ?? false,
    sessionId: input.sessionId ?? null,
    vm: null,
    pending: null,
    errors: [],
    reportTo: input.reportTo ?? null,
  }),
  invoke: {
    src: 'vmEvents',
    input: ({ context }) => ({ workspaceId: context.template.workspaceId }),
    // Without hub events the controller still works: Refresh and polling load the machine.
    onError: {},
  },
  on: {
    'vm.consoleRequested': {
      guard: 'canOpenConsole',
      actions: {
        type: 'openConsole',
        params: ({ context }) => ({
          url: consoleUrl(context.vm ?? { id: '', name: '' }, context),
        }),
      },
    },
    'vm.errorDismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
    'vm.templateChanged': [
      {
        guard: 'isLinkChanged',
        actions: [assign({ template: ({ event }) => event.template }), raise({ type: 'vm.stale' })],
      },
      { actions: assign({ template: ({ event }) => event.template }) },
    ],
  },
  type: 'parallel',
  states: {
    status: {
      initial: 'unknown',
      on: {
        'vm.received': [
          {
            guard: { type: 'isReceivedStatus', params: { status: 'deployed' } },
            target: '.deployed',
            actions: 'storeVm',
          },
          {
            guard: { type: 'isReceivedStatus', params: { status: 'initialized' } },
            target: '.initialized',
            actions: 'storeVm',
          },
          {
            guard: { type: 'isReceivedStatus', params: { status: 'created' } },
            target: '.created',
            actions: 'storeVm',
          },
          { target: '.unknown', actions: 'storeVm' },
        ],
      },
      states: {
        unknown: {},
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
        debouncing: { after: { requestDebounce: 'loading' } },
        loading: {
          tags: ['loading'],
          on: { 'vm.received': 'settled' },
          initial: 'choosing',
          states: {
            choosing: {
              always: [{ guard: 'hasDeployedVm', target: 'vm' }, { target: 'template' }],
            },
            vm: {
              invoke: {
                src: 'loadVm',
                input: ({ context }) => ({ id: context.vm?.id ?? '' }),
                onDone: [
                  // Gone without our hearing of it: the template says what is left.
                  { guard: ({ event }) => event.output == null, target: 'template' },
                  { actions: raise(({ event }) => ({ type: 'vm.received', vm: event.output })) },
                ],
                onError: { actions: raise({ type: 'vm.received', vm: null }) },
              },
            },
            template: {
              invoke: {
                src: 'loadTemplateMachine',
                input: ({ context }) => ({ templateId: context.template.id }),
                onDone: {
                  actions: raise(({ event }) => ({
                    type: 'vm.received',
                    vm: event.output ?? null,
                  })),
                },
                onError: { actions: raise({ type: 'vm.received', vm: null }) },
              },
            },
          },
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
    request: {
      initial: 'idle',
      states: {
        idle: { on: requestTransitions },
        /** Revert or delete, until the user answers. */
        confirming: {
          on: {
            'vm.requestConfirmed': [
              { guard: 'canSendPending', target: 'debouncing' },
              { target: 'idle', actions: 'clearPending' },
            ],
            'vm.requestCancelled': { target: 'idle', actions: 'clearPending' },
          },
        },
        /** Each click restarts the wait; the last request of the burst is sent. */
        debouncing: {
          on: requestTransitions,
          after: {
            requestDebounce: [
              { guard: 'canSendPending', target: 'sending' },
              { target: 'idle', actions: 'clearPending' },
            ],
          },
        },
        sending: {
          tags: ['busy'],
          initial: 'choosing',
          exit: 'clearPending',
          states: {
            choosing: {
              always: [
                {
                  guard: { type: 'isPending', params: { request: 'initialize' } },
                  target: 'initializing',
                },
                {
                  guard: { type: 'isPending', params: { request: 'deploy' } },
                  target: 'deploying',
                },
                { target: 'changingState' },
              ],
            },
            initializing: {
              invoke: {
                src: 'initializeTemplate',
                input: ({ context }) => ({ templateId: context.template.id }),
                onDone: {
                  target: '#vmController.request.idle',
                  // Below 100 the copy is polled; at 100 there was nothing to copy: load the status.
                  actions: enqueueActions(({ context, event, enqueue }) => {
                    const progress = event.output;
                    if (typeof progress === 'number' && progress < 100 && context.vm) {
                      enqueue.raise({
                        type: 'vm.received',
                        vm: { ...context.vm, task: { name: 'initializing', progress } },
                      });
                    } else {
                      enqueue.raise({ type: 'vm.stale' });
                    }
                  }),
                },
                onError: { target: '#vmController.request.idle', actions: 'recordError' },
              },
            },
            deploying: {
              invoke: {
                src: 'deployTemplate',
                input: ({ context }) => ({ templateId: context.template.id }),
                onDone: {
                  target: '#vmController.request.idle',
                  actions: raise(({ event }) => ({
                    type: 'vm.received',
                    vm: event.output ?? null,
                  })),
                },
                onError: { target: '#vmController.request.idle', actions: 'recordError' },
              },
            },
            changingState: {
              invoke: {
                src: 'changeVmState',
                input: ({ context }) => ({
                  id: context.vm?.id ?? '',
                  type: (context.pending ?? 'start') as VmOperationType,
                }),
                onDone: [
                  {
                    // A deleted machine is its template's initialized pseudo-machine again; the
                    // refresh that follows brings its final state.
                    guard: { type: 'isPending', params: { request: 'delete' } },
                    target: '#vmController.request.idle',
                    actions: [
                      raise(({ context, event }) => ({
                        type: 'vm.received',
                        vm: {
                          ...(event.output ?? context.vm ?? { id: '' }),
                          status: 'initialized',
                          task: null,
                        },
                      })),
                      raise({ type: 'vm.stale' }),
                    ],
                  },
                  {
                    target: '#vmController.request.idle',
                    actions: raise(({ event }) => ({
                      type: 'vm.received',
                      vm: event.output ?? null,
                    })),
                  },
                ],
                onError: { target: '#vmController.request.idle', actions: 'recordError' },
              },
            },
          },
        },
      },
    },
  },
});

export type VmControllerActorRef = ActorRefFrom<typeof vmControllerMachine>;
export type VmControllerSnapshot = SnapshotFrom<typeof vmControllerMachine>;
