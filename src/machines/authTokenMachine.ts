import {
  assertEvent,
  assign,
  fromCallback,
  fromPromise,
  not,
  sendTo,
  setup,
  type ActorRefFrom,
  type EventObject,
  type SnapshotFrom,
} from 'xstate';
import type { AuthUser, Profile } from './authUser';
import { silentRenewMachine } from './silentRenewMachine';
import {
  isFatalRenewFailure,
  tokenChangeMachine,
  type IdentityEvent,
  type TokenChange,
} from './tokenChangeMachine';
import { userRegistrationMachine, type UserRegistrationReport } from './userRegistrationMachine';

export type { AuthUser, Profile };
export { TOKEN_DEBOUNCE_MS } from './tokenChangeMachine';

export type TokenState = 'unknown' | 'valid' | 'invalid' | 'expiring' | 'expired';

export type AuthTokenEvent =
  | IdentityEvent
  /** The user clicked Logout. */
  | { type: 'logout.requested' };

export interface AuthTokenContext {
  /** The signed-in user: set while valid or expiring, null otherwise. */
  user: AuthUser | null;
  /** The user as the server registered them; kept when a refresh fails. */
  profile: Profile | null;
  /** Why the last registration failed; null once one succeeds. */
  registrationError: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`authTokenMachine: '${name}' is provided by the app (src/app)`);

/** The identity client's reports go through the debounce (the `tokenChange` child). */
const toDebounce = { actions: 'reportToDebounce' } as const;

/** A new token for the signed-in user: kept, and presented by the next registration. */
const renewUser = ['acceptUser', 'passUserToRegistration'] as const;

/**
 * The signed-in user and the lifecycle of their access token (spec §4 "Auth token state").
 *
 * The states are the settled token states the app reacts to. The identity client's reports reach
 * them only through the `tokenChange` child, which debounces them, so that a burst (unloaded then
 * loaded during a renew) is applied as the one change it adds up to. While signed in, two more
 * children run: the registration with the server, and the retry of a timed-out silent renew.
 */
export const authTokenMachine = setup({
  types: {
    context: {} as AuthTokenContext,
    events: {} as AuthTokenEvent | TokenChange | UserRegistrationReport,
    children: {} as {
      tokenChange: 'tokenChange';
      registration: 'registration';
      silentRenew: 'silentRenew';
    },
    // 'authenticated': the token is valid or expiring; guarded routes are open.
    tags: {} as 'authenticated',
  },
  actors: {
    /** Subscribes to the identity client's events and sends them, starting with the initial load. */
    userEvents: fromCallback<EventObject>(() => {
      throw notProvided('userEvents');
    }),
    /** Server logout, removal of the stored user and sign-out at the identity provider. */
    logout: fromPromise<void, void>(() => {
      throw notProvided('logout');
    }),
    /** Debounces the identity client's reports into token changes. */
    tokenChange: tokenChangeMachine,
    /** Registers the user now and every 18 minutes; provide its registerUser. */
    registration: userRegistrationMachine,
    /** Retries a timed-out silent renew; provide its renewSilently. */
    silentRenew: silentRenewMachine,
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
    /** With the user as it is now: an expiring token needs one. */
    reportToDebounce: sendTo('tokenChange', ({ context, event }) => {
      assertEvent(event, [
        'user.loaded',
        'user.unloaded',
        'token.expiring',
        'token.expired',
        'silentRenew.failed',
      ]);
      return { type: 'identity.reported' as const, report: event, settledUser: context.user };
    }),
    acceptUser: assign({
      user: ({ event }) => {
        assertEvent(event, ['token.becameValid', 'token.becameExpiring']);
        return event.user;
      },
    }),
    passUserToRegistration: sendTo('registration', ({ event }) => {
      assertEvent(event, ['token.becameValid', 'token.becameExpiring']);
      return { type: 'user.renewed' as const, user: event.user };
    }),
    retrySilentRenew: sendTo('silentRenew', { type: 'silentRenew.timedOut' }),
    forgetUser: assign({ user: null, profile: null, registrationError: null }),
  },
  guards: {
    isFatalRenewFailure: ({ event }) => isFatalRenewFailure(event),
  },
}).createMachine({
  id: 'authToken',
  description:
    'The signed-in user and their access token: unknown, valid, expiring, invalid or expired, moved by the debounced changes of its tokenChange child; registers the user and retries timed-out silent renews while signed in.',
  context: { user: null, profile: null, registrationError: null },
  // The debounce first: the identity client may report as soon as it is subscribed.
  invoke: [
    { id: 'tokenChange', src: 'tokenChange', input: ({ self }) => ({ parentRef: self }) },
    { id: 'userEvents', src: 'userEvents' },
  ],
  on: {
    'user.loaded': toDebounce,
    'user.unloaded': toDebounce,
    'token.expiring': toDebounce,
    'token.expired': toDebounce,
    'silentRenew.failed': toDebounce,
  },
  initial: 'unknown',
  states: {
    /** Until the identity client's first events settle. */
    unknown: {
      on: {
        'token.becameValid': { target: 'authenticated', actions: 'acceptUser' },
        'token.becameExpiring': { target: 'authenticated.expiring', actions: 'acceptUser' },
        'token.becameInvalid': 'invalid',
        'token.becameExpired': 'expired',
      },
    },
    authenticated: {
      tags: ['authenticated'],
      invoke: [
        {
          id: 'registration',
          src: 'registration',
          // Entered only through acceptUser: the user is set.
          input: ({ context, self }) => ({ user: context.user as AuthUser, parentRef: self }),
        },
        { id: 'silentRenew', src: 'silentRenew', input: ({ self }) => ({ parentRef: self }) },
      ],
      on: {
        'token.becameInvalid': 'invalid',
        'token.becameExpired': 'expired',
        // A user intent, not a token fact: applied at once, without the debounce.
        'logout.requested': 'signingOut',
        'registration.succeeded': {
          actions: assign({ profile: ({ event }) => event.profile, registrationError: null }),
        },
        // Keep the previous profile; the next refresh tries again.
        'registration.failed': {
          actions: assign({ registrationError: ({ event }) => event.error }),
        },
        // A timeout is retried; other failures go on to the debounce, which expires the token.
        'silentRenew.failed': { guard: not('isFatalRenewFailure'), actions: 'retrySilentRenew' },
      },
      initial: 'valid',
      states: {
        valid: {
          on: {
            // A silent renew loaded a fresh token: same state, new user.
            'token.becameValid': { actions: renewUser },
            'token.becameExpiring': { target: 'expiring', actions: renewUser },
          },
        },
        expiring: {
          on: {
            'token.becameValid': { target: 'valid', actions: renewUser },
            'token.becameExpiring': { actions: renewUser },
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
        'token.becameExpiring': { target: 'authenticated.expiring', actions: 'acceptUser' },
        'token.becameExpired': 'expired',
      },
    },
    expired: {
      entry: ['forgetUser', 'rememberUrl', 'navigateHome'],
      invoke: { id: 'logout', src: 'logout' },
      on: {
        'token.becameValid': { target: 'authenticated', actions: 'acceptUser' },
        'token.becameExpiring': { target: 'authenticated.expiring', actions: 'acceptUser' },
        // The logout removed the stored user.
        'token.becameInvalid': 'invalid',
      },
    },
  },
});

export type AuthTokenActorRef = ActorRefFrom<typeof authTokenMachine>;
export type AuthTokenSnapshot = SnapshotFrom<typeof authTokenMachine>;
