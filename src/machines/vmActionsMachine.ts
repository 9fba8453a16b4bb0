import {
  assign,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { offers, type VmControls } from './vmControllerRules';
import { vmRequestMachine, type VmRequest, type VmRequestAnswer } from './vmRequestMachine';

/** Requests wait for clicks to pause this long, so that a burst sends one (spec §9). */
export const REQUEST_DEBOUNCE_MS = 300;

export type VmActionsEvent =
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
  | { type: 'vm.errorDismissed'; index: number }
  /** The controller's machine or template changed: what is offered follows it. */
  | { type: 'vm.controlsChanged'; controls: VmControls };

/** What the actions tell their controller: a request's answer, for it to show. */
export type VmActionsReport = { type: 'vm.answered'; answer: VmRequestAnswer };

export interface VmActionsInput {
  controls: VmControls;
  /** The machine controller, told each answer. */
  parentRef: ActorRef<Snapshot<unknown>, VmActionsReport>;
}

export interface VmActionsContext extends VmActionsInput {
  /** The request the clicks settled on, sent once they pause (and, for some, once confirmed). */
  pending: VmRequest | null;
  /** Failed requests, camel-case split, until dismissed (spec §8). */
  errors: string[];
}

/** A request that waits for the clicks to pause, from idle and from debouncing alike. */
const debounced = <G extends string>(guard: G, request: VmRequest) =>
  ({
    guard,
    target: 'debouncing',
    reenter: true,
    actions: { type: 'setPending', params: { request } },
  }) as const;

/** A request that asks the user first. */
const confirmed = <G extends string>(guard: G, request: VmRequest) =>
  ({ guard, target: 'confirming', actions: { type: 'setPending', params: { request } } }) as const;

const requestTransitions = {
  'vm.initializeRequested': debounced('canInitialize', 'initialize'),
  'vm.deployRequested': debounced('canDeploy', 'deploy'),
  'vm.startRequested': debounced('canStart', 'start'),
  'vm.stopRequested': debounced('canStop', 'stop'),
  'vm.saveRequested': debounced('canSave', 'save'),
  'vm.revertRequested': confirmed('canRevert', 'revert'),
  'vm.deleteRequested': confirmed('canDelete', 'delete'),
};

/**
 * The buttons of a machine controller (spec §2 Machine controller): what the user asks of the
 * machine, one request at a time. Requests are debounced 300 ms so that a burst sends one; revert
 * and delete are confirmed first; the request then runs as a `vmRequest` child. Its answer goes to
 * the controller, which shows it; its failure is listed here until dismissed. What is offered
 * follows the machine as the controller last showed it (`vm.controlsChanged`).
 */
export const vmActionsMachine = setup({
  types: {
    input: {} as VmActionsInput,
    context: {} as VmActionsContext,
    events: {} as VmActionsEvent,
    // 'busy': a request is in flight.
    tags: {} as 'busy',
  },
  actors: {
    /** One request; provide it with the calls of initialize, deploy and state changes. */
    vmRequest: vmRequestMachine,
  },
  actions: {
    setPending: assign({ pending: (_, { request }: { request: VmRequest }) => request }),
    clearPending: assign({ pending: null }),
    reportAnswer: sendTo(
      ({ context }) => context.parentRef,
      (_, answer: VmRequestAnswer) => ({ type: 'vm.answered' as const, answer }),
    ),
    recordError: assign({
      errors: ({ context }, { error }: { error: unknown }) => [
        ...context.errors,
        errorMessage(error),
      ],
    }),
  },
  guards: {
    canInitialize: ({ context }) => offers(context.controls, 'initialize'),
    canDeploy: ({ context }) => offers(context.controls, 'deploy'),
    canStart: ({ context }) => offers(context.controls, 'start'),
    canStop: ({ context }) => offers(context.controls, 'stop'),
    canSave: ({ context }) => offers(context.controls, 'save'),
    canRevert: ({ context }) => offers(context.controls, 'revert'),
    canDelete: ({ context }) => offers(context.controls, 'delete'),
    /** The request still applies once the clicks paused (a hub event may have changed things). */
    canSendPending: ({ context }) =>
      context.pending !== null && offers(context.controls, context.pending),
  },
  delays: { requestDebounce: REQUEST_DEBOUNCE_MS },
}).createMachine({
  id: 'vmActions',
  description:
    "A machine controller's requests: debounced 300 ms, revert and delete confirmed, one at a time; the answer goes to the controller, a failure is listed until dismissed.",
  context: ({ input }) => ({ ...input, pending: null, errors: [] }),
  on: {
    'vm.controlsChanged': { actions: assign({ controls: ({ event }) => event.controls }) },
    'vm.errorDismissed': {
      actions: assign({
        errors: ({ context, event }) => context.errors.filter((_, i) => i !== event.index),
      }),
    },
  },
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
      exit: 'clearPending',
      invoke: {
        id: 'vmRequest',
        src: 'vmRequest',
        input: ({ context }) => ({
          request: context.pending ?? 'start',
          templateId: context.controls.template.id,
          vmId: context.controls.vm?.id ?? '',
        }),
        onDone: {
          target: 'idle',
          actions: { type: 'reportAnswer', params: ({ event }) => event.output },
        },
        onError: {
          target: 'idle',
          actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
  },
});

export type VmActionsActorRef = ActorRefFrom<typeof vmActionsMachine>;
export type VmActionsSnapshot = SnapshotFrom<typeof vmActionsMachine>;
