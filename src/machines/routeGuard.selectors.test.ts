import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type EventObject } from 'xstate';
import {
  authTokenMachine,
  TOKEN_DEBOUNCE_MS,
  type AuthTokenEvent,
  type AuthUser,
  type Profile,
} from './authTokenMachine';
import { selectAdminGuard, selectObserverGuard, selectSignedInGuard } from './routeGuard.selectors';
import { silentRenewMachine } from './silentRenewMachine';
import { userRegistrationMachine } from './userRegistrationMachine';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const USER: AuthUser = {
  accessToken: 'token',
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
};

const profile = (roles: Partial<Profile>): Profile => ({
  id: 'u-1',
  name: 'Ada',
  role: 'user',
  isAdmin: false,
  isObserver: false,
  isCreator: false,
  isBuilder: false,
  ...roles,
});

/**
 * The real authToken machine driven through its effects: `initial` is what the identity client
 * reports at start (nothing yet when undefined); `registration` resolves to a profile, rejects, or
 * stays pending.
 */
function startSession(
  initial: AuthTokenEvent | undefined,
  registration: Profile | Error | 'pending',
  logout: 'done' | 'pending' = 'done',
) {
  const clock = new SimulatedClock();
  const actor = createActor(
    authTokenMachine.provide({
      actors: {
        userEvents: fromCallback<EventObject>(({ sendBack }) => {
          if (initial) sendBack(initial);
        }),
        registration: userRegistrationMachine.provide({
          actors: {
            registerUser: fromPromise<Profile, { user: AuthUser }>(
              () =>
                new Promise((resolve, reject) => {
                  if (registration instanceof Error) reject(registration);
                  else if (registration !== 'pending') resolve(registration);
                }),
            ),
          },
        }),
        logout: fromPromise<void, void>(() =>
          logout === 'done' ? Promise.resolve() : new Promise<void>(() => undefined),
        ),
        silentRenew: silentRenewMachine.provide({
          actors: { renewSilently: fromPromise<void, void>(async () => undefined) },
        }),
      },
      actions: {
        rememberUrl: () => undefined,
        navigateHome: () => undefined,
        clearUser: () => undefined,
      },
    }),
    { clock },
  ).start();
  const guards = () => {
    const snapshot = actor.getSnapshot();
    return {
      signedIn: selectSignedInGuard(snapshot),
      admin: selectAdminGuard(snapshot),
      observer: selectObserverGuard(snapshot),
    };
  };
  const settle = async () => {
    clock.increment(TOKEN_DEBOUNCE_MS);
    await flush();
  };
  return { actor, guards, settle };
}

const loaded: AuthTokenEvent = { type: 'user.loaded', user: USER };

describe('route guards', () => {
  it('wait while the session is unknown', () => {
    const { guards } = startSession(undefined, 'pending');
    expect(guards()).toEqual({ signedIn: 'pending', admin: 'pending', observer: 'pending' });
  });

  it('send signed-out users to login', async () => {
    const { guards, settle } = startSession({ type: 'user.unloaded' }, 'pending');
    await settle();
    expect(guards()).toEqual({ signedIn: 'login', admin: 'login', observer: 'login' });
  });

  it('let signed-in users in, and wait for the profile before deciding on roles', async () => {
    const { guards, settle } = startSession(loaded, 'pending');
    await settle();
    expect(guards()).toEqual({ signedIn: 'allowed', admin: 'pending', observer: 'pending' });
  });

  it('let administrators into admin and observe routes', async () => {
    const { guards, settle } = startSession(loaded, profile({ isAdmin: true, isObserver: true }));
    await settle();
    expect(guards()).toEqual({ signedIn: 'allowed', admin: 'allowed', observer: 'allowed' });
  });

  it('send observers away from admin routes only', async () => {
    const { guards, settle } = startSession(loaded, profile({ isObserver: true }));
    await settle();
    expect(guards()).toEqual({ signedIn: 'allowed', admin: 'home', observer: 'allowed' });
  });

  it('send users without roles home from role routes', async () => {
    const { guards, settle } = startSession(loaded, profile({}));
    await settle();
    expect(guards()).toEqual({ signedIn: 'allowed', admin: 'home', observer: 'home' });
  });

  it('wait while the user logs out instead of sending them to login', async () => {
    const { actor, guards, settle } = startSession(loaded, profile({ isAdmin: true }), 'pending');
    await settle();
    actor.send({ type: 'logout.requested' });
    expect(guards()).toEqual({ signedIn: 'pending', admin: 'pending', observer: 'pending' });
  });

  it('send users home from role routes when registration failed', async () => {
    const { guards, settle } = startSession(loaded, new Error('Unauthorized'));
    await settle();
    expect(guards()).toEqual({ signedIn: 'allowed', admin: 'home', observer: 'home' });
  });
});
