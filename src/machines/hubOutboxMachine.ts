import {
  assign,
  fromPromise,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';

/** The hub methods the SPA invokes (wire reference §3). */
export type HubMethod = 'Listen' | 'Leave' | 'Greet' | 'Edited' | 'CursorChanged';
export interface HubInvocation {
  method: HubMethod;
  args: unknown[];
}

export type HubOutboxEvent =
  /** An invocation to send once connected, after those already waiting. */
  | { type: 'outbox.enqueued'; invocation: HubInvocation }
  /** The channel is listened to again: a Leave of it that has not gone out would undo that. */
  | { type: 'outbox.leaveCancelled'; channelId: string }
  /** A connection is up: send on it. */
  | { type: 'outbox.connected'; connectionId: string }
  /** The connection is gone, and with it the invocation in flight and the server's groups. */
  | { type: 'outbox.disconnected' }
  /** The session ended: a new one must not send what this one asked for. */
  | { type: 'outbox.discarded' };

/** What the outbox tells the hub connection: a refused invocation, for the event log. */
export type HubOutboxReport = { type: 'hub.invocationFailed'; error: string };

export interface HubOutboxInput {
  /** The hub connection actor, told of each failed invocation. */
  parentRef: ActorRef<Snapshot<unknown>, HubOutboxReport>;
}

export interface HubOutboxContext extends HubOutboxInput {
  /** Invocations waiting to be sent, oldest first; while sending, the first one is in flight. */
  outbox: HubInvocation[];
  /** The app adapter's opaque id for the connection to send on; null while offline. */
  connectionId: string | null;
}

const isLeaveOf = (channelId: string) => (invocation: HubInvocation) =>
  invocation.method === 'Leave' && invocation.args[0] === channelId;

/**
 * The hub connection's invocations (spec §7): they go out one at a time, in the order requested,
 * each at most once; those requested while not connected wait for the next connection. The hub
 * connection invokes it for its whole life and tells it when a connection comes and goes.
 */
export const hubOutboxMachine = setup({
  types: {
    input: {} as HubOutboxInput,
    context: {} as HubOutboxContext,
    events: {} as HubOutboxEvent,
  },
  actors: {
    /** Invokes a hub method and waits for the server's completion. */
    invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(() => {
      throw new Error("hubOutboxMachine: 'invoke' is provided by the app (src/app)");
    }),
  },
  actions: {
    enqueue: assign({
      outbox: ({ context }, { invocation }: { invocation: HubInvocation }) => [
        ...context.outbox,
        invocation,
      ],
    }),
    /** The first invocation may be in flight: only those after it are still unsent. */
    cancelPendingLeave: assign({
      outbox: ({ context }, { channelId }: { channelId: string }) => {
        const [first, ...pending] = context.outbox;
        return first === undefined || !pending.some(isLeaveOf(channelId))
          ? context.outbox
          : [first, ...pending.filter((invocation) => !isLeaveOf(channelId)(invocation))];
      },
    }),
    /** The invocation in flight is done, failed or lost with its connection: sent at most once. */
    dequeue: assign({ outbox: ({ context }) => context.outbox.slice(1) }),
    /**
     * A Leave left unsent when the connection drops is moot (the server dropped the groups), and
     * would fail on the next connection, which never joined.
     */
    dropLeaves: assign({
      outbox: ({ context }) => context.outbox.filter((invocation) => invocation.method !== 'Leave'),
      connectionId: null,
    }),
    discard: assign({ outbox: [] }),
  },
  guards: {
    hasOutbox: ({ context }) => context.outbox.length > 0,
  },
}).createMachine({
  id: 'hubOutbox',
  description:
    "The hub connection's invocations: sent one at a time in the order requested while connected, buffered while not; the one in flight when the connection drops is not resent, and unsent Leaves are dropped with the connection.",
  context: ({ input }) => ({ ...input, outbox: [], connectionId: null }),
  on: {
    'outbox.enqueued': {
      actions: { type: 'enqueue', params: ({ event }) => ({ invocation: event.invocation }) },
    },
    'outbox.leaveCancelled': {
      actions: {
        type: 'cancelPendingLeave',
        params: ({ event }) => ({ channelId: event.channelId }),
      },
    },
    'outbox.discarded': { actions: 'discard' },
  },
  initial: 'offline',
  states: {
    offline: {
      on: {
        'outbox.connected': {
          target: 'online',
          actions: assign({ connectionId: ({ event }) => event.connectionId }),
        },
      },
    },
    online: {
      on: { 'outbox.disconnected': { target: 'offline', actions: 'dropLeaves' } },
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
            onError: {
              target: 'idle',
              actions: sendTo(
                ({ context }) => context.parentRef,
                ({ event }) => ({
                  type: 'hub.invocationFailed' as const,
                  error: errorMessage(event.error),
                }),
              ),
            },
          },
        },
      },
    },
  },
});

export type HubOutboxActorRef = ActorRefFrom<typeof hubOutboxMachine>;
export type HubOutboxSnapshot = SnapshotFrom<typeof hubOutboxMachine>;
