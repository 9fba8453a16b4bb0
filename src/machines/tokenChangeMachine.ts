import {
  assign,
  enqueueActions,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import type { AuthUser } from './authUser';

/** Token state changes are debounced (spec §9). */
export const TOKEN_DEBOUNCE_MS = 250;

/** What the identity client reports about the user and their token. */
export type IdentityEvent =
  /** The identity client loaded a user: initially, after a sign-in or after a silent renew. */
  | { type: 'user.loaded'; user: AuthUser }
  /** The identity client has no user: initially, or after the user was removed. */
  | { type: 'user.unloaded' }
  /** The access token expires soon (the identity client's accessTokenExpiring). */
  | { type: 'token.expiring' }
  /** The access token has expired (the identity client's accessTokenExpired). */
  | { type: 'token.expired' }
  /** An automatic silent renew failed; `timedOut` when its iframe did not answer in time. */
  | { type: 'silentRenew.failed'; message: string; timedOut: boolean };

/**
 * What a burst of identity events adds up to. The debounce tells the auth token when its window
 * closes, and only these events move the token's state.
 */
export type TokenChange =
  | { type: 'token.becameValid'; user: AuthUser }
  | { type: 'token.becameExpiring'; user: AuthUser }
  | { type: 'token.becameInvalid' }
  | { type: 'token.becameExpired' };

export type TokenChangeEvent = {
  type: 'identity.reported';
  report: IdentityEvent;
  /** The auth token's user when the report arrived: whether there is a token to expire. */
  settledUser: AuthUser | null;
};

export interface TokenChangeInput {
  /** The auth token actor, told each change once its window closes. */
  parentRef: ActorRef<Snapshot<unknown>, TokenChange>;
}

export interface TokenChangeContext extends TokenChangeInput {
  /** The change the reports of the open window add up to; null while settled. */
  pendingChange: TokenChange | null;
}

/**
 * A silent-renew failure expires the token unless it timed out. Compared with `false` so that
 * only a failure known not to be a timeout counts as fatal.
 */
export const isFatalRenewFailure = (event: { type: string; timedOut?: boolean }): boolean =>
  event.type === 'silentRenew.failed' && event.timedOut === false;

/**
 * The token change a report asks for given what is already pending (spec §4: a loaded user makes
 * it valid, a missing or unloaded user invalid, the expiring event expiring, the expired event and
 * fatal renew failures expired); null when the report changes nothing.
 */
function changeFor(
  pending: TokenChange | null,
  { report, settledUser }: TokenChangeEvent,
): TokenChange | null {
  switch (report.type) {
    case 'user.loaded':
      return { type: 'token.becameValid', user: report.user };
    case 'user.unloaded':
      return { type: 'token.becameInvalid' };
    case 'token.expiring': {
      // Only a loaded token can be about to expire: the one pending, else the settled one.
      const user = pending === null ? settledUser : 'user' in pending ? pending.user : null;
      return user === null ? null : { type: 'token.becameExpiring', user };
    }
    case 'token.expired':
      return { type: 'token.becameExpired' };
    case 'silentRenew.failed':
      return isFatalRenewFailure(report) ? { type: 'token.becameExpired' } : null;
  }
}

/**
 * The debounce of the identity client's reports (spec §9): each report that changes the token
 * opens the window or restarts it, and when it closes the auth token is told the one change the
 * burst adds up to, so that a burst (unloaded then loaded during a renew) does not pass through
 * the states in between. The auth token invokes it for its whole life and hands it every report.
 */
export const tokenChangeMachine = setup({
  types: {
    input: {} as TokenChangeInput,
    context: {} as TokenChangeContext,
    events: {} as TokenChangeEvent,
  },
  actions: {
    proposeChange: assign({
      pendingChange: ({ context, event }) => changeFor(context.pendingChange, event),
    }),
    applyChange: enqueueActions(({ context, enqueue }) => {
      if (context.pendingChange !== null) enqueue.sendTo(context.parentRef, context.pendingChange);
      enqueue.assign({ pendingChange: null });
    }),
  },
  guards: {
    /** Reports that change nothing (a timed-out renew, expiring without a user) are ignored. */
    isChange: ({ context, event }) => changeFor(context.pendingChange, event) !== null,
  },
  delays: {
    tokenDebounce: TOKEN_DEBOUNCE_MS,
  },
}).createMachine({
  id: 'tokenChange',
  description:
    "Debounces the identity client's reports by 250 ms: a burst is applied to the auth token as the one change it adds up to.",
  context: ({ input }) => ({ ...input, pendingChange: null }),
  initial: 'settled',
  states: {
    settled: {
      on: {
        'identity.reported': { guard: 'isChange', target: 'debouncing', actions: 'proposeChange' },
      },
    },
    debouncing: {
      on: {
        // `reenter: true` restarts the window's timer.
        'identity.reported': {
          guard: 'isChange',
          target: 'debouncing',
          reenter: true,
          actions: 'proposeChange',
        },
      },
      after: {
        tokenDebounce: { target: 'settled', actions: 'applyChange' },
      },
    },
  },
});

export type TokenChangeActorRef = ActorRefFrom<typeof tokenChangeMachine>;
export type TokenChangeSnapshot = SnapshotFrom<typeof tokenChangeMachine>;
