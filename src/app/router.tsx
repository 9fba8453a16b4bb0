import { lazy, Suspense, useEffect, type ComponentType, type ReactNode } from 'react';
import { createBrowserRouter, redirect, useLocation, type RouteObject } from 'react-router';
import { HOME_ITSELF_PARAM } from '../domain/homePage';
import { isWorkspaceSection } from '../machines/workspaceSections';
import type { RouteRole } from '../machines/routeGuard.selectors';
import { RouteErrorBoundary } from '../views/common/RouteErrorBoundary';
import { Spinner } from '../views/common/Spinner';
import { RouteGuard } from '../views/guard/RouteGuard';
import type { LocalSettingsStore } from './localSettings';
import { HomeRoute } from './routes/HomeRoute';
import { LoginRoute } from './routes/LoginRoute';
import { OidcCallbackRoute } from './routes/OidcCallbackRoute';
import { ShellRoute } from './routes/ShellRoute';
import { useAppServices } from './services';

// Everything but the shell, home, login and the sign-in callbacks loads on demand, so that the
// first page stays within its size budget; the admin area above all.
const AboutView = lazy(() => import('../views/about/AboutView'));
const NotFoundView = lazy(() => import('../views/notFound/NotFoundView'));
const ObserveRoute = lazy(() => import('./routes/GamespaceBrowserRoute'));
const GamespaceRoute = lazy(() => import('./routes/GamespaceRoute'));
const GamespaceInvitationRoute = lazy(() => import('./routes/GamespaceInvitationRoute'));
const WorkspaceInvitationRoute = lazy(() => import('./routes/WorkspaceInvitationRoute'));
const WorkspaceRoute = lazy(() => import('./routes/WorkspaceRoute'));
const AdminRoute = lazy(() => import('./routes/AdminRoute'));
const ProfileRoute = lazy(() => import('./routes/ProfileRoute'));
// The console page carries noVNC, which no other page needs.
const ConsoleRoute = lazy(() => import('./routes/ConsoleRoute'));
// A console recording's replay carries noVNC too.
const ReplayRoute = lazy(() => import('./routes/ReplayRoute'));
// The pages of launch links (TopoMojo's launchpoint and console links), signed in by a ticket.
const LaunchRoute = lazy(() => import('./routes/LaunchRoute'));
const LaunchConsoleRoute = lazy(() => import('./routes/LaunchConsoleRoute'));

/**
 * Tells the app that the route's content is on screen. Inside the route's Suspense boundary, which
 * React takes over last when it hydrates the prerendered home page, so that its effect runs once
 * the whole page is React's.
 */
function Shown() {
  const { routeShown } = useAppServices();
  useEffect(() => routeShown(), [routeShown]);
  return null;
}

/** Each routed view gets its own error boundary, which recovers when the location changes. */
function RouteFrame({ children }: { children: ReactNode }) {
  const { pathname } = useLocation();
  return (
    <RouteErrorBoundary resetKey={pathname}>
      <Suspense fallback={<Spinner label="Loading" />}>
        {children}
        <Shown />
      </Suspense>
    </RouteErrorBoundary>
  );
}

function Guarded({ role, children }: { role?: RouteRole; children: ReactNode }) {
  const { auth } = useAppServices();
  return (
    <RouteGuard auth={auth} role={role}>
      {children}
    </RouteGuard>
  );
}

const framed = (View: ComponentType) => (
  <RouteFrame>
    <View />
  </RouteFrame>
);

const guarded = (View: ComponentType, role?: RouteRole) => (
  <RouteFrame>
    <Guarded role={role}>
      <View />
    </Guarded>
  </RouteFrame>
);

export interface RouteDependencies {
  local: LocalSettingsStore;
  /** The Files section exists only when uploads are enabled (settings.enable_upload). */
  uploadEnabled: boolean;
}

export function appRoutes({ local, uploadEnabled }: RouteDependencies): RouteObject[] {
  const hasSection = (section: string | undefined) =>
    isWorkspaceSection(section) && (section !== 'files' || uploadEnabled);

  return [
    // The silent-renew iframe shows no shell.
    {
      path: '/oidc-silent',
      element: (
        <RouteFrame>
          <OidcCallbackRoute silent />
        </RouteFrame>
      ),
    },
    // A machine's console opens in its own tab, full page, without the shell.
    { path: '/console/:id/:name', element: guarded(ConsoleRoute) },
    // Launch links sign in by their ticket, not through the guard, and show no shell either.
    { path: '/lp', element: framed(LaunchRoute) },
    { path: '/mks', element: framed(LaunchConsoleRoute) },
    { path: '/c', element: framed(LaunchConsoleRoute) },
    {
      path: '/',
      element: <ShellRoute />,
      hydrateFallbackElement: <Spinner label="Loading" />,
      children: [
        {
          index: true,
          // On the first visit of a page load, go back to where the user last was (then forget it),
          // unless the user asked for home itself: home is then the last page visited.
          loader: ({ request }) => {
            if (new URL(request.url).searchParams.has(HOME_ITSELF_PARAM)) {
              local.rememberLast('/');
              return null;
            }
            const last = local.takeLastForRestore();
            return last && last !== '/' ? redirect(last) : null;
          },
          element: framed(HomeRoute),
        },
        { path: 'about', element: framed(AboutView) },
        { path: 'login', element: framed(LoginRoute) },
        {
          path: 'oidc',
          element: (
            <RouteFrame>
              <OidcCallbackRoute silent={false} />
            </RouteFrame>
          ),
        },
        { path: 'mojo/:id/:slug/:code', element: guarded(GamespaceInvitationRoute) },
        { path: 'mojo/:id/*', element: guarded(GamespaceRoute) },
        { path: 'topo/:id/invite/:code', element: guarded(WorkspaceInvitationRoute) },
        {
          path: 'topo/:id/:section',
          loader: ({ params, request }) => {
            const id = encodeURIComponent(params.id ?? '');
            if (!hasSection(params.section)) return redirect(`/topo/${id}/settings`);
            // The section in view is the page to come back to (spec §2 Workspace editor).
            const url = new URL(request.url);
            local.rememberLast(`${url.pathname}${url.search}`);
            return null;
          },
          element: guarded(WorkspaceRoute),
        },
        {
          path: 'topo/:id',
          loader: ({ params }) => redirect(`/topo/${encodeURIComponent(params.id ?? '')}/settings`),
        },
        { path: 'profile', element: guarded(ProfileRoute) },
        { path: 'observe', element: guarded(ObserveRoute, 'observer') },
        {
          path: 'observe/replay/:gamespaceId/:recordingId',
          element: guarded(ReplayRoute, 'observer'),
        },
        { path: 'admin', element: guarded(AdminRoute, 'admin') },
        { path: 'admin/:section', element: guarded(AdminRoute, 'admin') },
        { path: '*', element: framed(NotFoundView) },
      ],
    },
  ];
}

export function createAppRouter(deps: RouteDependencies) {
  return createBrowserRouter(appRoutes(deps));
}
