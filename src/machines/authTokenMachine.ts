import {
  assertEvent,
  assign,
  enqueueActions,
  fromCallback,
  fromPromise,
  not,
  raise,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';

/** Token state changes are debounced (spec §9). */
export const TOKEN_DEBOUNCE_MS = 250;
/**
 * The user registers again every 18 minutes while signed in. Spec §4 says 18 minutes; its table
 * in §9 says "(1,800,000 ms)", which is 30 minutes: we follow the text.
 */
export const REGISTRATION_REFRESH_MS = 18 * 60_000;
/** A silent renew that timed out is tried again after 5 s (spec §9, identity client). */
export const SILENT_RENEW_RETRY_MS = 5_000;

export type TokenState = 'unknown' | 'valid' | 'invalid' | 'expiring' | 'expired';

/** The signed-in user as the identity client loaded it. */
export interface AuthUser {
  accessToken: string;
  tokenType: string;
  /** Expiry of the access token in epoch milliseconds, when the provider gave one. */
  expiresAt: number | null;
  profile: { sub: string; name?: string; [claim: string]: unknown };
}

/** The user as the server registered it (POST /api/user/register). */
export interface Profile {
  id: string;
  name: string;
  role: string;
  isAdmin: boolean;
  isObserver: boolean;
  isCreator: boolean;
  isBuilder: boolean;
}

export type AuthTokenEvent =
  /** The identity client loaded a user: initially, after a sign-in or after a silent renew. */
  | { type: 'user.loaded'; user: AuthUser }
  /** The identity client has no user: initially, or after the user was removed. */
  | { type: 'user.unloaded' }
  /** The access token expires soon (the identity client's accessTokenExpiring). */
  | { type: 'token.expiring' }
  /** The access token has expired (the identity client's accessTokenExpired). */
  | { type: 'token.expired' }
  /** An automatic silent renew failed; `timedOut` when its iframe did not answer in time. */
  | { type: 'silentRenew.failed'; message: string; timedOut: boolean }
  /** The user clicked Logout. */
  | { type: 'logout.requested' };

/**
 * What a burst of the events above adds up to. The machine raises it to itself when the debounce
 * window closes, and only these events move the token region.
 */
type TokenChange =
  | { type: 'token.becameValid'; user: AuthUser }
  | { type: 'token.becameExpiring'; user: AuthUser }
  | { type: 'token.becameInvalid' }
  | { type: 'token.becameExpired' };

export interface AuthTokenContext {
  /** The signed-in user: set while valid or expiring, null otherwise. */
  user: AuthUser | null;
  /** The user as the server registered them; kept when a refresh fails. */
  profile: Profile | null;
  /** Why the last registration failed; null once one succeeds. */
  registrationError: string | null;
  /** The change the events of the open debounce window add up to; null while settled. */
  pendingChange: TokenChange | null;
}

const notProvided = (name: string): Error =>
  new Error(`authTokenMachine: '${name}' is provided by the app (src/app)`);

/** The user the token would have once the pending change is applied. */
function upcomingUser(context: AuthTokenContext): AuthUser | null {
  const change = context.pendingChange;
  if (change === null) return context.user;
  return 'user' in change ? change.user : null;
}

/**
 * A silent-renew failure expires the token unless it timed out. Compared with `false` so that
 * only a failure known not to be a timeout counts as fatal.
 */
const isFatalRenewFailure = (event: AuthTokenEvent | TokenChange): boolean =>
  event.type === 'silentRenew.failed' && event.timedOut === false;

/**
 * The token change an event asks for given what is already pending (spec §4: a loaded user makes
 * it valid, a missing or unloaded user invalid, the expiring event expiring, the expired event and
 * fatal renew failures expired); null when the event changes nothing.
 */
function changeFor(context: AuthTokenContext, event: AuthTokenEvent): TokenChange | null {
  switch (event.type) {
    case 'user.loaded':
      return { type: 'token.becameValid', user: event.user };
    case 'user.unloaded':
      return { type: 'token.becameInvalid' };
    case 'token.expiring': {
      // Only a loaded token can be about to expire.
      const user = upcomingUser(context);
      return user === null ? null : { type: 'token.becameExpiring', user };
    }
    case 'token.expired':
      return { type: 'token.becameExpired' };
    case 'silentRenew.failed':
      return isFatalRenewFailure(event) ? { type: 'token.becameExpired' } : null;
    case 'logout.requested':
      return null;
  }
}

/** The debounce window's transitions: an event that changes the token opens the window... */
const openWindow = { target: 'debouncing', actions: 'proposeChange' } as const;
/** ...and each further one restarts its timer by re-entering it. */
const restartWindow = { ...openWindow, reenter: true } as const;

/**
 * The signed-in user and the lifecycle of their access token (spec §4 "Auth token state").
 *
 * Two regions: `token` is the settled token state the app reacts to; `change` debounces the
 * identity client's events, so that a burst (unloaded then loaded during a renew) is applied as
 * the one change it adds up to, without passing through the states in between.
 */
export const authTokenMachine = setup({
  types: {
    context: {} as AuthTokenContext,
    events: {} as AuthTokenEvent | TokenChange,
    // 'authenticated': the token is valid or expiring; guarded routes are open.
    tags: {} as 'authenticated',
  },
  actors: {
    /** Subscribes to the identity client's events and sends them, starting with the initial load. */
    userEvents: fromCallback<EventObject>(() => {
      throw notProvided('userEvents');
    }),
    /** POST /api/user/register with the user's token. */
    registerUser: fromPromise<Profile, { user: AuthUser }>(() => {
      throw notProvided('registerUser');
    }),
    /** Server logout, removal of the stored user and sign-out at the identity provider. */
    logout: fromPromise<void, void>(() => {
      throw notProvided('logout');
    }),
    /** The identity client's signinSilent. */
    renewSilently: fromPromise<void, void>(() => {
      throw notProvided('renewSilently');
    }),
  },
  actions: {
    /** Stores the current URL so that the next sign-in returns to it. */
    rememberUrl: () => {
      throw notProvided('rememberUrl');
    },
    /** Navigates to /. */
    navigateHome: () => {
      throw notProvided('navigateHome');
    },
    /** Removes the stored user from the identity client. */
    clearUser: () => {
      throw notProvided('clearUser');
    },
    proposeChange: assign({
      pendingChange: ({ context, event }) => {
        assertEvent(event, [
          'user.loaded',
          'user.unloaded',
          'token.expiring',
          'token.expired',
          'silentRenew.failed',
        ]);
        return changeFor(context, event) ?? context.pendingChange;
      },
    }),
    applyChange: enqueueActions(({ context, enqueue }) => {
      if (context.pendingChange !== null) enqueue.raise(context.pendingChange);
      enqueue.assign({ pendingChange: null });
    }),
    acceptUser: assign({
      user: ({ event }) => {
        assertEvent(event, ['token.becameValid', 'token.becameExpiring']);
        return event.user;
      },
    }),
    forgetUser: assign({ user: null, profile: null, registrationError: null }),
  },
  guards: {
    hasUserToExpire: ({ context }) => upcomingUser(context) !== null,
    isFatalRenewFailure: ({ event }) => isFatalRenewFailure(event),
  },
  delays: {
    tokenDebounce: TOKEN_DEBOUNCE_MS,
    registrationRefresh: REGISTRATION_REFRESH_MS,
    silentRenewRetry: SILENT_RENEW_RETRY_MS,
  },
}).createMachine({
  id: 'authToken',
  description:
    'The signed-in user and their access token: unknown, valid, expiring, invalid or expired; registers the user while signed in, retries timed-out silent renews, and debounces token changes.',
  type: 'parallel',
  context: { user: null, profile: null, registrationError: null, pendingChange: null },
  invoke: { id: 'userEvents', src: 'userEvents' },
  states: {
    token: {
      initial: 'unknown',
      states: {
        /** Until the identity client's first events settle. */
        unknown: {
          on: {
            'token.becameValid': { target: 'authenticated', actions: 'acceptUser' },
            'token.becameExpiring': {
              target: 'authenticated.expiry.expiring',
              actions: 'acceptUser',
            },
            'token.becameInvalid': 'invalid',
            'token.becameExpired': 'expired',
          },
        },
        authenticated: {
          type: 'parallel',
          tags: ['authenticated'],
          on: {
            'token.becameInvalid': 'invalid',
            'token.becameExpired': 'expired',
            // A user intent, not a token fact: applied at once, without the debounce.
            'logout.requested': 'signingOut',
          },
          states: {
            expiry: {
              initial: 'valid',
              states: {
                valid: {
                  on: {
                    // A silent renew loaded a fresh token: same state, new user.
                    'token.becameValid': { actions: 'acceptUser' },
                    'token.becameExpiring': { target: 'expiring', actions: 'acceptUser' },
                  },
                },
                expiring: {
                  on: {
                    'token.becameValid': { target: 'valid', actions: 'acceptUser' },
                    'token.becameExpiring': { actions: 'acceptUser' },
                  },
                },
              },
            },
            // Registered on sign-in and again every REGISTRATION_REFRESH_MS; a renewed token
            // (expiring -> valid) does not restart the cycle.
            registration: {
              initial: 'registering',
              states: {
                registering: {
                  invoke: {
                    id: 'registerUser',
                    src: 'registerUser',
                    // Authenticated states are only entered through acceptUser.
                    input: ({ context }) => ({ user: context.user as AuthUser }),
                    onDone: {
                      target: 'registered',
                      actions: assign({
                        profile: ({ event }) => event.output,
                        registrationError: null,
                      }),
                    },
                    // Keep the previous profile; the next refresh tries again.
                    onError: {
                      target: 'registered',
                      actions: assign({
                        registrationError: ({ event }) => errorMessage(event.error),
                      }),
                    },
                  },
                },
                registered: {
                  after: { registrationRefresh: 'registering' },
                },
              },
            },
            silentRenew: {
              initial: 'idle',
              states: {
                idle: {
                  on: {
                    // Fatal failures expire the token through the `change` region.
                    'silentRenew.failed': {
                      guard: not('isFatalRenewFailure'),
                      target: 'retryScheduled',
                    },
                  },
                },
                retryScheduled: {
                  after: { silentRenewRetry: 'renewing' },
                },
                renewing: {
                  invoke: {
                    id: 'renewSilently',
                    src: 'renewSilently',
                    // Success arrives as user.loaded from the identity client.
                    onDone: 'idle',
                    // A failed retry expires the token like any other fatal renew failure.
                    onError: {
                      target: 'idle',
                      actions: raise(({ event }) => ({
                        type: 'silentRenew.failed' as const,
                        message: errorMessage(event.error),
                        timedOut: false,
                      })),
                    },
                  },
                },
              },
            },
          },
        },
        /** The user asked to log out; the token no longer counts (token state 'invalid'). */
        signingOut: {
          entry: 'forgetUser',
          invoke: { id: 'logout', src: 'logout', onDone: 'invalid', onError: 'invalid' },
        },
        invalid: {
          entry: ['forgetUser', 'clearUser'],
          on: {
            'token.becameValid': { target: 'authenticated', actions: 'acceptUser' },
            'token.becameExpiring': {
              target: 'authenticated.expiry.expiring',
              actions: 'acceptUser',
            },
            'token.becameExpired': 'expired',
          },
        },
        expired: {
          entry: ['forgetUser', 'rememberUrl', 'navigateHome'],
          invoke: { id: 'logout', src: 'logout' },
          on: {
            'token.becameValid': { target: 'authenticated', actions: 'acceptUser' },
            'token.becameExpiring': {
              target: 'authenticated.expiry.expiring',
              actions: 'acceptUser',
            },
            // The logout removed the stored user.
            'token.becameInvalid': 'invalid',
          },
        },
      },
    },
    // Debounce: each event that changes the token opens the window or restarts it
    // (`reenter: true` restarts the timer); when it closes the pending change is applied.
    change: {
      initial: 'settled',
      states: {
        settled: {
          on: {
            'user.loaded': openWindow,
            'user.unloaded': openWindow,
            'token.expiring': { ...openWindow, guard: 'hasUserToExpire' },
            'token.expired': openWindow,
            'silentRenew.failed': { ...openWindow, guard: 'isFatalRenewFailure' },
          },
        },
        debouncing: {
          on: {
            'user.loaded': restartWindow,
            'user.unloaded': restartWindow,
            'token.expiring': { ...restartWindow, guard: 'hasUserToExpire' },
            'token.expired': restartWindow,
            'silentRenew.failed': { ...restartWindow, guard: 'isFatalRenewFailure' },
          },
          after: {
            tokenDebounce: { target: 'settled', actions: 'applyChange' },
          },
        },
      },
    },
  },
});

export type AuthTokenActorRef = ActorRefFrom<typeof authTokenMachine>;
export type AuthTokenSnapshot = SnapshotFrom<typeof authTokenMachine>;
