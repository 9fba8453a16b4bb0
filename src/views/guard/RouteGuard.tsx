import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import type { AuthTokenActorRef } from '../../machines/authTokenMachine';
import {
  selectAdminGuard,
  selectObserverGuard,
  selectSignedInGuard,
  type RouteRole,
} from '../../machines/routeGuard.selectors';
import { Spinner } from '../common/Spinner';

/** Router state handed to /login: where to return once signed in. */
export interface LoginRedirectState {
  from?: string;
  loginError?: string;
}

const selectors = {
  signedIn: selectSignedInGuard,
  admin: selectAdminGuard,
  observer: selectObserverGuard,
} as const;

/**
 * Shows its route only to signed-in users (with `role`, only to those who have it). Those without
 * the role go home, or see `denied` where the route's address is one they were given (a link to a
 * recording): it says so without loading anything of the route.
 */
export function RouteGuard({
  auth,
  role,
  denied,
  children,
}: {
  auth: AuthTokenActorRef;
  role?: RouteRole;
  denied?: ReactNode;
  children: ReactNode;
}) {
  const outcome = useSelector(auth, selectors[role ?? 'signedIn']);
  const location = useLocation();

  switch (outcome) {
    case 'pending':
      return <Spinner label="Checking your session" />;
    case 'login': {
      const target = `${location.pathname}${location.search}${location.hash}`;
      if (target === '/') return <Navigate to="/" replace />;
      const state: LoginRedirectState = { from: target };
      return <Navigate to="/login" replace state={state} />;
    }
    case 'home':
      return denied ?? <Navigate to="/" replace />;
    case 'allowed':
      return children;
  }
}
