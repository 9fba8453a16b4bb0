import { describe, expect, it } from 'vitest';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import {
  authTokenMachine,
  TOKEN_DEBOUNCE_MS,
  type AuthTokenEvent,
  type AuthTokenSnapshot,
  type AuthUser,
  type Profile,
  type TokenState,
} from './authTokenMachine';
import {
  selectAccessToken,
  selectIsAdmin,
  selectIsAuthenticated,
  selectIsObserver,
  selectIsResolved,
  selectProfile,
  selectRegistrationError,
  selectTokenState,
  selectUser,
} from './authTokenMachine.selectors';
import { SILENT_RENEW_RETRY_MS, silentRenewMachine } from './silentRenewMachine';
import { modelDisagreements } from './testing/modelAgreement';
import { unreachedStateIds } from './testing/reachability';
import { REGISTRATION_REFRESH_MS, userRegistrationMachine } from './userRegistrationMachine';

const IFRAME_TIMEOUT = 'IFrame timed out without a response';

const userWithToken = (accessToken: string): AuthUser => ({
  accessToken,
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
});

const ADA = userWithToken('token-1');
const ADA_RENEWED = userWithToken('token-2');

const PROFILE: Profile = {
  id: 'u-1',
  name: 'Ada',
  role: 'administrator',
  isAdmin: true,
  isObserver: true,
  isCreator: true,
  isBuilder: true,
};

/** Settles promise actors: their results arrive on the microtask queue. */
const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (reason: unknown) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/**
 * The machine with recording stubs. The identity client is simulated through the `userEvents`
 * actor, which is how the app delivers its events; each registration and silent renew is a
 * deferred the test settles (or an immediate result when `autoSettle`).
 */
function startAuthToken({ autoSettle = true } = {}) {
  const clock = new SimulatedClock();
  const effects: string[] = [];
  const registrations: Array<{ user: AuthUser; result: Deferred<Profile> }> = [];
  const renewals: Array<Deferred<void>> = [];
  let sendFromIdentityClient: ((event: AuthTokenEvent) => void) | undefined;

  const machine = authTokenMachine.provide({
    actors: {
      userEvents: fromCallback(({ sendBack }) => {
        effects.push('userEvents.started');
        sendFromIdentityClient = sendBack;
        return () => effects.push('userEvents.stopped');
      }),
      registration: userRegistrationMachine.provide({
        actors: {
          registerUser: fromPromise<Profile, { user: AuthUser }>(({ input }) => {
            const result = deferred<Profile>();
            registrations.push({ user: input.user, result });
            if (autoSettle) result.resolve(PROFILE);
            return result.promise;
          }),
        },
      }),
      logout: fromPromise<void, void>(async () => {
        effects.push('logout');
      }),
      silentRenew: silentRenewMachine.provide({
        actors: {
          renewSilently: fromPromise<void, void>(() => {
            effects.push('renewSilently');
            const result = deferred<void>();
            renewals.push(result);
            return result.promise;
          }),
        },
      }),
    },
    actions: {
      rememberUrl: () => effects.push('rememberUrl'),
      navigateHome: () => effects.push('navigateHome'),
      clearUser: () => effects.push('clearUser'),
    },
  });

  const actor = createActor(machine, { clock });
  const tokenStates: TokenState[] = [];
  actor.subscribe((snapshot) => {
    const tokenState = selectTokenState(snapshot);
    if (tokenStates.at(-1) !== tokenState) tokenStates.push(tokenState);
  });
  actor.start();

  const identityClient = (event: AuthTokenEvent) => {
    if (sendFromIdentityClient === undefined) throw new Error('userEvents was not invoked');
    sendFromIdentityClient(event);
  };
  /** Sends identity-client events and lets the debounce window close. */
  const settle = async (...events: AuthTokenEvent[]) => {
    for (const event of events) identityClient(event);
    clock.increment(TOKEN_DEBOUNCE_MS);
    await flush();
  };
  const tokenState = () => selectTokenState(actor.getSnapshot());
  return {
    actor,
    clock,
    effects,
    registrations,
    renewals,
    tokenStates,
    identityClient,
    settle,
    tokenState,
  };
}

describe('authTokenMachine', () => {
  describe('token state', () => {
    it('is unknown and unresolved until the first event settles', () => {
      const { actor, identityClient, clock, tokenState } = startAuthToken();
      expect(tokenState()).toBe('unknown');
      expect(selectIsResolved(actor.getSnapshot())).toBe(false);

      identityClient({ type: 'user.loaded', user: ADA });
      clock.increment(TOKEN_DEBOUNCE_MS - 1);
      expect(tokenState()).toBe('unknown');

      clock.increment(1);
      expect(tokenState()).toBe('valid');
      expect(selectIsResolved(actor.getSnapshot())).toBe(true);
    });

    it('becomes valid with the loaded user, which counts as authenticated', async () => {
      const { actor, settle, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });

      expect(tokenState()).toBe('valid');
      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(true);
      expect(selectUser(actor.getSnapshot())).toEqual(ADA);
      expect(selectAccessToken(actor.getSnapshot())).toBe('token-1');
    });

    it('becomes invalid without a user and removes the stored user', async () => {
      const { actor, settle, tokenState, effects } = startAuthToken();
      await settle({ type: 'user.unloaded' });

      expect(tokenState()).toBe('invalid');
      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(false);
      expect(selectAccessToken(actor.getSnapshot())).toBeNull();
      expect(effects).toContain('clearUser');
    });

    it('becomes invalid when the user is unloaded, clearing user and profile', async () => {
      const { actor, settle, tokenState, effects } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      expect(selectProfile(actor.getSnapshot())).toEqual(PROFILE);

      await settle({ type: 'user.unloaded' });
      expect(tokenState()).toBe('invalid');
      expect(selectUser(actor.getSnapshot())).toBeNull();
      expect(selectProfile(actor.getSnapshot())).toBeNull();
      expect(selectIsAdmin(actor.getSnapshot())).toBe(false);
      expect(effects).toContain('clearUser');
    });

    it('becomes expiring on the expiring event and stays authenticated', async () => {
      const { actor, settle, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'token.expiring' });

      expect(tokenState()).toBe('expiring');
      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(true);
      expect(selectAccessToken(actor.getSnapshot())).toBe('token-1');
    });

    it('returns from expiring to valid with the renewed token', async () => {
      const { actor, settle, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA }, { type: 'token.expiring' });
      expect(tokenState()).toBe('expiring');

      await settle({ type: 'user.loaded', user: ADA_RENEWED });
      expect(tokenState()).toBe('valid');
      expect(selectAccessToken(actor.getSnapshot())).toBe('token-2');
    });

    it('ignores the expiring event when no user is loaded', async () => {
      const { settle, tokenState, tokenStates } = startAuthToken();
      await settle({ type: 'user.unloaded' });
      await settle({ type: 'token.expiring' });

      expect(tokenState()).toBe('invalid');
      expect(tokenStates).toEqual(['unknown', 'invalid']);
    });

    it('keeps the user of a burst when the token is already expiring at the first load', async () => {
      const { actor, settle, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA }, { type: 'token.expiring' });

      expect(tokenState()).toBe('expiring');
      expect(selectUser(actor.getSnapshot())).toEqual(ADA);
    });
  });

  describe('debounce', () => {
    it('settles a burst on its last event without passing through the states in between', async () => {
      const { actor, identityClient, clock, tokenStates, effects } = startAuthToken();
      identityClient({ type: 'user.unloaded' });
      clock.increment(TOKEN_DEBOUNCE_MS - 50);
      identityClient({ type: 'user.loaded', user: ADA });
      clock.increment(TOKEN_DEBOUNCE_MS - 1);
      // The second event restarted the window.
      expect(selectTokenState(actor.getSnapshot())).toBe('unknown');

      clock.increment(1);
      await flush();
      expect(tokenStates).toEqual(['unknown', 'valid']);
      expect(effects).not.toContain('clearUser');
    });

    it('keeps a valid token through an unload and reload during a renew', async () => {
      const { settle, tokenStates, registrations, effects, actor } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'user.unloaded' }, { type: 'user.loaded', user: ADA_RENEWED });

      expect(tokenStates).toEqual(['unknown', 'valid']);
      expect(selectAccessToken(actor.getSnapshot())).toBe('token-2');
      expect(registrations).toHaveLength(1);
      expect(effects).not.toContain('clearUser');
    });

    it('applies an expiry that a reload within the window overrides as the reload', async () => {
      const { settle, tokenStates, effects } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'token.expired' }, { type: 'user.loaded', user: ADA_RENEWED });

      expect(tokenStates).toEqual(['unknown', 'valid']);
      expect(effects).not.toContain('logout');
    });
  });

  describe('registration', () => {
    it('registers the user on becoming valid and exposes the roles', async () => {
      const { actor, settle, registrations } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });

      expect(registrations.map((r) => r.user)).toEqual([ADA]);
      expect(selectProfile(actor.getSnapshot())).toEqual(PROFILE);
      expect(selectIsAdmin(actor.getSnapshot())).toBe(true);
      expect(selectIsObserver(actor.getSnapshot())).toBe(true);
    });

    it('registers again every refresh interval while valid or expiring, with the current token', async () => {
      const { clock, settle, registrations } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      expect(registrations).toHaveLength(1);

      clock.increment(REGISTRATION_REFRESH_MS - 1);
      await flush();
      expect(registrations).toHaveLength(1);
      clock.increment(1);
      await flush();
      expect(registrations).toHaveLength(2);

      await settle({ type: 'token.expiring' });
      await settle({ type: 'user.loaded', user: ADA_RENEWED });
      // expiring -> valid is a renewal, not a new sign-in: no extra registration
      expect(registrations).toHaveLength(2);

      clock.increment(REGISTRATION_REFRESH_MS);
      await flush();
      expect(registrations.map((r) => r.user.accessToken)).toEqual([
        'token-1',
        'token-1',
        'token-2',
      ]);
    });

    it('stops registering once the token is invalid', async () => {
      const { clock, settle, registrations } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'user.unloaded' });

      clock.increment(REGISTRATION_REFRESH_MS * 2);
      await flush();
      expect(registrations).toHaveLength(1);
    });

    it('keeps the previous profile when a refresh fails, records why and retries on the next tick', async () => {
      const { actor, clock, settle, registrations } = startAuthToken({ autoSettle: false });
      await settle({ type: 'user.loaded', user: ADA });
      registrations[0]?.result.resolve(PROFILE);
      await flush();
      expect(selectProfile(actor.getSnapshot())).toEqual(PROFILE);

      clock.increment(REGISTRATION_REFRESH_MS);
      registrations[1]?.result.reject({
        message: 'Http failure',
        error: { message: 'UserNotFound' },
      });
      await flush();
      expect(selectProfile(actor.getSnapshot())).toEqual(PROFILE);
      expect(selectRegistrationError(actor.getSnapshot())).toBe('User Not Found');

      clock.increment(REGISTRATION_REFRESH_MS);
      expect(registrations).toHaveLength(3);
      registrations[2]?.result.resolve({ ...PROFILE, isAdmin: false });
      await flush();
      expect(selectIsAdmin(actor.getSnapshot())).toBe(false);
      expect(selectRegistrationError(actor.getSnapshot())).toBeNull();
    });

    it('leaves the profile empty when the first registration fails', async () => {
      const { actor, settle, registrations } = startAuthToken({ autoSettle: false });
      await settle({ type: 'user.loaded', user: ADA });
      registrations[0]?.result.reject(new Error('Network timed out'));
      await flush();

      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(true);
      expect(selectProfile(actor.getSnapshot())).toBeNull();
      expect(selectRegistrationError(actor.getSnapshot())).toBe('Network timed out');
    });
  });

  describe('expiry', () => {
    it('remembers the URL, goes home, logs out and clears the user', async () => {
      const { actor, settle, tokenState, effects } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      effects.length = 0;

      await settle({ type: 'token.expired' });
      expect(tokenState()).toBe('expired');
      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(false);
      expect(selectUser(actor.getSnapshot())).toBeNull();
      expect(selectProfile(actor.getSnapshot())).toBeNull();
      expect(effects).toEqual(['rememberUrl', 'navigateHome', 'logout']);
    });

    it('becomes invalid when the logout then unloads the user', async () => {
      const { settle, tokenStates } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'token.expired' });
      await settle({ type: 'user.unloaded' });

      expect(tokenStates).toEqual(['unknown', 'valid', 'expired', 'invalid']);
    });

    it('stops the registration refresh', async () => {
      const { clock, settle, registrations } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'token.expired' });

      clock.increment(REGISTRATION_REFRESH_MS);
      await flush();
      expect(registrations).toHaveLength(1);
    });
  });

  describe('silent renew', () => {
    it('retries a timed-out renew after the retry delay and stays valid meanwhile', async () => {
      const { clock, settle, identityClient, effects, renewals, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA }, { type: 'token.expiring' });

      identityClient({ type: 'silentRenew.failed', message: IFRAME_TIMEOUT, timedOut: true });
      clock.increment(SILENT_RENEW_RETRY_MS - 1);
      expect(effects).not.toContain('renewSilently');
      expect(tokenState()).toBe('expiring');

      clock.increment(1);
      expect(effects).toContain('renewSilently');

      renewals[0]?.resolve();
      await settle({ type: 'user.loaded', user: ADA_RENEWED });
      expect(tokenState()).toBe('valid');
    });

    it('expires the token when the retry fails', async () => {
      const { clock, settle, identityClient, renewals, tokenState, effects } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA }, { type: 'token.expiring' });
      identityClient({ type: 'silentRenew.failed', message: IFRAME_TIMEOUT, timedOut: true });
      clock.increment(SILENT_RENEW_RETRY_MS);

      renewals[0]?.reject(new Error('login_required'));
      await flush();
      clock.increment(TOKEN_DEBOUNCE_MS);
      expect(tokenState()).toBe('expired');
      expect(effects).toContain('logout');
    });

    it('expires the token on any other renew error, without retrying', async () => {
      const { clock, settle, effects, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      await settle({ type: 'silentRenew.failed', message: 'login_required', timedOut: false });

      expect(tokenState()).toBe('expired');
      clock.increment(SILENT_RENEW_RETRY_MS);
      expect(effects).not.toContain('renewSilently');
    });

    it('drops a scheduled retry when the token leaves authenticated', async () => {
      const { clock, settle, identityClient, effects } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      identityClient({ type: 'silentRenew.failed', message: IFRAME_TIMEOUT, timedOut: true });
      await settle({ type: 'token.expired' });

      clock.increment(SILENT_RENEW_RETRY_MS);
      expect(effects).not.toContain('renewSilently');
    });
  });

  describe('logout', () => {
    it('drops the token at once, clears the user and logs out', async () => {
      const { actor, settle, effects, tokenState } = startAuthToken();
      await settle({ type: 'user.loaded', user: ADA });
      effects.length = 0;

      actor.send({ type: 'logout.requested' });
      expect(tokenState()).toBe('invalid');
      expect(selectIsAuthenticated(actor.getSnapshot())).toBe(false);
      expect(selectUser(actor.getSnapshot())).toBeNull();
      expect(effects).toEqual(['logout']);

      await flush();
      expect(tokenState()).toBe('invalid');
      expect(effects).toEqual(['logout', 'clearUser']);
    });

    it('is not offered before sign-in', async () => {
      const { actor, settle } = startAuthToken();
      await settle({ type: 'user.unloaded' });
      expect(actor.getSnapshot().can({ type: 'logout.requested' })).toBe(false);
    });
  });

  it('listens to the identity client for its whole life', () => {
    const { actor, effects } = startAuthToken();
    expect(effects).toEqual(['userEvents.started']);
    actor.stop();
    expect(effects).toEqual(['userEvents.started', 'userEvents.stopped']);
  });
});

/**
 * Model-based test: an abstract model of the spec's token rules (no timers, no effects) whose
 * shortest paths over every transition drive the real actor, asserting its token state after
 * each step.
 */
describe('authTokenMachine against the spec model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'UNLOADED' }
    | { type: 'RELOADED' }
    | { type: 'EXPIRING' }
    | { type: 'EXPIRED' }
    | { type: 'RENEW_TIMED_OUT' }
    | { type: 'RENEW_FAILED' }
    | { type: 'LOGOUT' };

  const signedIn = {
    UNLOADED: 'invalid',
    EXPIRED: 'expired',
    RENEW_FAILED: 'expired',
    LOGOUT: 'invalid',
  } as const;

  // Self-loops are events the actor must ignore or absorb without changing the token state.
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'authTokenModel',
    initial: 'unknown',
    states: {
      unknown: {
        on: { LOADED: 'valid', UNLOADED: 'invalid', EXPIRED: 'expired', EXPIRING: 'unknown' },
      },
      valid: {
        on: { ...signedIn, EXPIRING: 'expiring', RELOADED: 'valid', RENEW_TIMED_OUT: 'valid' },
      },
      expiring: {
        on: { ...signedIn, LOADED: 'valid', RELOADED: 'valid', RENEW_TIMED_OUT: 'expiring' },
      },
      invalid: {
        on: {
          LOADED: 'valid',
          RELOADED: 'valid',
          EXPIRED: 'expired',
          EXPIRING: 'invalid',
          LOGOUT: 'invalid',
        },
      },
      expired: {
        on: { LOADED: 'valid', UNLOADED: 'invalid', EXPIRED: 'expired', LOGOUT: 'expired' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, authTokenMachine, {
        states: {
          unknown: 'unknown',
          valid: 'authenticated.valid',
          expiring: 'authenticated.expiring',
          // Signing out already counts as invalid.
          invalid: ['invalid', 'signingOut'],
          expired: 'expired',
        },
        // Each identity-client step, and the change the debounce makes of it.
        events: {
          LOADED: ['user.loaded', 'token.becameValid'],
          UNLOADED: ['user.unloaded', 'token.becameInvalid'],
          RELOADED: ['user.unloaded', 'user.loaded', 'token.becameValid'],
          EXPIRING: ['token.expiring', 'token.becameExpiring'],
          EXPIRED: ['token.expired', 'token.becameExpired'],
          RENEW_TIMED_OUT: 'silentRenew.failed',
          RENEW_FAILED: ['silentRenew.failed', 'token.becameExpired'],
          LOGOUT: ['logout.requested', 'xstate.done.actor.logout'],
        },
        // The registration does not move the token: the tests above cover it.
        unmodelledEvents: ['registration.succeeded', 'registration.failed'],
      }),
    ).toEqual([]);
  });

  // Every transition of the model, self-loops included, is a step of some path.
  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const sut = startAuthToken();
      expect(sut.tokenState()).toBe('unknown');

      const expectTokenState = (tokenState: TokenState) => () => {
        const snapshot: AuthTokenSnapshot = sut.actor.getSnapshot();
        expect(selectTokenState(snapshot)).toBe(tokenState);
        const authenticated = tokenState === 'valid' || tokenState === 'expiring';
        expect(selectIsAuthenticated(snapshot)).toBe(authenticated);
        expect(selectUser(snapshot) !== null).toBe(authenticated);
      };

      await path.test({
        states: {
          unknown: expectTokenState('unknown'),
          valid: expectTokenState('valid'),
          expiring: expectTokenState('expiring'),
          invalid: expectTokenState('invalid'),
          expired: expectTokenState('expired'),
        },
        events: {
          LOADED: () => sut.settle({ type: 'user.loaded', user: ADA }),
          UNLOADED: () => sut.settle({ type: 'user.unloaded' }),
          RELOADED: () =>
            sut.settle({ type: 'user.unloaded' }, { type: 'user.loaded', user: ADA_RENEWED }),
          EXPIRING: () => sut.settle({ type: 'token.expiring' }),
          EXPIRED: () => sut.settle({ type: 'token.expired' }),
          RENEW_TIMED_OUT: () =>
            sut.settle({ type: 'silentRenew.failed', message: IFRAME_TIMEOUT, timedOut: true }),
          RENEW_FAILED: () =>
            sut.settle({ type: 'silentRenew.failed', message: 'login_required', timedOut: false }),
          LOGOUT: async () => {
            sut.actor.send({ type: 'logout.requested' });
            await flush();
          },
        },
      });
    });
  }
});

describe('authTokenMachine reachability', () => {
  it('reaches every state of the real machine', () => {
    // The traversal sends the token changes the debounce would; users, profiles and errors are
    // abstracted away (it sends events without payloads).
    expect(
      unreachedStateIds(authTokenMachine, { serializeState: (s) => JSON.stringify(s.value) }),
    ).toEqual([]);
    const paths = getShortestPaths(authTokenMachine, {
      serializeState: (snapshot) => JSON.stringify(snapshot.value),
    });
    expect(new Set(paths.map((path) => selectTokenState(path.state)))).toEqual(
      new Set(['unknown', 'valid', 'expiring', 'invalid', 'expired']),
    );
  });
});
