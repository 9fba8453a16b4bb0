import {
  assign,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { NetChange, VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import { errorMessage } from '../domain/text';

// The console page (/console/{id}/{name}, wire reference §7 Console page): sign in for the console
// cookie, ask for a one-time ticket, and show the machine through noVNC. The noVNC RFB object
// lives in the invoked `rfb` callback actor, so leaving `connecting`/`connected` disconnects it;
// its events come back as `rfb.*` events.

/** The reference console pings GET user/ping this often while it is open (wire reference §1.7). */
export const PING_INTERVAL_MS = 60_000;
/** The reference UI offers NIC 1..3 when it cannot tell how many a machine has. */
export const NIC_COUNT = 3;

/**
 * The view's screen element, which noVNC draws into. The machine only hands it to its effects (it
 * is not typed as a DOM element because machines are also compiled without the DOM library).
 */
export type ConsoleScreen = object;

/** What the view asks noVNC for, through the machine. */
export type RfbCommand = { type: 'rfb.sendCtrlAltDel' } | { type: 'rfb.paste'; text: string };

export type ConsoleEvent =
  /** The view's screen element exists; noVNC draws into it. */
  | { type: 'console.screenAttached'; screen: ConsoleScreen }
  | { type: 'console.reconnectRequested' }
  | { type: 'console.retryRequested' }
  | { type: 'console.ctrlAltDelRequested' }
  | { type: 'console.pasteRequested'; text: string }
  | { type: 'console.fullscreenRequested' }
  | { type: 'console.netChangeRequested'; nic: number; net: string }
  | { type: 'console.networkErrorDismissed' }
  // From the rfb actor (noVNC's events).
  | { type: 'rfb.connected' }
  | { type: 'rfb.disconnected'; clean: boolean }
  | { type: 'rfb.credentialsRequired' }
  | { type: 'rfb.securityFailed'; reason: string };

export interface ConsoleInput {
  vmId: string;
  /** The machine name from the route (without its tag). */
  name: string;
  /** f=1: the page fills the window without the toolbar's margins. */
  fullbleed: boolean;
}

export interface RfbInput {
  url: string;
  /** noVNC's password credential, the console ticket. */
  ticket: string;
  screen: ConsoleScreen;
}

export interface ConsoleContext {
  vmId: string;
  name: string;
  fullbleed: boolean;
  screen: ConsoleScreen | null;
  /** The last console answer: the ticket and address in use. */
  console: VmConsole | null;
  /** Why the console failed, shown with Retry. */
  error: string | null;
  /** Networks a NIC may join; empty until loaded. */
  nets: string[];
  /** The network each NIC was last moved to on this page ('' unknown). */
  nicNets: string[];
  networkError: string | null;
  /** The NIC change in flight. */
  netChange: NetChange | null;
  /** Times noVNC asked for credentials on this connection: a second ask means a bad ticket. */
  credentialAsks: number;
}

const notProvided = (name: string): Error =>
  new Error(`consoleMachine: '${name}' is provided by the app (src/app)`);

/** A console answer with an address to connect to; anything else is a machine that is off. */
export const canConnect = (c: VmConsole): boolean => c.isRunning && (c.url ?? '') !== '';

export const consoleMachine = setup({
  types: {
    input: {} as ConsoleInput,
    context: {} as ConsoleContext,
    events: {} as ConsoleEvent,
    // 'busy': working towards a connection; 'live': noVNC shows the machine.
    tags: {} as 'busy' | 'live',
  },
  actors: {
    /** POST user/login: the console cookie. */
    signIn: fromPromise<void, void>(() => {
      throw notProvided('signIn');
    }),
    /** GET vm-console/{id}: a new ticket each time. */
    loadConsole: fromPromise<VmConsole, { vmId: string }>(() => {
      throw notProvided('loadConsole');
    }),
    /** GET vm/{id}: whether a lost connection means the machine stopped. */
    loadVm: fromPromise<Vm | null, { vmId: string }>(() => {
      throw notProvided('loadVm');
    }),
    /** GET vm/{id}/nets. */
    loadNets: fromPromise<string[], { vmId: string }>(() => {
      throw notProvided('loadNets');
    }),
    /** PUT vm/{id}/change. */
    changeNet: fromPromise<void, NetChange>(() => {
      throw notProvided('changeNet');
    }),
    /** GET user/ping. */
    ping: fromPromise<void, void>(() => {
      throw notProvided('ping');
    }),
    /** noVNC's RFB: reports `rfb.*` events, takes `RfbCommand`s, disconnects when stopped. */
    rfb: fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(() => {
      throw notProvided('rfb');
    }),
  },
  actions: {
    /** Element.requestFullscreen on the screen (a user gesture, so it runs in the event). */
    requestFullscreen: (_, _params: { screen: ConsoleScreen }) => {
      throw notProvided('requestFullscreen');
    },
    recordError: assign({
      error: (_, { error }: { error: unknown }) => errorMessage(error),
    }),
  },
  guards: {
    hasScreen: ({ context }) => context.screen !== null,
    canConnect: (_, { console }: { console: VmConsole }) => canConnect(console),
    isRunning: (_, { vm }: { vm: Vm | null }) => vm?.state === 'running',
    wasAskedBefore: ({ context }) => context.credentialAsks > 0,
  },
  delays: {
    pingInterval: PING_INTERVAL_MS,
  },
}).createMachine({
  id: 'console',
  context: ({ input }) => ({
    vmId: input.vmId,
    name: input.name,
    fullbleed: input.fullbleed,
    screen: null,
    console: null,
    error: null,
    nets: [],
    nicNets: Array.from({ length: NIC_COUNT }, () => ''),
    networkError: null,
    netChange: null,
    credentialAsks: 0,
  }),
  on: {
    'console.screenAttached': { actions: assign({ screen: ({ event }) => event.screen }) },
  },
  initial: 'signingIn',
  states: {
    signingIn: {
      tags: ['busy'],
      invoke: {
        src: 'signIn',
        onDone: 'open',
        onError: {
          target: 'signInFailed',
          actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
        },
      },
    },
    signInFailed: {
      on: { 'console.retryRequested': { target: 'signingIn', actions: assign({ error: null }) } },
    },
    /** Signed in: the console, the network switcher and the heartbeat run side by side. */
    open: {
      type: 'parallel',
      states: {
        session: {
          initial: 'loading',
          states: {
            loading: {
              tags: ['busy'],
              entry: assign({ error: null, credentialAsks: 0 }),
              invoke: {
                src: 'loadConsole',
                input: ({ context }) => ({ vmId: context.vmId }),
                onDone: [
                  {
                    guard: {
                      type: 'canConnect',
                      params: ({ event }) => ({ console: event.output }),
                    },
                    target: 'awaitingScreen',
                    actions: assign({ console: ({ event }) => event.output }),
                  },
                  { target: 'stopped', actions: assign({ console: ({ event }) => event.output }) },
                ],
                onError: {
                  target: 'failed',
                  actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
                },
              },
            },
            /** The page's screen element may mount after the ticket arrives. */
            awaitingScreen: {
              tags: ['busy'],
              always: { guard: 'hasScreen', target: 'attached' },
            },
            /** noVNC runs while here: leaving (Reconnect, a lost connection) disconnects it. */
            attached: {
              invoke: {
                id: 'rfb',
                src: 'rfb',
                input: ({ context }) => ({
                  url: context.console?.url ?? '',
                  ticket: context.console?.ticket ?? '',
                  // awaitingScreen lets the session in only with a screen.
                  screen: context.screen as ConsoleScreen,
                }),
              },
              on: {
                'rfb.disconnected': 'checking',
                'rfb.securityFailed': {
                  target: 'failed',
                  actions: assign({
                    error: ({ event }) => event.reason || 'The console refused the connection.',
                  }),
                },
                'console.reconnectRequested': 'loading',
              },
              initial: 'connecting',
              states: {
                connecting: {
                  tags: ['busy'],
                  on: {
                    'rfb.connected': 'connected',
                    'rfb.credentialsRequired': [
                      {
                        guard: 'wasAskedBefore',
                        target: '#console.open.session.failed',
                        actions: assign({ error: 'The console did not accept its ticket.' }),
                      },
                      {
                        actions: [
                          assign({ credentialAsks: ({ context }) => context.credentialAsks + 1 }),
                          sendTo('rfb', { type: 'rfb.credentials' }),
                        ],
                      },
                    ],
                  },
                },
                connected: {
                  tags: ['live'],
                  on: {
                    'console.ctrlAltDelRequested': {
                      actions: sendTo('rfb', { type: 'rfb.sendCtrlAltDel' }),
                    },
                    'console.pasteRequested': {
                      guard: ({ event }) => event.text !== '',
                      actions: sendTo('rfb', ({ event }) => ({
                        type: 'rfb.paste',
                        text: event.text,
                      })),
                    },
                    'console.fullscreenRequested': {
                      guard: 'hasScreen',
                      actions: {
                        type: 'requestFullscreen',
                        params: ({ context }) => ({ screen: context.screen as ConsoleScreen }),
                      },
                    },
                  },
                },
              },
            },
            /** The connection ended: a machine that stopped is not worth reconnecting to. */
            checking: {
              tags: ['busy'],
              invoke: {
                src: 'loadVm',
                input: ({ context }) => ({ vmId: context.vmId }),
                onDone: [
                  {
                    guard: { type: 'isRunning', params: ({ event }) => ({ vm: event.output }) },
                    target: 'disconnected',
                  },
                  { target: 'stopped' },
                ],
                onError: 'disconnected',
              },
            },
            disconnected: {
              on: { 'console.reconnectRequested': 'loading' },
            },
            stopped: {
              on: { 'console.retryRequested': 'loading' },
            },
            failed: {
              on: { 'console.retryRequested': 'loading' },
            },
          },
        },
        network: {
          initial: 'loading',
          states: {
            loading: {
              invoke: {
                src: 'loadNets',
                input: ({ context }) => ({ vmId: context.vmId }),
                onDone: { target: 'ready', actions: assign({ nets: ({ event }) => event.output }) },
                onError: 'unavailable',
              },
            },
            ready: {
              on: {
                'console.netChangeRequested': {
                  guard: ({ context, event }) =>
                    event.nic >= 0 && event.nic < NIC_COUNT && context.nets.includes(event.net),
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
                src: 'changeNet',
                input: ({ context }) => context.netChange as NetChange,
                onDone: {
                  target: 'ready',
                  actions: assign({
                    networkError: null,
                    nicNets: ({ context }) =>
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
        },
        heartbeat: {
          initial: 'waiting',
          states: {
            waiting: { after: { pingInterval: 'pinging' } },
            pinging: {
              invoke: { src: 'ping', onDone: 'waiting', onError: 'waiting' },
            },
          },
        },
      },
    },
  },
});

export type ConsoleMachine = typeof consoleMachine;
export type ConsoleActorRef = ActorRefFrom<typeof consoleMachine>;
export type ConsoleSnapshot = SnapshotFrom<typeof consoleMachine>;
