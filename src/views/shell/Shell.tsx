import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import type { AuthTokenActorRef } from '../../machines/authTokenMachine';
import {
  selectIsAdmin,
  selectIsAuthenticated,
  selectIsObserver,
} from '../../machines/authTokenMachine.selectors';
import { selectShowReconnectBanner } from '../../machines/hubBanner.selectors';
import type { SidebarActorRef } from '../../machines/sidebarMachine';
import { Sidebar } from './Sidebar';

const navClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? 'tp-topbar-link tp-topbar-link-active' : 'tp-topbar-link';

/** Top bar, reconnection banner, left sidebar and the page beside it (spec §2 Shell). */
export function Shell({
  appname,
  auth,
  sidebar,
  children,
}: {
  appname: string;
  auth: AuthTokenActorRef;
  sidebar: SidebarActorRef;
  children: ReactNode;
}) {
  const signedIn = useSelector(auth, selectIsAuthenticated);
  const isAdmin = useSelector(auth, selectIsAdmin);
  const isObserver = useSelector(auth, selectIsObserver);
  // The hub connection arrives with the real-time issue; the selector answers false until then.
  const showReconnectBanner = signedIn && selectShowReconnectBanner(undefined);

  return (
    <div className="tp-app">
      {showReconnectBanner && (
        <div className="tp-banner" role="alert">
          <i className="pi pi-exclamation-triangle" aria-hidden="true" />
          <span>Attempting re-connection...</span>
        </div>
      )}
      <header className="tp-topbar">
        <Link to="/" className="tp-brand">
          {appname}
        </Link>
        <nav className="tp-topbar-nav" aria-label="Main">
          <NavLink to="/" end className={navClass}>
            Home
          </NavLink>
          <NavLink to="/about" className={navClass}>
            About
          </NavLink>
          {isAdmin && (
            <NavLink to="/admin" className={navClass}>
              Admin
            </NavLink>
          )}
          {isObserver && !isAdmin && (
            <NavLink to="/observe" className={navClass}>
              Observe
            </NavLink>
          )}
          {signedIn && (
            <button
              type="button"
              className="tp-topbar-link"
              onClick={() => auth.send({ type: 'logout.requested' })}
            >
              Logout
            </button>
          )}
        </nav>
      </header>
      <div className="tp-body">
        <Sidebar sidebar={sidebar} signedIn={signedIn} />
        <main className="tp-main">{children}</main>
      </div>
    </div>
  );
}
