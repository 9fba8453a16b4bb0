import {
  assertEvent,
  assign,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { NetChange } from '../api/console';
import { errorMessage } from '../domain/text';

/** The reference UI offers NIC 1..3 when it cannot tell how many a machine has. */
export const NIC_COUNT = 3;

/** What the switcher loads about its machine. */
export interface MachineNetworks {
  /** Networks a NIC may join. */
  nets: string[];
  /**
   * Each NIC's network now, in NIC order ('' disconnected); null when the server does not say
   * (a TopoMojo server, or a console signed in by cookie, which may not read the machine).
   */
  nics: string[] | null;
}

export type ConsoleNetworkEvent =
  | { type: 'console.netChangeRequested'; nic: number; net: string }
  | { type: 'console.networkErrorDismissed' };

export interface ConsoleNetworkInput {
  vmId: string;
}

export interface ConsoleNetworkContext {
  vmId: string;
  /** Networks a NIC may join; empty until loaded. */
  nets: string[];
  /**
   * One entry per NIC the page offers: its network as the server last reported it, or where it
   * was last moved on this page ('' unknown or disconnected). Empty until loaded.
   */
  nicNets: string[];
  networkError: string | null;
  /** The NIC change in flight. */
  netChange: NetChange | null;
}

const notProvided = (name: string): Error =>
  new Error(`consoleNetworkMachine: '${name}' is provided by the app (src/app)`);

/**
 * The console page's network switcher: the machine's networks, and moving a NIC to one of them.
 * The console invokes it once signed in; it lives as long as the page, beside the noVNC session.
 */
export const consoleNetworkMachine = setup({
  types: {
    input: {} as ConsoleNetworkInput,
    context: {} as ConsoleNetworkContext,
    events: {} as ConsoleNetworkEvent,
  },
  actors: {
    /** GET vm/{id}/nets, and the machine's NICs (GET vm/{id}). */
    loadNets: fromPromise<MachineNetworks, { vmId: string }>(() => {
      throw notProvided('loadNets');
    }),
    /** PUT vm/{id}/change: the machine's NICs after it, when the server reports them. */
    changeNet: fromPromise<string[] | null, NetChange>(() => {
      throw notProvided('changeNet');
    }),
  },
  guards: {
    /** A NIC the page offers, moved to a network the machine may join. */
    isOfferedChange: ({ context, event }) => {
      assertEvent(event, 'console.netChangeRequested');
      return (
        event.nic >= 0 && event.nic < context.nicNets.length && context.nets.includes(event.net)
      );
    },
  },
}).createMachine({
  id: 'consoleNetwork',
  description:
    "The console page's network switcher: loads the machine's networks and its NICs, then moves one NIC at a time to a listed network and shows where each is; a refused change shows until dismissed.",
  context: ({ input }) => ({
    vmId: input.vmId,
    nets: [],
    nicNets: [],
    networkError: null,
    netChange: null,
  }),
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'loadNets',
        src: 'loadNets',
        input: ({ context }) => ({ vmId: context.vmId }),
        onDone: {
          target: 'ready',
          actions: assign({
            nets: ({ event }) => event.output.nets,
            nicNets: ({ event }) =>
              event.output.nics ?? Array.from({ length: NIC_COUNT }, () => ''),
          }),
        },
        onError: 'unavailable',
      },
    },
    ready: {
      on: {
        'console.netChangeRequested': {
          guard: 'isOfferedChange',
          target: 'changing',
          actions: assign({
            netChange: ({ context, event }) => ({
              vmId: context.vmId,
              nic: event.nic,
              net: event.net,
            }),
          }),
        },
        'console.networkErrorDismissed': { actions: assign({ networkError: null }) },
      },
    },
    changing: {
      invoke: {
        id: 'changeNet',
        src: 'changeNet',
        input: ({ context }) => context.netChange as NetChange,
        onDone: {
          target: 'ready',
          actions: assign({
            networkError: null,
            // The server's NICs when it reports them; else the change as asked.
            nicNets: ({ context, event }) =>
              event.output ??
              context.nicNets.map((n, i) =>
                i === context.netChange?.nic ? context.netChange.net : n,
              ),
          }),
        },
        onError: {
          target: 'ready',
          actions: assign({ networkError: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    /** The machine's networks could not be read: the switcher is not offered. */
    unavailable: {},
  },
});

export type ConsoleNetworkActorRef = ActorRefFrom<typeof consoleNetworkMachine>;
export type ConsoleNetworkSnapshot = SnapshotFrom<typeof consoleNetworkMachine>;
