import {
  lazy,
  Suspense,
  useEffect,
  type ComponentType,
  type LazyExoticComponent,
  type ReactNode,
} from 'react';
import { createBrowserRouter, redirect, useLocation, type RouteObject } from 'react-router';
import { HOME_ITSELF_PARAM } from '../domain/homePage';
import { isWorkspaceSection } from '../machines/workspaceSections';
import type { RouteRole } from '../machines/routeGuard.selectors';
import { RouteErrorBoundary } from '../views/common/RouteErrorBoundary';
import { Spinner } from '../views/common/Spinner';
import { RouteGuard } from '../views/guard/RouteGuard';
import { ReplayDenied } from '../views/replay/ReplayDenied';
import type { LocalSettingsStore } from './localSettings';
import { HomeRoute } from './routes/HomeRoute';
import { LoginRoute } from './routes/LoginRoute';
import { OidcCallbackRoute } from './routes/OidcCallbackRoute';
import { ShellRoute } from './routes/ShellRoute';
import { useAppServices } from './services';

/** A view loaded on demand, whose code can be asked for before it first renders. */
interface LazyView {
  readonly View: LazyExoticComponent<ComponentType>;
  preload(): Promise<unknown>;
}

function lazyView(load: () => Promise<{ default: ComponentType }>): LazyView {
  let loading: Promise<{ default: ComponentType }> | null = null;
  const once = () => (loading ??= load());
  return { View: lazy(once), preload: once };
}

// Everything but the shell, home, login and the sign-in callbacks loads on demand, so that the
// first page stays within its size budget; the admin area above all. A guarded view's code is
// asked for as soon as its route matches, beside the sign-in check rather than after it: on a
// reload of a game's page that saved the 0.4 s its chunks took to arrive.
const AboutView = lazyView(() => import('../views/about/AboutView'));
const NotFoundView = lazyView(() => import('../views/notFound/NotFoundView'));
const ObserveRoute = lazyView(() => import('./routes/GamespaceBrowserRoute'));
const WallRoute = lazyView(() => import('./routes/WallRoute'));
const GamespaceRoute = lazyView(() => import('./routes/GamespaceRoute'));
const GamespaceInvitationRoute = lazyView(() => import('./routes/GamespaceInvitationRoute'));
const WorkspaceInvitationRoute = lazyView(() => import('./routes/WorkspaceInvitationRoute'));
const WorkspaceRoute = lazyView(() => import('./routes/WorkspaceRoute'));
const AdminRoute = lazyView(() => import('./routes/AdminRoute'));
const ProfileRoute = lazyView(() => import('./routes/ProfileRoute'));
// The console page carries noVNC, which no other page needs.
const ConsoleRoute = lazyView(() => import('./routes/ConsoleRoute'));
// A console recording's replay carries noVNC too.
const ReplayRoute = lazyView(() => import('./routes/ReplayRoute'));
// A workspace's results table (observers).
const ResultsRoute = lazyView(() => import('./routes/ResultsRoute'));
// The pages of launch links (TopoMojo's launchpoint and console links), signed in by a ticket.
const LaunchRoute = lazyView(() => import('./routes/LaunchRoute'));
const LaunchConsoleRoute = lazyView(() => import('./routes/LaunchConsoleRoute'));

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

function Guarded({
  role,
  denied,
  children,
}: {
  role?: RouteRole;
  denied?: ReactNode;
  children: ReactNode;
}) {
  const { auth } = useAppServices();
  return (
    <RouteGuard auth={auth} role={role} denied={denied}>
      {children}
    </RouteGuard>
  );
}

/** Asks for a view's code once its route is on screen, whatever else the route waits for. */
function Preload({ view }: { view: LazyView }) {
  useEffect(() => {
    // A chunk that fails to load fails the view's own render too, which shows it.
    view.preload().catch(() => undefined);
  }, [view]);
  return null;
}

const framed = (View: ComponentType) => (
  <RouteFrame>
    <View />
  </RouteFrame>
);

const guarded = (view: LazyView, role?: RouteRole, denied?: ReactNode) => (
  <RouteFrame>
    <Preload view={view} />
    <Guarded role={role} denied={denied}>
      <view.View />
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
    { path: '/lp', element: framed(LaunchRoute.View) },
    { path: '/mks', element: framed(LaunchConsoleRoute.View) },
    { path: '/c', element: framed(LaunchConsoleRoute.View) },
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
        { path: 'about', element: framed(AboutView.View) },
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
        { path: 'observe/wall', element: guarded(WallRoute, 'observer') },
        {
          path: 'observe/replay/:gamespaceId/:recordingId',
          // A replay's address is handed around: who may not watch it is told so, not sent home.
          element: guarded(ReplayRoute, 'observer', <ReplayDenied />),
        },
        { path: 'observe/results/:workspaceId', element: guarded(ResultsRoute, 'observer') },
        { path: 'admin', element: guarded(AdminRoute, 'admin') },
        { path: 'admin/:section', element: guarded(AdminRoute, 'admin') },
        { path: '*', element: framed(NotFoundView.View) },
      ],
    },
  ];
}

export function createAppRouter(deps: RouteDependencies) {
  return createBrowserRouter(appRoutes(deps));
}
