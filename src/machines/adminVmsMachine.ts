import { assign, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { Vm } from '../api/vm';
import { errorMessage } from '../domain/text';

export type AdminVmOperation = 'start' | 'stop' | 'delete';

export type AdminVmsEvent =
  | { type: 'vms.refreshRequested' }
  | { type: 'vm.operationRequested'; id: string; operation: AdminVmOperation }
  | { type: 'vm.deleteConfirmed' }
  | { type: 'vm.deleteCancelled' };

export interface AdminVmsContext {
  vms: Vm[];
  /** The operation asked for (a delete waits for its confirmation) or under way: one at a time. */
  pending: { id: string; operation: AdminVmOperation } | null;
  error: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`adminVmsMachine: '${name}' is provided by the app (src/app)`);

/**
 * The admin Machines section (GET vms): every machine with its group and power state, started,
 * stopped or deleted one at a time; a delete is confirmed first. After an operation the whole list is loaded again, since a
 * delete or a stop changes what the hypervisor reports for the machine.
 */
export const adminVmsMachine = setup({
  types: {
    context: {} as AdminVmsContext,
    events: {} as AdminVmsEvent,
  },
  guards: {
    isDelete: ({ event }) => event.type === 'vm.operationRequested' && event.operation === 'delete',
  },
  actors: {
    /** GET vms. */
    loadVms: fromPromise<Vm[], void>(() => {
      throw notProvided('loadVms');
    }),
    /** PUT vm {id, type} for start and stop, DELETE vm/{id} for delete. */
    operateVm: fromPromise<void, { id: string; operation: AdminVmOperation }>(() => {
      throw notProvided('operateVm');
    }),
  },
}).createMachine({
  id: 'adminVms',
  description: 'Every machine, listed and operated on one at a time.',
  context: { vms: [], pending: null, error: null },
  initial: 'loading',
  states: {
    loading: {
      tags: ['loading'],
      invoke: {
        src: 'loadVms',
        onDone: {
          target: 'ready',
          actions: assign({ vms: ({ event }) => event.output, pending: null }),
        },
        onError: {
          target: 'ready',
          actions: assign({ error: ({ event }) => errorMessage(event.error), pending: null }),
        },
      },
    },
    ready: {
      on: {
        'vms.refreshRequested': { target: 'loading', actions: assign({ error: null }) },
        'vm.operationRequested': [
          {
            guard: 'isDelete',
            target: 'confirmingDelete',
            actions: assign({
              pending: ({ event }) => ({ id: event.id, operation: event.operation }),
              error: null,
            }),
          },
          {
            target: 'operating',
            actions: assign({
              pending: ({ event }) => ({ id: event.id, operation: event.operation }),
              error: null,
            }),
          },
        ],
      },
    },
    // A machine's delete cannot be undone: asked beside its button, then done or dropped.
    confirmingDelete: {
      tags: ['confirming'],
      on: {
        'vm.deleteConfirmed': 'operating',
        'vm.deleteCancelled': { target: 'ready', actions: assign({ pending: null }) },
      },
    },
    operating: {
      tags: ['busy'],
      invoke: {
        src: 'operateVm',
        input: ({ context }) => context.pending ?? { id: '', operation: 'start' as const },
        onDone: 'loading',
        onError: {
          target: 'loading',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
  },
});

export type AdminVmsActorRef = ActorRefFrom<typeof adminVmsMachine>;
export type AdminVmsSnapshot = SnapshotFrom<typeof adminVmsMachine>;
