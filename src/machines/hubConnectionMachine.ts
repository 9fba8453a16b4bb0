import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';
import { hubChannelMachine, REJOIN_RETRY_MS } from './hubChannelMachine';
import { hubConnectorMachine, INITIAL_RETRY_MS, RECONNECT_DELAYS_MS } from './hubConnectorMachine';
import { hubOutboxMachine, type HubInvocation, type HubMethod } from './hubOutboxMachine';
import type {
  HubChannelState,
  HubConnectionContext,
  HubConnectionEvent,
} from './hubConnectionMachine.types';

export { INITIAL_RETRY_MS, RECONNECT_DELAYS_MS, REJOIN_RETRY_MS };
export type { HubInvocation, HubMethod };
export type * from './hubConnectionMachine.types';

const notProvided = (name: string): Error =>
  new Error(`hubConnectionMachine: '${name}' is provided by the app (src/app)`);

const joinId = (channelId: string) => `join:${channelId}`;

// Parameters of the actions below.
const recordError = {
  type: 'recordError',
  params: ({ event }: { event: { error: unknown } }) => ({ error: event.error }),
} as const;
const everyChannel = ({ context }: { context: HubConnectionContext }) => ({
  channelIds: Object.keys(context.channels),
});
const requestedChannel = ({ event }: { event: { channelId: string } }) => ({
  channelIds: [event.channelId],
});

/**
 * The real-time hub connection (spec §4 "Real-time connection states", §7 "Real-time hub"). One
 * per app (systemId `hubConnection`), started and stopped with the session.
 *
 * Connecting and reconnecting each invoke a `hubConnector`, which owns the retry schedules.
 * Channels are joined by one child per channel on every new connection, because the server's
 * groups are per connection. Invocations go through the `hubOutbox` child, which sends them in
 * order while connected and keeps them for the next connection while not.
 */
export const hubConnectionMachine = setup({
  types: {
    context: {} as HubConnectionContext,
    events: {} as HubConnectionEvent,
    children: {} as { outbox: 'outbox'; connector: 'connector' },
    // 'connected': the connection is up; invocations go out at once.
    tags: {} as 'connected',
  },
  actors: {
    /** Opens a connection on a retry schedule; provide its openConnection. */
    connector: hubConnectorMachine,
    /** Sends invocations in order; provide its invoke. */
    outbox: hubOutboxMachine,
    /** Sends `hub.connectionLost` when the connection closes. */
    watchConnection: fromCallback<EventObject, { connectionId: string }>(() => {
      throw notProvided('watchConnection');
    }),
    /** Stops the connection. */
    closeConnection: fromPromise<void, { connectionId: string }>(() => {
      throw notProvided('closeConnection');
    }),
    /** One channel's join; provide it with its own `joinChannel`. */
    hubChannel: hubChannelMachine,
  },
  actions: {
    resetAttempts: assign({ attempt: 0 }),
    // Either settles an attempt, so the session's first attempt has settled (see `initialized`).
    acceptConnection: assign(({ event }) => {
      assertEvent(event, 'hub.opened');
      return { connectionId: event.connectionId, initialized: true };
    }),
    /** The connector counts the attempts of its schedule, and says why the last one failed. */
    recordFailedAttempt: assign(({ event }) => {
      assertEvent(event, 'hub.attemptFailed');
      return { attempt: event.attempts, lastError: event.error, initialized: true };
    }),
    forgetConnection: assign({ connectionId: null }),
    /** A lost connection may say nothing about why: the previous error is kept then. */
    recordError: assign({
      lastError: ({ context }, { error }: { error: unknown }) =>
        error === undefined || error === null ? context.lastError : errorMessage(error),
    }),
    addChannel: assign({
      channels: ({ context, event }) => {
        assertEvent(event, 'hub.listenRequested');
        return { ...context.channels, [event.channelId]: { joined: false, listeners: 1 } };
      },
    }),
    countListener: assign({
      channels: ({ context, event }) => {
        assertEvent(event, 'hub.listenRequested');
        const channel = context.channels[event.channelId] as HubChannelState;
        return {
          ...context.channels,
          [event.channelId]: { ...channel, listeners: channel.listeners + 1 },
        };
      },
    }),
    uncountListener: assign({
      channels: ({ context, event }) => {
        assertEvent(event, 'hub.leaveRequested');
        const channel = context.channels[event.channelId] as HubChannelState;
        return {
          ...context.channels,
          [event.channelId]: { ...channel, listeners: channel.listeners - 1 },
        };
      },
    }),
    removeChannel: assign({
      channels: ({ context, event }) => {
        assertEvent(event, 'hub.leaveRequested');
        const { [event.channelId]: _left, ...rest } = context.channels;
        return rest;
      },
    }),
    markJoined: assign({
      channels: ({ context, event }) => {
        assertEvent(event, 'hub.channelJoined');
        const channel = context.channels[event.channelId] as HubChannelState;
        return { ...context.channels, [event.channelId]: { ...channel, joined: true } };
      },
    }),
    /** The server dropped this connection's groups with it. */
    markChannelsLeft: assign({
      channels: ({ context }) =>
        Object.fromEntries(
          Object.entries(context.channels).map(([id, channel]) => [
            id,
            { ...channel, joined: false },
          ]),
        ),
    }),
    joinChannels: enqueueActions(
      ({ context, enqueue, self }, { channelIds }: { channelIds: string[] }) => {
        const connectionId = context.connectionId as string;
        for (const channelId of channelIds) {
          enqueue.spawnChild('hubChannel', {
            id: joinId(channelId),
            input: { channelId, connectionId, parentRef: self },
          });
        }
      },
    ),
    stopJoins: enqueueActions(({ enqueue }, { channelIds }: { channelIds: string[] }) => {
      for (const channelId of channelIds) enqueue.stopChild(joinId(channelId));
    }),
    enqueueInvocation: sendTo('outbox', ({ event }) => {
      assertEvent(event, 'hub.invokeRequested');
      return { type: 'outbox.enqueued', invocation: { method: event.method, args: event.args } };
    }),
    enqueueLeave: sendTo('outbox', ({ event }) => {
      assertEvent(event, 'hub.leaveRequested');
      return { type: 'outbox.enqueued', invocation: { method: 'Leave', args: [event.channelId] } };
    }),
    cancelPendingLeave: sendTo('outbox', ({ event }) => {
      assertEvent(event, 'hub.listenRequested');
      return { type: 'outbox.leaveCancelled', channelId: event.channelId };
    }),
    connectOutbox: sendTo('outbox', ({ context }) => ({
      type: 'outbox.connected',
      connectionId: context.connectionId as string,
    })),
    disconnectOutbox: sendTo('outbox', { type: 'outbox.disconnected' }),
    /** A new session must not send what the previous one asked for. */
    discardOutbox: sendTo('outbox', { type: 'outbox.discarded' }),
  },
  guards: {
    isNewChannel: ({ context, event }) => {
      assertEvent(event, 'hub.listenRequested');
      return !(event.channelId in context.channels);
    },
    isListenedChannel: ({ context, event }) => {
      assertEvent(event, ['hub.leaveRequested', 'hub.channelJoined']);
      return event.channelId in context.channels;
    },
    /** The channel's last listener is leaving it. */
    isLastListener: ({ context, event }) => {
      assertEvent(event, 'hub.leaveRequested');
      return context.channels[event.channelId]?.listeners === 1;
    },
  },
}).createMachine({
  id: 'hubConnection',
  description:
    'The real-time hub connection: connects when the session starts and reconnects when lost (hubConnector), joins every listened channel on each connection (hubChannel), and sends invocations in order, buffering them while not connected (hubOutbox).',
  context: { initialized: false, attempt: 0, connectionId: null, channels: {}, lastError: null },
  invoke: { id: 'outbox', src: 'outbox', input: ({ self }) => ({ parentRef: self }) },
  // Wherever the connection is, the channel list and the outbox are kept for the next one.
  on: {
    'hub.listenRequested': [
      { guard: 'isNewChannel', actions: 'addChannel' },
      { actions: 'countListener' },
    ],
    'hub.leaveRequested': [
      { guard: 'isLastListener', actions: 'removeChannel' },
      { guard: 'isListenedChannel', actions: 'uncountListener' },
    ],
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
      invoke: {
        id: 'connector',
        src: 'connector',
        input: ({ self }) => ({ schedule: 'first' as const, parentRef: self }),
      },
      on: {
        'hub.opened': { target: 'connected', actions: 'acceptConnection' },
        'hub.attemptFailed': { actions: 'recordFailedAttempt' },
        // Leaving abandons the attempt in flight; there is no connection to close yet.
        'hub.stopRequested': { target: 'disconnected', actions: 'discardOutbox' },
      },
    },
    connected: {
      tags: ['connected'],
      // The joins go out before what waits in the outbox.
      entry: ['resetAttempts', { type: 'joinChannels', params: everyChannel }, 'connectOutbox'],
      exit: [{ type: 'stopJoins', params: everyChannel }, 'markChannelsLeft', 'disconnectOutbox'],
      invoke: {
        id: 'watchConnection',
        src: 'watchConnection',
        input: ({ context }) => ({ connectionId: context.connectionId as string }),
      },
      on: {
        'hub.listenRequested': [
          {
            guard: 'isNewChannel',
            actions: [
              'addChannel',
              'cancelPendingLeave',
              { type: 'joinChannels', params: requestedChannel },
            ],
          },
          { actions: 'countListener' },
        ],
        'hub.leaveRequested': [
          {
            guard: 'isLastListener',
            actions: [
              { type: 'stopJoins', params: requestedChannel },
              'removeChannel',
              'enqueueLeave',
            ],
          },
          { guard: 'isListenedChannel', actions: 'uncountListener' },
        ],
        'hub.channelJoined': { guard: 'isListenedChannel', actions: 'markJoined' },
        // The join retries by itself; the error is kept for diagnosis.
        'hub.channelJoinFailed': { actions: recordError },
        // Hub errors are logged (spec §8); the outbox has dropped the invocation.
        'hub.invocationFailed': { actions: recordError },
        'hub.connectionLost': {
          target: 'reconnecting',
          actions: [recordError, 'forgetConnection'],
        },
        'hub.stopRequested': { target: 'disconnecting', actions: 'discardOutbox' },
      },
    },
    disconnecting: {
      // Start and stop are both ignored until the connection has closed (spec §4).
      invoke: {
        id: 'closeConnection',
        src: 'closeConnection',
        input: ({ context }) => ({ connectionId: context.connectionId as string }),
        onDone: 'disconnected',
        onError: { target: 'disconnected', actions: recordError },
      },
    },
    reconnecting: {
      invoke: {
        id: 'connector',
        src: 'connector',
        input: ({ self }) => ({ schedule: 'reconnect' as const, parentRef: self }),
      },
      on: {
        'hub.opened': { target: 'connected', actions: 'acceptConnection' },
        'hub.attemptFailed': { actions: 'recordFailedAttempt' },
        // Given up: the banner stays until the next session starts the hub again.
        'hub.gaveUp': { target: 'disconnected', actions: recordError },
        'hub.stopRequested': { target: 'disconnected', actions: 'discardOutbox' },
      },
    },
  },
});

export type HubConnectionActorRef = ActorRefFrom<typeof hubConnectionMachine>;
export type HubConnectionSnapshot = SnapshotFrom<typeof hubConnectionMachine>;
export type HubConnectionState =
  'disconnected' | 'connecting' | 'connected' | 'disconnecting' | 'reconnecting';
