import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import {
  ErrorTimeout,
  UserManager,
  WebStorageStateStore,
  type User as OidcUser,
  type UserManagerSettings,
} from 'oidc-client-ts';
import { fromCallback, fromPromise, type EventObject } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { logoutUser, registerUser, type User } from '../api/user';
import type {
  AuthTokenEvent,
  AuthUser,
  Profile,
  authTokenMachine,
} from '../machines/authTokenMachine';
import { silentRenewMachine } from '../machines/silentRenewMachine';
import { userRegistrationMachine } from '../machines/userRegistrationMachine';
import type { OidcSettings } from './settings';

/** How long logout waits for the server before going on without it. */
const LOGOUT_CALL_TIMEOUT_MS = 5_000;

/**
 * The identity client. Only oidc-client-ts' own settings are passed on; `useLocalStorage` chooses
 * where the user is kept, and settings.json's other flags (autoLogin, ...) are read by the app.
 */
export function createUserManager(oidc: OidcSettings): UserManager {
  const {
    autoLogin: _autoLogin,
    autoLogout: _autoLogout,
    useLocalStorage,
    silentRenewIfActiveSeconds: _silentRenewIfActiveSeconds,
    debug: _debug,
    ...settings
  } = oidc;
  const userManagerSettings: UserManagerSettings = {
    ...settings,
    // The name claim comes from the userinfo endpoint.
    loadUserInfo: true,
    ...(useLocalStorage ? { userStore: new WebStorageStateStore({ store: localStorage }) } : {}),
  };
  return new UserManager(userManagerSettings);
}

export const toAuthUser = (user: OidcUser): AuthUser => ({
  accessToken: user.access_token,
  tokenType: user.token_type || 'Bearer',
  // oidc-client-ts counts in seconds since the epoch.
  expiresAt: user.expires_at === undefined ? null : user.expires_at * 1000,
  profile: user.profile,
});

export const authorizationOf = (user: { tokenType: string; accessToken: string }): string =>
  `${user.tokenType} ${user.accessToken}`;

export const toProfile = (user: User): Profile => ({
  id: user.id,
  name: user.name ?? '',
  role: user.role ?? '',
  isAdmin: user.isAdmin,
  isObserver: user.isObserver,
  isCreator: user.isCreator,
  isBuilder: user.isBuilder,
  gamespaceMaxMinutes: user.gamespaceMaxMinutes ?? 0,
  workspaceLimit: user.workspaceLimit ?? 0,
});

export interface AuthDependencies {
  userManager: UserManager;
  http: HttpClient;
  postLogoutRedirectUri: string;
  /** Remembers the URL in view, so that the next sign-in comes back to it. */
  rememberCurrentUrl: () => void;
  navigate: (to: string) => void;
}

type AuthTokenImplementations = Parameters<typeof authTokenMachine.provide>[0];

/** The real effects of the authToken machine, over oidc-client-ts and the API. */
export function authTokenImplementations(deps: AuthDependencies): AuthTokenImplementations {
  const { userManager, http } = deps;

  return {
    actors: {
      userEvents: fromCallback<EventObject>(({ sendBack }) => {
        const send = (event: AuthTokenEvent) => sendBack(event);
        const events = userManager.events;
        const detach = [
          events.addUserLoaded((user) => send({ type: 'user.loaded', user: toAuthUser(user) })),
          events.addUserUnloaded(() => send({ type: 'user.unloaded' })),
          events.addAccessTokenExpiring(() => send({ type: 'token.expiring' })),
          events.addAccessTokenExpired(() => send({ type: 'token.expired' })),
          events.addSilentRenewError((error) =>
            send({
              type: 'silentRenew.failed',
              message: error.message,
              timedOut: error instanceof ErrorTimeout || error.name === 'ErrorTimeout',
            }),
          ),
        ];
        let attached = true;
        userManager.getUser().then(
          (user) => {
            if (!attached) return;
            // A stored user whose token has already expired is no session.
            send(
              user && !user.expired
                ? { type: 'user.loaded', user: toAuthUser(user) }
                : { type: 'user.unloaded' },
            );
          },
          () => attached && send({ type: 'user.unloaded' }),
        );
        return () => {
          attached = false;
          detach.forEach((remove) => remove());
        };
      }),

      registration: userRegistrationMachine.provide({
        actors: {
          registerUser: fromTaskEither(({ user }: { user: AuthUser }, signal) =>
            pipe(
              registerUser(http)(user.profile, authorizationOf(user), signal),
              TE.map(toProfile),
            ),
          ),
        },
      }),

      logout: fromPromise<void, void>(async () => {
        const user = await userManager.getUser().catch(() => null);
        // Best effort: the session ends on this side whatever the server answers.
        await logoutUser(http)(
          user ? authorizationOf(toAuthUser(user)) : undefined,
          AbortSignal.timeout(LOGOUT_CALL_TIMEOUT_MS),
        )();
        await userManager.removeUser();
        if (user) {
          await userManager.signoutRedirect({
            id_token_hint: user.id_token,
            post_logout_redirect_uri: deps.postLogoutRedirectUri,
          });
        }
      }),

      silentRenew: silentRenewMachine.provide({
        actors: {
          renewSilently: fromPromise<void, void>(async () => {
            await userManager.signinSilent();
          }),
        },
      }),
    },
    actions: {
      rememberUrl: () => deps.rememberCurrentUrl(),
      navigateHome: () => deps.navigate('/'),
      clearUser: () => {
        void userManager.removeUser();
      },
    },
  };
}
