import {
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { hubChannelMachine, REJOIN_RETRY_MS, type HubChannelReport } from './hubChannelMachine';

export { REJOIN_RETRY_MS };

/**
 * Waits before each reconnect attempt after a lost connection (spec §7, §9): 1, 2 and 3 s, then
 * 5 s for the remaining attempts, 14 in all. After the last attempt fails the hub gives up.
 */
export const RECONNECT_DELAYS_MS: readonly number[] = [
  1_000,
  2_000,
  3_000,
  ...Array.from({ length: 11 }, () => 5_000),
];
/** A failed first connection is tried again after 5 s, for as long as the session lasts. */
export const INITIAL_RETRY_MS = 5_000;

/** The hub methods the SPA invokes (wire reference §3). */
export type HubMethod = 'Listen' | 'Leave' | 'Greet' | 'Edited' | 'CursorChanged';
export interface HubInvocation {
  method: HubMethod;
  args: unknown[];
}

export type HubConnectionEvent =
  /** The session began (the token became valid): connect. Only heard while disconnected. */
  | { type: 'hub.startRequested' }
  /** The session ended (the token became invalid or expired): disconnect. */
  | { type: 'hub.stopRequested' }
  /** A view opened a channel (a workspace or gamespace id): listen on it while connected. */
  | { type: 'hub.listenRequested'; channelId: string }
  /** The view closed: stop listening. */
  | { type: 'hub.leaveRequested'; channelId: string }
  /**
   * Invoke a hub method: at once while connected, else when the next connection is up. Listen
   * and Leave go through listenRequested/leaveRequested, which keep the channel list.
   */
  | { type: 'hub.invokeRequested'; method: Exclude<HubMethod, 'Listen' | 'Leave'>; args: unknown[] }
  /** The connection closed without being asked to (the server went away, the network dropped). */
  | { type: 'hub.connectionLost'; error: string | null }
  | HubChannelReport;

export interface HubChannelState {
  /** The server has this connection in the channel's group; false while joining or retrying. */
  joined: boolean;
}

export interface HubConnectionContext {
  /**
   * The first connection attempt of a session has settled (connected or failed). The shell's
   * banner counts only from then on, so that every sign-in does not flash it while the first
   * attempt is under way; it stays true when the hub gives up, so the banner remains.
   */
  initialized: boolean;
  /** Failed attempts since the connection was requested or lost; indexes RECONNECT_DELAYS_MS. */
  attempt: number;
  /** The app adapter's opaque id for the open connection; the adapter holds the connection. */
  connectionId: string | null;
  /** Channels to listen on, by id; joined again on every new connection. */
  channels: Record<string, HubChannelState>;
  /** Invocations waiting to be sent, oldest first; while connected the first one is in flight. */
  outbox: HubInvocation[];
  /** The last hub error (failed attempt, join or invocation), for the event log and diagnosis. */
  lastError: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`hubConnectionMachine: '${name}' is provided by the app (src/app)`);

const joinId = (channelId: string) => `join:${channelId}`;

const isLeaveOf = (channelId: string) => (invocation: HubInvocation) =>
  invocation.method === 'Leave' && invocation.args[0] === channelId;

/** Re-listening cancels a Leave of the channel that has not gone out yet (the first is sent). */
const withoutPendingLeave = (outbox: HubInvocation[], channelId: string): HubInvocation[] => {
  const [inFlight, ...pending] = outbox;
  if (inFlight === undefined) return outbox;
  return pending.some(isLeaveOf(channelId))
    ? [inFlight, ...pending.filter((invocation) => !isLeaveOf(channelId)(invocation))]
    : outbox;
};

/**
 * The real-time hub connection (spec §4 "Real-time connection states", §7 "Real-time hub"). One
 * per app (systemId `hubConnection`), started and stopped with the session.
 *
 * The machine owns the retry schedule: each attempt is a fresh connection from the app's adapter
 * (so each fetches a fresh one-time ticket), a lost connection is retried after
 * RECONNECT_DELAYS_MS and then given up, a failed first connection every INITIAL_RETRY_MS.
 * Channels are joined by one child per channel on every new connection, because the server's
 * groups are per connection. Invocations go out one at a time, in the order requested; those
 * requested while not connected wait in the outbox for the next connection.
 */
export const hubConnectionMachine = setup({
  types: {
    context: {} as HubConnectionContext,
    events: {} as HubConnectionEvent,
    // 'connected': the connection is up; invocations go out at once.
    tags: {} as 'connected',
  },
  actors: {
    /**
     * Builds a new connection with a fresh ticket, registers the server event handlers and starts
     * it; resolves with the connection's id. Aborted (through its signal) when left.
     */
    openConnection: fromPromise<string, void>(() => {
      throw notProvided('openConnection');
    }),
    /** Sends `hub.connectionLost` when the connection closes. */
    watchConnection: fromCallback<EventObject, { connectionId: string }>(() => {
      throw notProvided('watchConnection');
    }),
    /** Stops the connection. */
    closeConnection: fromPromise<void, { connectionId: string }>(() => {
      throw notProvided('closeConnection');
    }),
    /** Invokes a hub method and waits for the server's completion. */
    invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(() => {
      throw notProvided('invoke');
    }),
    /** One channel's join; provide it with its own `joinChannel`. */
    hubChannel: hubChannelMachine,
  },
  actions: {
    markInitialized: assign({ initialized: true }),
    countAttempt: assign({ attempt: ({ context }) => context.attempt + 1 }),
    resetAttempts: assign({ attempt: 0 }),
    forgetConnection: assign({ connectionId: null }),
    recordError: assign({
      lastError: ({ context, event }) => {
        const error = (event as { error?: unknown }).error;
        return error === undefined || error === null ? context.lastError : errorMessage(error);
      },
    }),
    addChannel: assign({
      channels: ({ context, event }) => {
        if (event.type !== 'hub.listenRequested') return context.channels;
        return { ...context.channels, [event.channelId]: { joined: false } };
      },
    }),
    removeChannel: assign({
      channels: ({ context, event }) => {
        if (event.type !== 'hub.leaveRequested') return context.channels;
        const { [event.channelId]: _left, ...rest } = context.channels;
        return rest;
      },
    }),
    markJoined: assign({
      channels: ({ context, event }) => {
        if (event.type !== 'hub.channelJoined') return context.channels;
        return { ...context.channels, [event.channelId]: { joined: true } };
      },
    }),
    /** The server dropped this connection's groups with it. */
    markChannelsLeft: assign({
      channels: ({ context }) =>
        Object.fromEntries(Object.keys(context.channels).map((id) => [id, { joined: false }])),
    }),
    enqueueInvocation: assign({
      outbox: ({ context, event }) =>
        event.type === 'hub.invokeRequested'
          ? [...context.outbox, { method: event.method, args: event.args }]
          : context.outbox,
    }),
    enqueueLeave: assign({
      outbox: ({ context, event }) =>
        event.type === 'hub.leaveRequested'
          ? [...context.outbox, { method: 'Leave' as const, args: [event.channelId] }]
          : context.outbox,
    }),
    cancelPendingLeave: assign({
      outbox: ({ context, event }) =>
        event.type === 'hub.listenRequested'
          ? withoutPendingLeave(context.outbox, event.channelId)
          : context.outbox,
    }),
    /** The invocation in flight is done, failed or lost with its connection: sent at most once. */
    dequeue: assign({ outbox: ({ context }) => context.outbox.slice(1) }),
    /**
     * A Leave left unsent when the connection drops is moot (the server dropped the groups), and
     * would fail on the next connection, which never joined.
     */
    dropLeaves: assign({
      outbox: ({ context }) => context.outbox.filter((invocation) => invocation.method !== 'Leave'),
    }),
    /** A new session must not send what the previous one asked for. */
    discardOutbox: assign({ outbox: [] }),
    joinChannels: enqueueActions(({ context, enqueue, self }) => {
      const connectionId = context.connectionId as string;
      for (const channelId of Object.keys(context.channels)) {
        enqueue.spawnChild('hubChannel', {
          id: joinId(channelId),
          input: { channelId, connectionId, parentRef: self },
        });
      }
    }),
    joinRequestedChannel: enqueueActions(({ context, event, enqueue, self }) => {
      if (event.type !== 'hub.listenRequested') return;
      enqueue.spawnChild('hubChannel', {
        id: joinId(event.channelId),
        input: {
          channelId: event.channelId,
          connectionId: context.connectionId as string,
          parentRef: self,
        },
      });
    }),
    stopJoins: enqueueActions(({ context, enqueue }) => {
      for (const channelId of Object.keys(context.channels)) enqueue.stopChild(joinId(channelId));
    }),
    stopRequestedJoin: enqueueActions(({ event, enqueue }) => {
      if (event.type === 'hub.leaveRequested') enqueue.stopChild(joinId(event.channelId));
    }),
  },
  guards: {
    isNewChannel: ({ context, event }) =>
      event.type === 'hub.listenRequested' && !(event.channelId in context.channels),
    isListenedChannel: ({ context, event }) =>
      (event.type === 'hub.leaveRequested' || event.type === 'hub.channelJoined') &&
      event.channelId in context.channels,
    hasOutbox: ({ context }) => context.outbox.length > 0,
    hasReconnectAttemptsLeft: ({ context }) => context.attempt + 1 < RECONNECT_DELAYS_MS.length,
  },
  delays: {
    initialRetry: INITIAL_RETRY_MS,
    reconnectDelay: ({ context }) =>
      RECONNECT_DELAYS_MS[context.attempt] ?? (RECONNECT_DELAYS_MS.at(-1) as number),
  },
}).createMachine({
  id: 'hubConnection',
  description:
    'The real-time hub connection: connects when the session starts (retrying every 5 s), reconnects after 1, 2, 3 then 5 s (14 attempts) when lost, joins every listened channel on each connection and sends invocations in order, buffering them while not connected.',
  context: {
    initialized: false,
    attempt: 0,
    connectionId: null,
    channels: {},
    outbox: [],
    lastError: null,
  },
  // Wherever the connection is, the channel list and the outbox are kept for the next one.
  on: {
    'hub.listenRequested': { guard: 'isNewChannel', actions: 'addChannel' },
    'hub.leaveRequested': { guard: 'isListenedChannel', actions: 'removeChannel' },
    'hub.invokeRequested': { actions: 'enqueueInvocation' },
  },
  initial: 'disconnected',
  states: {
    disconnected: {
      entry: 'forgetConnection',
      on: {
        // Start only from here (spec §4); stop is ignored here.
        'hub.startRequested': { target: 'connecting', actions: 'resetAttempts' },
      },
    },
    connecting: {
      on: {
        // Leaving aborts the attempt in flight; there is no connection to close yet.
        'hub.stopRequested': { target: 'disconnected', actions: 'discardOutbox' },
      },
      initial: 'opening',
      states: {
        opening: {
          invoke: {
            id: 'openConnection',
            src: 'openConnection',
            onDone: {
              target: '#hubConnection.connected',
              actions: [assign({ connectionId: ({ event }) => event.output }), 'markInitialized'],
            },
            onError: {
              target: 'retryScheduled',
              actions: ['recordError', 'markInitialized', 'countAttempt'],
            },
          },
        },
        retryScheduled: {
          after: { initialRetry: 'opening' },
        },
      },
    },
    connected: {
      tags: ['connected'],
      entry: ['resetAttempts', 'joinChannels'],
      exit: ['stopJoins', 'markChannelsLeft', 'dropLeaves'],
      invoke: {
        id: 'watchConnection',
        src: 'watchConnection',
        input: ({ context }) => ({ connectionId: context.connectionId as string }),
      },
      on: {
        'hub.listenRequested': {
          guard: 'isNewChannel',
          actions: ['addChannel', 'cancelPendingLeave', 'joinRequestedChannel'],
        },
        'hub.leaveRequested': {
          guard: 'isListenedChannel',
          actions: ['stopRequestedJoin', 'removeChannel', 'enqueueLeave'],
        },
        'hub.channelJoined': { guard: 'isListenedChannel', actions: 'markJoined' },
        // The join retries by itself; the error is kept for diagnosis.
        'hub.channelJoinFailed': { actions: 'recordError' },
        'hub.connectionLost': {
          target: 'reconnecting',
          actions: ['recordError', 'forgetConnection'],
        },
        'hub.stopRequested': { target: 'disconnecting', actions: 'discardOutbox' },
      },
      // The outbox: one invocation in flight at a time keeps them in the order requested.
      initial: 'idle',
      states: {
        idle: {
          always: { guard: 'hasOutbox', target: 'sending' },
        },
        sending: {
          exit: 'dequeue',
          invoke: {
            id: 'invoke',
            src: 'invoke',
            input: ({ context }) => ({
              ...(context.outbox[0] as HubInvocation),
              connectionId: context.connectionId as string,
            }),
            onDone: 'idle',
            // Hub errors are logged (spec §8) and the invocation dropped: a server refusal would
            // only be refused again.
            onError: { target: 'idle', actions: 'recordError' },
          },
        },
      },
    },
    disconnecting: {
      // Start and stop are both ignored until the connection has closed (spec §4).
      invoke: {
        id: 'closeConnection',
        src: 'closeConnection',
        input: ({ context }) => ({ connectionId: context.connectionId as string }),
        onDone: 'disconnected',
        onError: { target: 'disconnected', actions: 'recordError' },
      },
    },
    reconnecting: {
      on: {
        'hub.stopRequested': { target: 'disconnected', actions: 'discardOutbox' },
      },
      initial: 'waiting',
      states: {
        waiting: {
          after: { reconnectDelay: 'opening' },
        },
        opening: {
          invoke: {
            id: 'openConnection',
            src: 'openConnection',
            onDone: {
              target: '#hubConnection.connected',
              actions: assign({ connectionId: ({ event }) => event.output }),
            },
            onError: [
              {
                guard: 'hasReconnectAttemptsLeft',
                target: 'waiting',
                actions: ['recordError', 'countAttempt'],
              },
              // Given up: the banner stays until the next session starts the hub again.
              { target: '#hubConnection.disconnected', actions: 'recordError' },
            ],
          },
        },
      },
    },
  },
});

export type HubConnectionActorRef = ActorRefFrom<typeof hubConnectionMachine>;
export type HubConnectionSnapshot = SnapshotFrom<typeof hubConnectionMachine>;
export type HubConnectionState =
  'disconnected' | 'connecting' | 'connected' | 'disconnecting' | 'reconnecting';
