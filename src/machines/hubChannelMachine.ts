import {
  fromPromise,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type SnapshotFrom,
  type Snapshot,
} from 'xstate';
import { errorMessage } from '../domain/text';

/** A failed channel join is tried again after 1 s (spec §7, §9). */
export const REJOIN_RETRY_MS = 1_000;

/** What a channel join tells the hub connection that spawned it. */
export type HubChannelReport =
  | { type: 'hub.channelJoined'; channelId: string }
  | { type: 'hub.channelJoinFailed'; channelId: string; error: string };

export interface HubChannelInput {
  channelId: string;
  /** The opaque id of the connection to join on (the app's adapter holds the connection). */
  connectionId: string;
  /** The hub connection actor, told when the join succeeds or fails. */
  parentRef: ActorRef<Snapshot<unknown>, HubChannelReport>;
}

export type HubChannelContext = HubChannelInput;

const report = (context: HubChannelContext) => context.parentRef;

/**
 * Joining one channel on one connection: `Listen(channelId)` until it succeeds, 1 s between
 * attempts. The hub connection spawns one per channel when it connects and stops it when the
 * connection ends or the channel is left, so a join never outlives its connection.
 */
export const hubChannelMachine = setup({
  types: {
    input: {} as HubChannelInput,
    context: {} as HubChannelContext,
    // 'joined': the server has added this connection to the channel's group.
    tags: {} as 'joined',
  },
  actors: {
    /** Invokes Listen(channelId) on the connection. */
    joinChannel: fromPromise<void, { connectionId: string; channelId: string }>(() => {
      throw new Error("hubChannelMachine: 'joinChannel' is provided by the app (src/app)");
    }),
  },
  delays: {
    rejoinRetry: REJOIN_RETRY_MS,
  },
}).createMachine({
  id: 'hubChannel',
  description:
    'Joins one channel on one hub connection: Listen until it succeeds, retrying 1 s after each failure; reports each outcome to the hub connection.',
  context: ({ input }) => input,
  initial: 'joining',
  states: {
    joining: {
      invoke: {
        id: 'joinChannel',
        src: 'joinChannel',
        input: ({ context }) => ({
          connectionId: context.connectionId,
          channelId: context.channelId,
        }),
        onDone: {
          target: 'joined',
          actions: sendTo(
            ({ context }) => report(context),
            ({ context }) => ({
              type: 'hub.channelJoined' as const,
              channelId: context.channelId,
            }),
          ),
        },
        onError: {
          target: 'retryScheduled',
          actions: sendTo(
            ({ context }) => report(context),
            ({ context, event }) => ({
              type: 'hub.channelJoinFailed' as const,
              channelId: context.channelId,
              error: errorMessage(event.error),
            }),
          ),
        },
      },
    },
    retryScheduled: {
      after: { rejoinRetry: 'joining' },
    },
    // Not final: the join lives as long as the connection it belongs to, then is stopped.
    joined: {
      tags: ['joined'],
    },
  },
});

export type HubChannelActorRef = ActorRefFrom<typeof hubChannelMachine>;
export type HubChannelSnapshot = SnapshotFrom<typeof hubChannelMachine>;
