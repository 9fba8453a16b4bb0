import { mayCreateWorkspaces } from '../domain/workspaceAccess';
import type { AuthTokenSnapshot, AuthUser, Profile, TokenState } from './authTokenMachine';

export const selectTokenState = (snapshot: AuthTokenSnapshot): TokenState => {
  if (snapshot.matches('unknown')) return 'unknown';
  if (snapshot.matches({ authenticated: 'expiring' })) return 'expiring';
  if (snapshot.matches('authenticated')) return 'valid';
  if (snapshot.matches('expired')) return 'expired';
  // invalid, and signingOut: a token the user asked to drop no longer counts.
  return 'invalid';
};

/** The user asked to log out and the logout is under way (token state 'invalid'). */
export const selectIsSigningOut = (snapshot: AuthTokenSnapshot): boolean =>
  snapshot.matches('signingOut');

/** Valid or expiring (spec §4). */
export const selectIsAuthenticated = (snapshot: AuthTokenSnapshot): boolean =>
  snapshot.hasTag('authenticated');

export const selectUser = (snapshot: AuthTokenSnapshot): AuthUser | null => snapshot.context.user;

export const selectAccessToken = (snapshot: AuthTokenSnapshot): string | null =>
  snapshot.context.user?.accessToken ?? null;

export const selectProfile = (snapshot: AuthTokenSnapshot): Profile | null =>
  snapshot.context.profile;

export const selectIsAdmin = (snapshot: AuthTokenSnapshot): boolean =>
  snapshot.context.profile?.isAdmin ?? false;

/** Whether New Workspace is offered: the server's rule (src/domain/workspaceAccess.ts). */
export const selectMayCreateWorkspaces = (snapshot: AuthTokenSnapshot): boolean => {
  const profile = snapshot.context.profile;
  return (
    profile !== null &&
    mayCreateWorkspaces({
      isCreator: profile.isCreator,
      workspaceLimit: profile.workspaceLimit ?? 0,
    })
  );
};

/** The number of workspaces the user may manage, for those who are limited; null for creators. */
export const selectWorkspaceLimit = (snapshot: AuthTokenSnapshot): number | null => {
  const profile = snapshot.context.profile;
  return profile === null || profile.isCreator ? null : (profile.workspaceLimit ?? 0);
};

export const selectIsObserver = (snapshot: AuthTokenSnapshot): boolean =>
  snapshot.context.profile?.isObserver ?? false;

/** The first token events have settled: guards can decide instead of waiting. */
export const selectIsResolved = (snapshot: AuthTokenSnapshot): boolean =>
  !snapshot.matches('unknown');

export const selectRegistrationError = (snapshot: AuthTokenSnapshot): string | null =>
  snapshot.context.registrationError;
