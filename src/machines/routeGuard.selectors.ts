import type { AuthTokenSnapshot } from './authTokenMachine';
import {
  selectIsAuthenticated,
  selectIsResolved,
  selectIsSigningOut,
  selectProfile,
  selectRegistrationError,
} from './authTokenMachine.selectors';

/**
 * What a guarded route does with the session as it stands (spec §2 Guards, §6):
 * - 'pending': not known yet (token state unknown, or a role is needed and the profile has not
 *   arrived), or the user is logging out; a spinner shows instead of redirecting too early;
 * - 'login': not signed in; go to /login and come back afterwards;
 * - 'home': signed in without the role; go to /;
 * - 'allowed': show the route.
 */
export type GuardOutcome = 'pending' | 'login' | 'home' | 'allowed';

/** The role a route needs beyond being signed in. */
export type RouteRole = 'admin' | 'observer';

function guardOutcome(snapshot: AuthTokenSnapshot, role: RouteRole | null): GuardOutcome {
  if (!selectIsResolved(snapshot)) return 'pending';
  // Logging out leaves for the identity provider's sign-out page: sending the user to /login
  // meanwhile would flash the login prompt (or, with auto-login, start a new sign-in).
  if (selectIsSigningOut(snapshot)) return 'pending';
  if (!selectIsAuthenticated(snapshot)) return 'login';
  if (role === null) return 'allowed';
  const profile = selectProfile(snapshot);
  // Without a profile the roles cannot be known; a failed registration will not bring one.
  if (!profile) return selectRegistrationError(snapshot) ? 'home' : 'pending';
  const hasRole = role === 'admin' ? profile.isAdmin : profile.isObserver;
  return hasRole ? 'allowed' : 'home';
}

export const selectSignedInGuard = (snapshot: AuthTokenSnapshot): GuardOutcome =>
  guardOutcome(snapshot, null);

export const selectAdminGuard = (snapshot: AuthTokenSnapshot): GuardOutcome =>
  guardOutcome(snapshot, 'admin');

export const selectObserverGuard = (snapshot: AuthTokenSnapshot): GuardOutcome =>
  guardOutcome(snapshot, 'observer');
