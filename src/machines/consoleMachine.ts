import { and, assign, sendTo, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { DEFAULT_KEYBOARD_LAYOUT, type KeyboardLayout } from '../domain/keyboardLayouts';
import { errorMessage } from '../domain/text';
import { consoleActors, notProvided } from './consoleMachine.actors';
import { consoleGuards, RECONNECT_TICK_MS, reconnectDelayMs } from './consoleMachine.guards';
import type {
  ConsoleContext,
  ConsoleEvent,
  ConsoleInput,
  ConsoleScreen,
} from './consoleMachine.types';

// The console page (/console/{id}/{name}, wire reference §7 Console page): sign in for the console
// cookie, ask for a one-time ticket, and show the machine through noVNC. The noVNC RFB object
// lives in the invoked `rfb` callback actor, so leaving `connecting`/`connected` disconnects it;
// its events come back as `rfb.*` events.
//
// A lost connection is taken up again on its own, with back-off, through a fresh ticket (tickets
// work once): whether noVNC dropped, the server restarted, or the balancer moved the page to
// another server. A machine that stopped is not: the page says so and waits for Retry.

export {
  canConnect,
  RECONNECT_FIRST_DELAY_MS,
  RECONNECT_JITTER,
  RECONNECT_MAX_DELAY_MS,
  RECONNECT_TICK_MS,
  reconnectDelayMs,
} from './consoleMachine.guards';
export type * from './consoleMachine.types';

/**
 * The console page of one machine. Signing in comes first; once signed in, the noVNC session runs
 * here while the network switcher and the cookie's heartbeat run beside it as children.
 */
export const consoleMachine = setup({
  types: {
    input: {} as ConsoleInput,
    context: {} as ConsoleContext,
    events: {} as ConsoleEvent,
    children: {} as {
      network: 'network';
      heartbeat: 'heartbeat';
      files: 'files';
      clipboard: 'clipboard';
    },
    // 'busy': working towards a connection; 'live': noVNC shows the machine.
    tags: {} as 'busy' | 'live',
  },
  actors: consoleActors,
  actions: {
    /** Element.requestFullscreen on the screen (a user gesture, so it runs in the event). */
    requestFullscreen: (_, _params: { screen: ConsoleScreen }) => {
      throw notProvided('requestFullscreen');
    },
    /** Keeps the user's choice for the next console and the profile page. */
    rememberKeyboardLayout: (_, _params: { layout: KeyboardLayout }) => {
      throw notProvided('rememberKeyboardLayout');
    },
    chooseKeyboardLayout: assign({
      keyboardLayout: (_, { layout }: { layout: KeyboardLayout }) => layout,
    }),
    recordError: assign({
      error: (_, { error }: { error: unknown }) => errorMessage(error),
    }),
    /** One more reconnection, after a longer wait than the last. */
    scheduleReconnect: assign(({ context }) => ({
      reconnectAttempt: context.reconnectAttempt + 1,
      reconnectInMs: reconnectDelayMs(context.reconnectAttempt + 1, context.jitter),
    })),
    tickReconnect: assign({
      reconnectInMs: ({ context }) => context.reconnectInMs - RECONNECT_TICK_MS,
    }),
  },
  delays: {
    /** The next step of the countdown: a whole tick, or what is left of the wait. */
    reconnectTick: ({ context }) => Math.min(context.reconnectInMs, RECONNECT_TICK_MS),
  },
  guards: consoleGuards,
}).createMachine({
  id: 'console',
  description:
    "A machine's console page: signs in for the console cookie, asks for a ticket and shows the machine through noVNC once the screen exists; a lost connection is checked (a stopped machine waits for Retry) and taken up again with back-off through a new ticket, as is a server that cannot be reached; a refused cookie signs in again once; a second credentials request fails. The network switcher and the heartbeat run beside it.",
  context: ({ input }) => ({
    vmId: input.vmId,
    name: input.name,
    fullbleed: input.fullbleed,
    screen: null,
    console: null,
    error: null,
    credentialAsks: 0,
    reconnectAttempt: 0,
    jitter: input.jitter ?? 0,
    reconnectInMs: 0,
    signedInAgain: false,
    keyboardLayout: input.keyboardLayout ?? DEFAULT_KEYBOARD_LAYOUT,
    pasteError: null,
    clipboardDirections: null,
    userId: input.userId ?? null,
    control: false,
    viewers: [],
  }),
  on: {
    'console.viewersChanged': { actions: assign({ viewers: ({ event }) => event.viewers }) },
    'clipboard.directionsKnown': {
      actions: assign({ clipboardDirections: ({ event }) => event.directions }),
    },
    'console.screenAttached': { actions: assign({ screen: ({ event }) => event.screen }) },
    'console.keyboardLayoutChosen': {
      actions: [
        { type: 'chooseKeyboardLayout', params: ({ event }) => ({ layout: event.layout }) },
        { type: 'rememberKeyboardLayout', params: ({ event }) => ({ layout: event.layout }) },
      ],
    },
    'console.pasteErrorDismissed': { actions: assign({ pasteError: null }) },
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
        {
          id: 'clipboard',
          src: 'clipboard',
          input: ({ context, self }) => ({ vmId: context.vmId, parentRef: self }),
        },
        { id: 'files', src: 'files', input: ({ context }) => ({ vmId: context.vmId }) },
      ],
      initial: 'loading',
      states: {
        loading: {
          tags: ['busy'],
          entry: assign({ error: null, credentialAsks: 0 }),
          invoke: {
            id: 'loadConsole',
            src: 'loadConsole',
            input: ({ context }) => ({ vmId: context.vmId, control: context.control }),
            onDone: [
              {
                guard: { type: 'canConnect', params: ({ event }) => ({ console: event.output }) },
                target: 'awaitingScreen',
                actions: assign({
                  console: ({ event }) => event.output,
                  viewers: ({ event }) => event.output.viewers ?? [],
                }),
              },
              { target: 'stopped', actions: assign({ console: ({ event }) => event.output }) },
            ],
            onError: [
              {
                // The cookie is gone (it expired, or the server no longer takes it): sign in
                // again rather than ask for tickets it will refuse.
                guard: { type: 'canSignInAgain', params: ({ event }) => ({ error: event.error }) },
                target: '#console.signingIn',
                actions: assign({ signedInAgain: true }),
              },
              {
                guard: { type: 'isServerAway', params: ({ event }) => ({ error: event.error }) },
                target: 'reconnecting',
                actions: 'scheduleReconnect',
              },
              {
                target: 'failed',
                actions: { type: 'recordError', params: ({ event }) => ({ error: event.error }) },
              },
            ],
          },
        },
        /** The page's screen element may mount after the ticket arrives. */
        awaitingScreen: {
          tags: ['busy'],
          always: { guard: 'hasScreen', target: 'attached' },
        },
        /** noVNC runs while here: leaving (Reconnect, a lost connection) disconnects it. */
        attached: {
          invoke: [
            {
              id: 'rfb',
              src: 'rfb',
              input: ({ context }) => ({
                url: context.console?.url ?? '',
                ticket: context.console?.ticket ?? '',
                // awaitingScreen lets the session in only with a screen.
                screen: context.screen as ConsoleScreen,
                keyboardLayout: context.keyboardLayout,
                viewOnly: context.console?.viewOnly === true,
              }),
            },
            {
              id: 'viewers',
              src: 'viewers',
              input: ({ context }) => ({
                vmId: context.vmId,
                channelId: context.console?.isolationId ?? '',
              }),
            },
          ],
          on: {
            // The session types on the new layout at once.
            'console.keyboardLayoutChosen': {
              actions: [
                { type: 'chooseKeyboardLayout', params: ({ event }) => ({ layout: event.layout }) },
                {
                  type: 'rememberKeyboardLayout',
                  params: ({ event }) => ({ layout: event.layout }),
                },
                sendTo('rfb', ({ event }) => ({
                  type: 'rfb.keyboardLayoutChanged' as const,
                  layout: event.layout,
                })),
              ],
            },
            'rfb.disconnected': 'checking',
            'rfb.securityFailed': {
              target: 'failed',
              actions: assign({
                error: ({ event }) => event.reason || 'The console refused the connection.',
              }),
            },
            'console.reconnectRequested': 'loading',
            // A new ticket, with control: the view-only session ends as the new one opens.
            'console.takeControlRequested': {
              guard: 'mayTakeControl',
              target: 'loading',
              actions: assign({ control: true }),
            },
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
              // A connection that worked: the next loss starts the back-off from the start.
              entry: [
                assign({ reconnectAttempt: 0, signedInAgain: false }),
                sendTo('clipboard', { type: 'console.connected' }),
              ],
              on: {
                'console.ctrlAltDelRequested': {
                  guard: 'hasControl',
                  actions: sendTo('rfb', { type: 'rfb.sendCtrlAltDel' }),
                },
                'console.pasteRequested': [
                  {
                    guard: and(['hasControl', 'isPasteWithText', 'sharesClipboard']),
                    actions: [
                      sendTo('rfb', ({ event }) => ({
                        type: 'rfb.clipboardPaste' as const,
                        text: event.text,
                      })),
                      sendTo('clipboard', { type: 'console.pasted' }),
                    ],
                  },
                  {
                    guard: and(['hasControl', 'isPasteWithText']),
                    actions: [
                      sendTo('rfb', ({ event }) => ({ type: 'rfb.paste', text: event.text })),
                      sendTo('clipboard', { type: 'console.pasted' }),
                    ],
                  },
                ],
                'rfb.clipboard': {
                  actions: sendTo('clipboard', ({ event }) => ({
                    type: 'console.guestCopied' as const,
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
              initial: 'ready',
              states: {
                ready: {
                  on: {
                    'console.clipboardPasteRequested': {
                      guard: 'hasControl',
                      target: 'readingClipboard',
                      actions: assign({ pasteError: null }),
                    },
                  },
                },
                /** The browser may ask the user first whether the page may read the clipboard. */
                readingClipboard: {
                  invoke: {
                    id: 'readClipboard',
                    src: 'readClipboard',
                    onDone: [
                      {
                        guard: 'sharesClipboard',
                        target: 'ready',
                        actions: [
                          sendTo('rfb', ({ event }) => ({
                            type: 'rfb.clipboardPaste' as const,
                            text: event.output,
                          })),
                          sendTo('clipboard', { type: 'console.pasted' }),
                        ],
                      },
                      {
                        target: 'ready',
                        actions: [
                          sendTo('rfb', ({ event }) => ({
                            type: 'rfb.paste' as const,
                            text: event.output,
                          })),
                          sendTo('clipboard', { type: 'console.pasted' }),
                        ],
                      },
                    ],
                    onError: {
                      target: 'ready',
                      actions: assign({
                        pasteError: ({ event }) =>
                          `The clipboard could not be read: ${errorMessage(event.error)}`,
                      }),
                    },
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
                target: 'reconnecting',
                actions: 'scheduleReconnect',
              },
              { target: 'stopped' },
            ],
            // The server is away, or this sign-in may not read the machine (a launch cookie):
            // the console answer says whether it still runs.
            onError: { target: 'reconnecting', actions: 'scheduleReconnect' },
          },
        },
        /**
         * Waiting out the back-off before a new ticket, counting down for the page; Reconnect
         * goes at once.
         */
        reconnecting: {
          after: {
            reconnectTick: [
              { guard: 'isReconnectDue', target: 'loading' },
              { target: 'reconnecting', reenter: true, actions: 'tickReconnect' },
            ],
          },
          on: { 'console.reconnectRequested': 'loading' },
        },
        /** Never retried on its own: starting the machine is someone's decision. */
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
