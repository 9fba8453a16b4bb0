import { useSelector } from '@xstate/react';
import { useRef, type ReactNode } from 'react';
import { Link, NavLink } from 'react-router';
import { HOME_ITSELF } from '../../domain/homePage';
import type { AnnouncementsActorRef } from '../../machines/announcementsMachine';
import type { AuthTokenActorRef } from '../../machines/authTokenMachine';
import {
  selectIsAdmin,
  selectIsAuthenticated,
  selectIsObserver,
} from '../../machines/authTokenMachine.selectors';
import type { AuthTokenSnapshot } from '../../machines/authTokenMachine';
import { selectShowReconnectBanner } from '../../machines/hubBanner.selectors';
import type { HubConnectionActorRef } from '../../machines/hubConnectionMachine';
import type { SidebarActorRef } from '../../machines/sidebarMachine';
import type { WorkspaceBrowserActorRef } from '../../machines/workspaceBrowserMachine';
import { AnnouncementBanner } from './AnnouncementBanner';
import { Sidebar } from './Sidebar';
import { SignedInUser } from './SignedInUser';
import { MAIN_CONTENT_ID, SkipLink } from './SkipLink';
import { Icon, piExclamationTriangle } from '../common/icons';

const navClass = ({ isActive }: { isActive: boolean }) =>
  isActive ? 'tp-topbar-link tp-topbar-link-active' : 'tp-topbar-link';

const wholeSnapshot = (snapshot: AuthTokenSnapshot) => snapshot;

/** The red banner while a signed-in user's real-time connection is down (spec §2, §8). */
function ReconnectBanner({ auth, hub }: { auth: AuthTokenActorRef; hub: HubConnectionActorRef }) {
  // Only this banner re-renders with the session; the hub's changes are narrowed to one boolean.
  const authSnapshot = useSelector(auth, wholeSnapshot);
  const show = useSelector(hub, (hubSnapshot) =>
    selectShowReconnectBanner(authSnapshot, hubSnapshot),
  );
  if (!show) return null;
  return (
    <div className="tp-banner" role="alert">
      <Icon shape={piExclamationTriangle} />
      <span>Attempting re-connection...</span>
    </div>
  );
}

/** Top bar, reconnection banner, left sidebar and the page beside it (spec §2 Shell). */
export function Shell({
  appname,
  auth,
  hub,
  sidebar,
  browser,
  announcements,
  uploadEnabled,
  children,
}: {
  appname: string;
  auth: AuthTokenActorRef;
  hub: HubConnectionActorRef;
  sidebar: SidebarActorRef;
  browser: WorkspaceBrowserActorRef;
  /** Administrators' announcements; none shown without it (tests of the shell alone). */
  announcements?: AnnouncementsActorRef;
  /** The Files section exists only when uploads are enabled (settings.enable_upload). */
  uploadEnabled: boolean;
  children: ReactNode;
}) {
  const signedIn = useSelector(auth, selectIsAuthenticated);
  const isAdmin = useSelector(auth, selectIsAdmin);
  const isObserver = useSelector(auth, selectIsObserver);
  const content = useRef<HTMLElement>(null);

  return (
    <div className="tp-app">
      <SkipLink target={content} />
      <ReconnectBanner auth={auth} hub={hub} />
      <header className="tp-topbar">
        {/* Home itself: `/` alone may go back to the remembered workspace (HOME_ITSELF). */}
        <Link to={HOME_ITSELF} className="tp-brand">
          {appname}
        </Link>
        <nav className="tp-topbar-nav" aria-label="Main">
          <NavLink to={HOME_ITSELF} end className={navClass}>
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
          {signedIn && <SignedInUser auth={auth} />}
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
        <Sidebar sidebar={sidebar} browser={browser} uploadEnabled={uploadEnabled} />
        {/* Labelled: where it scrolls with nothing to focus inside, the browser makes it a tab
            stop (accessibility.css draws its ring inside it, clear of the bars around it). */}
        <main id={MAIN_CONTENT_ID} ref={content} className="tp-main" aria-label="Content">
          {announcements && <AnnouncementBanner announcements={announcements} />}
          {children}
        </main>
      </div>
    </div>
  );
}
