import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Vm, VmOperation, VmOperationType } from '../api/vm';

/** Everything a machine controller's button may ask the server for. */
export type VmRequest = 'initialize' | 'deploy' | VmOperationType;

export interface VmRequestInput {
  request: VmRequest;
  templateId: string;
  /** The machine as the controller last loaded it: state changes name it by its id. */
  vmId: string;
}

/**
 * What the server answered: the copy's progress for initialize, else the machine as it now is.
 * The controller decides what the answer means for what it shows.
 */
export type VmRequestAnswer =
  | { request: 'initialize'; progress: number }
  | { request: Exclude<VmRequest, 'initialize'>; vm: Vm | null };

export interface VmRequestContext extends VmRequestInput {
  answer: VmRequestAnswer | null;
}

const notProvided = (name: string): Error =>
  new Error(`vmRequestMachine: '${name}' is provided by the app (src/app)`);

/**
 * One request of a machine controller, from the call it takes to the server's answer: PUT
 * vm-template to initialize the template's disks, POST vm-template to deploy it, PUT vm for any
 * other request. It ends with the answer as its output; a failed call fails it, with the call's
 * error, so that its parent lists the failure.
 */
export const vmRequestMachine = setup({
  types: {
    input: {} as VmRequestInput,
    context: {} as VmRequestContext,
    output: {} as VmRequestAnswer,
  },
  actors: {
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
  },
  guards: {
    isInitialize: ({ context }) => context.request === 'initialize',
    isDeploy: ({ context }) => context.request === 'deploy',
  },
}).createMachine({
  id: 'vmRequest',
  description:
    "One request of a machine controller: initialize (the template's disks), deploy, or a change of the machine's state; its output is the server's answer, and a failure fails it.",
  context: ({ input }) => ({ ...input, answer: null }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [
        { guard: 'isInitialize', target: 'initializing' },
        { guard: 'isDeploy', target: 'deploying' },
        { target: 'changingState' },
      ],
    },
    initializing: {
      invoke: {
        id: 'initializeTemplate',
        src: 'initializeTemplate',
        input: ({ context }) => ({ templateId: context.templateId }),
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ request: 'initialize', progress: event.output }),
          }),
        },
      },
    },
    deploying: {
      invoke: {
        id: 'deployTemplate',
        src: 'deployTemplate',
        input: ({ context }) => ({ templateId: context.templateId }),
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ event }) => ({ request: 'deploy', vm: event.output ?? null }),
          }),
        },
      },
    },
    changingState: {
      invoke: {
        id: 'changeVmState',
        src: 'changeVmState',
        input: ({ context }) => ({
          id: context.vmId,
          type: context.request as VmOperationType,
        }),
        onDone: {
          target: 'answered',
          actions: assign({
            answer: ({ context, event }) => ({
              request: context.request as VmOperationType,
              vm: event.output ?? null,
            }),
          }),
        },
      },
    },
    answered: { type: 'final' },
  },
  output: ({ context }) => context.answer as VmRequestAnswer,
});

export type VmRequestActorRef = ActorRefFrom<typeof vmRequestMachine>;
export type VmRequestSnapshot = SnapshotFrom<typeof vmRequestMachine>;
