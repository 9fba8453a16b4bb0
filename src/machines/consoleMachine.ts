import {
  assign,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { VmConsole } from '../api/console';
import type { Vm } from '../api/vm';
import { errorMessage } from '../domain/text';
import { consoleHeartbeatMachine } from './consoleHeartbeatMachine';
import { consoleNetworkMachine } from './consoleNetworkMachine';

// The console page (/console/{id}/{name}, wire reference §7 Console page): sign in for the console
// cookie, ask for a one-time ticket, and show the machine through noVNC. The noVNC RFB object
// lives in the invoked `rfb` callback actor, so leaving `connecting`/`connected` disconnects it;
// its events come back as `rfb.*` events.

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
  /** Times noVNC asked for credentials on this connection: a second ask means a bad ticket. */
  credentialAsks: number;
}

const notProvided = (name: string): Error =>
  new Error(`consoleMachine: '${name}' is provided by the app (src/app)`);

/** A console answer with an address to connect to; anything else is a machine that is off. */
export const canConnect = (c: VmConsole): boolean => c.isRunning && (c.url ?? '') !== '';

/**
 * The console page of one machine. Signing in comes first; once signed in, the noVNC session runs
 * here while the network switcher and the cookie's heartbeat run beside it as children.
 */
export const consoleMachine = setup({
  types: {
    input: {} as ConsoleInput,
    context: {} as ConsoleContext,
    events: {} as ConsoleEvent,
    children: {} as { network: 'network'; heartbeat: 'heartbeat' },
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
    /** noVNC's RFB: reports `rfb.*` events, takes `RfbCommand`s, disconnects when stopped. */
    rfb: fromCallback<RfbCommand | { type: 'rfb.credentials' }, RfbInput>(() => {
      throw notProvided('rfb');
    }),
    /** The network switcher; provide its loadNets and changeNet. */
    network: consoleNetworkMachine,
    /** The cookie's heartbeat; provide its ping. */
    heartbeat: consoleHeartbeatMachine,
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
    /** An empty paste would only move the focus. */
    hasText: (_, { text }: { text: string }) => text !== '',
  },
}).createMachine({
  id: 'console',
  description:
    "A machine's console page: signs in for the console cookie, asks for a ticket and shows the machine through noVNC once the screen exists; a lost connection is checked (stopped machine or Reconnect), a second credentials request fails. The network switcher and the heartbeat run beside it.",
  context: ({ input }) => ({
    vmId: input.vmId,
    name: input.name,
    fullbleed: input.fullbleed,
    screen: null,
    console: null,
    error: null,
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
        id: 'signIn',
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
    /** Signed in: the noVNC session, with the network switcher and the heartbeat beside it. */
    open: {
      invoke: [
        { id: 'network', src: 'network', input: ({ context }) => ({ vmId: context.vmId }) },
        { id: 'heartbeat', src: 'heartbeat' },
      ],
      initial: 'loading',
      states: {
        loading: {
          tags: ['busy'],
          entry: assign({ error: null, credentialAsks: 0 }),
          invoke: {
            id: 'loadConsole',
            src: 'loadConsole',
            input: ({ context }) => ({ vmId: context.vmId }),
            onDone: [
              {
                guard: { type: 'canConnect', params: ({ event }) => ({ console: event.output }) },
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
                    target: '#console.open.failed',
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
                  guard: { type: 'hasText', params: ({ event }) => ({ text: event.text }) },
                  actions: sendTo('rfb', ({ event }) => ({ type: 'rfb.paste', text: event.text })),
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
            id: 'loadVm',
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
  },
});

export type ConsoleMachine = typeof consoleMachine;
export type ConsoleActorRef = ActorRefFrom<typeof consoleMachine>;
export type ConsoleSnapshot = SnapshotFrom<typeof consoleMachine>;
