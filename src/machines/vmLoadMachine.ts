import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Vm } from '../api/vm';

export interface VmLoadInput {
  templateId: string;
  /** The deployed machine's id, by which it is loaded; null loads the template's machine. */
  vmId: string | null;
}

export interface VmLoadContext extends VmLoadInput {
  vm: Vm | null;
}

const notProvided = (name: string): Error =>
  new Error(`vmLoadMachine: '${name}' is provided by the app (src/app)`);

/**
 * One load of a machine controller's machine: GET vm/{id} while it is deployed, else GET
 * vm-template/{templateId} (the template's pseudo-machine, created or initialized). Its output is
 * the machine, or null when it could not be loaded: nothing is known then, which is not an error
 * to list (spec §7).
 */
export const vmLoadMachine = setup({
  types: {
    input: {} as VmLoadInput,
    context: {} as VmLoadContext,
    output: {} as Vm | null,
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
  },
  guards: {
    hasVmId: ({ context }) => context.vmId !== null,
    isGone: (_, { vm }: { vm: Vm | null }) => vm == null,
  },
}).createMachine({
  id: 'vmLoad',
  description:
    "One load of a controller's machine: by its id while deployed (the template's machine once it is gone), else the template's machine; null when it cannot be loaded.",
  context: ({ input }) => ({ ...input, vm: null }),
  initial: 'choosing',
  states: {
    choosing: {
      always: [{ guard: 'hasVmId', target: 'vm' }, { target: 'template' }],
    },
    vm: {
      invoke: {
        id: 'loadVm',
        src: 'loadVm',
        input: ({ context }) => ({ id: context.vmId ?? '' }),
        onDone: [
          // Gone without our hearing of it: the template says what is left.
          {
            guard: { type: 'isGone', params: ({ event }) => ({ vm: event.output }) },
            target: 'template',
          },
          { target: 'loaded', actions: assign({ vm: ({ event }) => event.output }) },
        ],
        onError: 'loaded',
      },
    },
    template: {
      invoke: {
        id: 'loadTemplateMachine',
        src: 'loadTemplateMachine',
        input: ({ context }) => ({ templateId: context.templateId }),
        onDone: { target: 'loaded', actions: assign({ vm: ({ event }) => event.output ?? null }) },
        onError: 'loaded',
      },
    },
    loaded: { type: 'final' },
  },
  output: ({ context }) => context.vm,
});

export type VmLoadActorRef = ActorRefFrom<typeof vmLoadMachine>;
export type VmLoadSnapshot = SnapshotFrom<typeof vmLoadMachine>;
