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

/** What the connector tells the hub connection that invoked it. */
export type HubConnectorReport =
  /** An attempt succeeded: the app adapter's opaque id for the open connection. */
  | { type: 'hub.opened'; connectionId: string }
  /** An attempt failed and another is scheduled; `attempts` failed so far. */
  | { type: 'hub.attemptFailed'; error: string; attempts: number }
  /** The last attempt of the reconnect schedule failed: no more are made. */
  | { type: 'hub.gaveUp'; error: string };

export interface HubConnectorInput {
  /**
   * 'first': the session's first connection, tried at once and then every INITIAL_RETRY_MS for
   * as long as it takes; 'reconnect': after a lost connection, on RECONNECT_DELAYS_MS.
   */
  schedule: 'first' | 'reconnect';
  /** The hub connection actor, told how each attempt went. */
  parentRef: ActorRef<Snapshot<unknown>, HubConnectorReport>;
}

export interface HubConnectorContext extends HubConnectorInput {
  /** Failed attempts so far; indexes RECONNECT_DELAYS_MS. */
  attempts: number;
}

const toParent = ({ context }: { context: HubConnectorContext }) => context.parentRef;

/**
 * Opening a hub connection on a retry schedule (spec §4, §7). Each attempt is a fresh connection
 * from the app's adapter, so each fetches a fresh one-time ticket. The hub connection invokes one
 * while connecting or reconnecting, so stopping the session abandons the attempt in flight.
 */
export const hubConnectorMachine = setup({
  types: {
    input: {} as HubConnectorInput,
    context: {} as HubConnectorContext,
  },
  actors: {
    /**
     * Builds a new connection with a fresh ticket, registers the server event handlers and starts
     * it; resolves with the connection's id. Aborted (through its signal) when left.
     */
    openConnection: fromPromise<string, void>(() => {
      throw new Error("hubConnectorMachine: 'openConnection' is provided by the app (src/app)");
    }),
  },
  actions: {
    countAttempt: assign({ attempts: ({ context }) => context.attempts + 1 }),
  },
  guards: {
    isReconnect: ({ context }) => context.schedule === 'reconnect',
    /** A first connection is tried for as long as it takes; a reconnect RECONNECT_DELAYS_MS times. */
    hasAttemptsLeft: ({ context }) =>
      context.schedule === 'first' || context.attempts + 1 < RECONNECT_DELAYS_MS.length,
  },
  delays: {
    retryDelay: ({ context }) =>
      context.schedule === 'first'
        ? INITIAL_RETRY_MS
        : (RECONNECT_DELAYS_MS[context.attempts] ?? (RECONNECT_DELAYS_MS.at(-1) as number)),
  },
}).createMachine({
  id: 'hubConnector',
  description:
    'Opens a hub connection: a first connection at once and then every 5 s until it succeeds; a reconnect after 1, 2, 3 then 5 s, giving up after 14 attempts. Reports each outcome to the hub connection.',
  context: ({ input }) => ({ ...input, attempts: 0 }),
  initial: 'starting',
  states: {
    /** A first connection is tried at once; a reconnect waits for its first delay. */
    starting: {
      always: [{ guard: 'isReconnect', target: 'waiting' }, { target: 'opening' }],
    },
    waiting: {
      after: { retryDelay: 'opening' },
    },
    opening: {
      invoke: {
        id: 'openConnection',
        src: 'openConnection',
        onDone: {
          target: 'opened',
          actions: sendTo(toParent, ({ event }) => ({
            type: 'hub.opened' as const,
            connectionId: event.output,
          })),
        },
        onError: [
          {
            guard: 'hasAttemptsLeft',
            target: 'waiting',
            actions: [
              'countAttempt',
              sendTo(toParent, ({ context, event }) => ({
                type: 'hub.attemptFailed' as const,
                error: errorMessage(event.error),
                attempts: context.attempts,
              })),
            ],
          },
          {
            target: 'gaveUp',
            actions: sendTo(toParent, ({ event }) => ({
              type: 'hub.gaveUp' as const,
              error: errorMessage(event.error),
            })),
          },
        ],
      },
    },
    opened: { type: 'final' },
    gaveUp: { type: 'final' },
  },
});

export type HubConnectorActorRef = ActorRefFrom<typeof hubConnectorMachine>;
export type HubConnectorSnapshot = SnapshotFrom<typeof hubConnectorMachine>;
