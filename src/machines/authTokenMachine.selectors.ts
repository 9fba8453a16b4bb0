import type { AuthTokenSnapshot, AuthUser, Profile, TokenState } from './authTokenMachine';

export const selectTokenState = (snapshot: AuthTokenSnapshot): TokenState => {
  if (snapshot.matches({ token: 'unknown' })) return 'unknown';
  if (snapshot.matches({ token: { authenticated: { expiry: 'expiring' } } })) return 'expiring';
  if (snapshot.matches({ token: 'authenticated' })) return 'valid';
  if (snapshot.matches({ token: 'expired' })) return 'expired';
  // invalid, and signingOut: a token the user asked to drop no longer counts.
  return 'invalid';
};

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

export const selectIsObserver = (snapshot: AuthTokenSnapshot): boolean =>
  snapshot.context.profile?.isObserver ?? false;

/** The first token events have settled: guards can decide instead of waiting. */
export const selectIsResolved = (snapshot: AuthTokenSnapshot): boolean =>
  !snapshot.matches({ token: 'unknown' });

export const selectRegistrationError = (snapshot: AuthTokenSnapshot): string | null =>
  snapshot.context.registrationError;
