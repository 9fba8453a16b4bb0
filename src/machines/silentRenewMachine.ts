import {
  fromPromise,
  sendTo,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';

/** A silent renew that timed out is tried again after 5 s (spec §9, identity client). */
export const SILENT_RENEW_RETRY_MS = 5_000;

/** A retry that failed: as fatal as any renew failure that did not time out. */
export type SilentRenewReport = { type: 'silentRenew.failed'; message: string; timedOut: false };

export type SilentRenewEvent =
  /** The identity client's automatic silent renew timed out (its iframe did not answer). */
  { type: 'silentRenew.timedOut' };

export interface SilentRenewInput {
  /** The auth token actor, told when the retry failed. */
  parentRef: ActorRef<Snapshot<unknown>, SilentRenewReport>;
}

export type SilentRenewContext = SilentRenewInput;

/**
 * The retry of a timed-out silent renew (spec §9): the identity client gives up on a renew whose
 * iframe does not answer, so it is tried again once, SILENT_RENEW_RETRY_MS later. A retry that
 * succeeds arrives as the identity client's user.loaded; one that fails is reported to the auth
 * token, which expires the token. The auth token invokes it while the user is signed in.
 */
export const silentRenewMachine = setup({
  types: {
    input: {} as SilentRenewInput,
    context: {} as SilentRenewContext,
    events: {} as SilentRenewEvent,
  },
  actors: {
    /** The identity client's signinSilent. */
    renewSilently: fromPromise<void, void>(() => {
      throw new Error("silentRenewMachine: 'renewSilently' is provided by the app (src/app)");
    }),
  },
  delays: {
    silentRenewRetry: SILENT_RENEW_RETRY_MS,
  },
}).createMachine({
  id: 'silentRenew',
  description:
    'Retries a silent renew that timed out, 5 s later; a failed retry is reported to the auth token as fatal. Timeouts while a retry is scheduled or under way are ignored.',
  context: ({ input }) => input,
  initial: 'idle',
  states: {
    idle: {
      on: { 'silentRenew.timedOut': 'retryScheduled' },
    },
    retryScheduled: {
      after: { silentRenewRetry: 'renewing' },
    },
    renewing: {
      invoke: {
        id: 'renewSilently',
        src: 'renewSilently',
        onDone: 'idle',
        onError: {
          target: 'idle',
          actions: sendTo(
            ({ context }) => context.parentRef,
            ({ event }) => ({
              type: 'silentRenew.failed' as const,
              message: errorMessage(event.error),
              timedOut: false as const,
            }),
          ),
        },
      },
    },
  },
});

export type SilentRenewActorRef = ActorRefFrom<typeof silentRenewMachine>;
export type SilentRenewSnapshot = SnapshotFrom<typeof silentRenewMachine>;
