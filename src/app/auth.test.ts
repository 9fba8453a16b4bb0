// @vitest-environment jsdom
import { ErrorTimeout, User, type UserManager } from 'oidc-client-ts';
import { describe, expect, it } from 'vitest';
import { createActor, SimulatedClock } from 'xstate';
import { createHttpClient } from '../api/http';
import { authTokenMachine, TOKEN_DEBOUNCE_MS } from '../machines/authTokenMachine';
import {
  selectIsAuthenticated,
  selectProfile,
  selectTokenState,
  selectUser,
} from '../machines/authTokenMachine.selectors';
import { authTokenImplementations, createUserManager, toAuthUser } from './auth';
import { defaultSettings } from './settings';

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

const nowSeconds = () => Math.floor(Date.now() / 1000);

const oidcUser = (expiresInSeconds: number) =>
  new User({
    access_token: 'access-1',
    token_type: 'Bearer',
    id_token: 'id-1',
    profile: { sub: 'u-1', name: 'Ada', iss: 'x', aud: 'ui', exp: 0, iat: 0 },
    expires_at: nowSeconds() + expiresInSeconds,
  });

type Handler = (...args: unknown[]) => void;

/** The parts of UserManager the app uses, with events the test raises. */
function fakeUserManager(stored: User | null) {
  const handlers = new Map<string, Set<Handler>>();
  const calls: string[] = [];
  const add = (name: string) => (handler: Handler) => {
    const set = handlers.get(name) ?? new Set();
    set.add(handler);
    handlers.set(name, set);
    return () => set.delete(handler);
  };
  let user = stored;
  const manager = {
    events: {
      addUserLoaded: add('userLoaded'),
      addUserUnloaded: add('userUnloaded'),
      addAccessTokenExpiring: add('accessTokenExpiring'),
      addAccessTokenExpired: add('accessTokenExpired'),
      addSilentRenewError: add('silentRenewError'),
    },
    getUser: async () => user,
    removeUser: async () => {
      calls.push('removeUser');
      user = null;
    },
    signoutRedirect: async (args: unknown) => {
      calls.push(`signoutRedirect ${JSON.stringify(args)}`);
    },
    signinSilent: async () => {
      calls.push('signinSilent');
      return user;
    },
  };
  const raise = (name: string, ...args: unknown[]) =>
    handlers.get(name)?.forEach((handler) => handler(...args));
  const listenerCount = () => [...handlers.values()].reduce((n, set) => n + set.size, 0);
  return { manager: manager as unknown as UserManager, raise, calls, listenerCount };
}

const REGISTERED = {
  id: 'u-1',
  name: 'Ada',
  role: 'administrator',
  appRole: 'administrator',
  isAdmin: true,
  isObserver: true,
  isCreator: true,
  isBuilder: true,
  scope: '',
  workspaceLimit: 0,
};

/** The real authToken machine over the real implementations, a fake identity client and API. */
function startAuth(stored: User | null, server: { logoutStatus?: number } = {}) {
  const idp = fakeUserManager(stored);
  const requests: { url: string; authorization: string | undefined; body: unknown }[] = [];
  const doFetch = (async (url: string, init: RequestInit) => {
    const headers = init.headers as Record<string, string>;
    requests.push({
      url,
      authorization: headers.Authorization,
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    if (url.endsWith('/user/register')) return new Response(JSON.stringify(REGISTERED));
    return new Response('', { status: server.logoutStatus ?? 200 });
  }) as unknown as typeof fetch;
  const effects: string[] = [];
  const clock = new SimulatedClock();
  const http = createHttpClient({
    baseUrl: '/api',
    authorization: () => undefined,
    fetch: doFetch,
  });
  const actor = createActor(
    authTokenMachine.provide(
      authTokenImplementations({
        userManager: idp.manager,
        http,
        postLogoutRedirectUri: 'http://localhost:5080/',
        rememberCurrentUrl: () => effects.push('rememberUrl'),
        navigate: (to) => effects.push(`navigate ${to}`),
      }),
    ),
    { clock },
  ).start();
  const settle = async () => {
    await flush();
    clock.increment(TOKEN_DEBOUNCE_MS);
    await flush();
    await flush();
  };
  return { actor, idp, requests, effects, settle };
}

describe('authToken effects', () => {
  it('load a stored user and register it with its own token and profile', async () => {
    const { actor, requests, settle } = startAuth(oidcUser(3600));
    await settle();
    const snapshot = actor.getSnapshot();
    expect(selectTokenState(snapshot)).toBe('valid');
    expect(selectUser(snapshot)).toMatchObject({ accessToken: 'access-1', tokenType: 'Bearer' });
    expect(requests[0]).toMatchObject({
      url: '/api/user/register',
      authorization: 'Bearer access-1',
      body: { sub: 'u-1', name: 'Ada' },
    });
    expect(selectProfile(snapshot)).toEqual({
      id: 'u-1',
      name: 'Ada',
      role: 'administrator',
      isAdmin: true,
      isObserver: true,
      isCreator: true,
      isBuilder: true,
      gamespaceMaxMinutes: 0,
      workspaceLimit: 0,
    });
  });

  it('treat a stored user whose token has expired as no user', async () => {
    const { actor, idp, settle } = startAuth(oidcUser(-60));
    await settle();
    expect(selectTokenState(actor.getSnapshot())).toBe('invalid');
    expect(idp.calls).toContain('removeUser');
  });

  it('follow the identity client events', async () => {
    const { actor, idp, settle } = startAuth(null);
    await settle();
    expect(selectTokenState(actor.getSnapshot())).toBe('invalid');
    idp.raise('userLoaded', oidcUser(3600));
    await settle();
    expect(selectIsAuthenticated(actor.getSnapshot())).toBe(true);
    idp.raise('accessTokenExpiring');
    await settle();
    expect(selectTokenState(actor.getSnapshot())).toBe('expiring');
  });

  it('retry a timed-out silent renew, and expire the token on any other renew error', async () => {
    const timedOut = startAuth(oidcUser(3600));
    await timedOut.settle();
    timedOut.idp.raise('silentRenewError', new ErrorTimeout('IFrame timed out without a response'));
    await timedOut.settle();
    expect(selectTokenState(timedOut.actor.getSnapshot())).toBe('valid');

    const failed = startAuth(oidcUser(3600));
    await failed.settle();
    failed.idp.raise('silentRenewError', new Error('login_required'));
    await failed.settle();
    expect(selectTokenState(failed.actor.getSnapshot())).toBe('expired');
    expect(failed.effects).toEqual(['rememberUrl', 'navigate /']);
  });

  it('log out at the server, drop the user, then sign out at the identity provider', async () => {
    const { actor, idp, requests, settle } = startAuth(oidcUser(3600), { logoutStatus: 500 });
    await settle();
    actor.send({ type: 'logout.requested' });
    await settle();
    expect(requests.at(-1)).toMatchObject({
      url: '/api/user/logout',
      authorization: 'Bearer access-1',
    });
    expect(idp.calls).toEqual([
      'removeUser',
      `signoutRedirect ${JSON.stringify({ id_token_hint: 'id-1', post_logout_redirect_uri: 'http://localhost:5080/' })}`,
      // The token then counts as invalid, which clears the (already empty) store.
      'removeUser',
    ]);
    expect(selectTokenState(actor.getSnapshot())).toBe('invalid');
  });

  it('detach from the identity client when stopped', async () => {
    const { actor, idp } = startAuth(null);
    expect(idp.listenerCount()).toBe(5);
    actor.stop();
    expect(idp.listenerCount()).toBe(0);
  });

  it('convert token expiry to milliseconds', () => {
    const user = oidcUser(60);
    expect(toAuthUser(user).expiresAt).toBe((user.expires_at ?? 0) * 1000);
  });
});

describe('createUserManager', () => {
  const oidc = {
    ...defaultSettings('http://localhost:5080').oidc,
    authority: 'http://localhost:5080/identity',
    client_id: 'topoplay-ui',
  };

  it('keeps the user in local storage when asked to', () => {
    const manager = createUserManager({ ...oidc, useLocalStorage: true });
    expect((manager.settings.userStore as unknown as { _store: Storage })._store).toBe(
      localStorage,
    );
    expect(manager.settings.loadUserInfo).toBe(true);
    expect(manager.settings.response_type).toBe('code');
  });

  it('keeps the user in session storage by default', () => {
    const manager = createUserManager(oidc);
    expect((manager.settings.userStore as unknown as { _store: Storage })._store).toBe(
      sessionStorage,
    );
  });
});
