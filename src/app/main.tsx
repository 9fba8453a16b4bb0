import 'primereact/resources/themes/lara-light-blue/theme.css';
import 'primereact/resources/primereact.min.css';
import './app.css';
import './accessibility.css';

import { Log } from 'oidc-client-ts';
import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router/dom';
import * as E from 'fp-ts/Either';
import { delayWhen, distinctUntilChanged, filter, map, ReplaySubject, take } from 'rxjs';
import { createActor } from 'xstate';
import { apiBaseUrl, createHttpClient } from '../api/http';
import { createIsoUploader } from '../api/isoUpload';
import { getTicket } from '../api/user';
import { HOME_ITSELF } from '../domain/homePage';
import { announcementsMachine } from '../machines/announcementsMachine';
import { authTokenMachine } from '../machines/authTokenMachine';
import {
  selectIsAuthenticated,
  selectProfile,
  selectTokenState,
  selectUser,
} from '../machines/authTokenMachine.selectors';
import { hubConnectionMachine } from '../machines/hubConnectionMachine';
import { sidebarMachine } from '../machines/sidebarMachine';
import { workspaceBrowserMachine } from '../machines/workspaceBrowserMachine';
import { userChannelRequests$ } from '../streams/browser';
import { snapshots$, tokenTransitions$ } from '../streams/hub';
import { hotkeys$ } from '../streams/keyboard';
import { AppNameContext } from '../views/common/useTitle';
import { announcementsImplementations } from './announcements';
import { authorizationOf, authTokenImplementations, createUserManager } from './auth';
import { createEventLog } from './eventLog';
import { createHubAdapter, hubUrl } from './hub';
import { createLocalSettings, restorePendingCookie } from './localSettings';
import { createAppRouter } from './router';
import { AppServicesContext, machineImplementations, type AppServices } from './services';
import { loadSettings } from './settings';
import { rememberedBrowseMode, workspaceBrowserImplementations } from './workspaceBrowser';

/** How many events the in-memory event log keeps (oldest dropped first). */
const EVENT_LOG_CAPACITY = 2_000;

/** The page the silent-renew iframe loads: it completes the renew and nothing else. */
const SILENT_CALLBACK_PATH = '/oidc-silent';

const currentUrl = () =>
  `${window.location.pathname}${window.location.search}${window.location.hash}`;

async function start(container: HTMLElement): Promise<void> {
  const settings = await loadSettings(window.location.origin);
  // On `/` the server sends the home page already rendered (src/app/prerender.tsx), and React
  // takes it over by comparing its own render with it, the route's part last and when the page is
  // idle. That render must be the one the page was made from: with the session settled meanwhile
  // (a slow device, a busy machine) it differs, and React throws the page away and renders it
  // anew (error #418, the title flickers). So the session check starts, and shortcuts reach the
  // sidebar, once the page is React's (`routeShown`); at once on any other page.
  const hydrating = container.hasChildNodes();
  const pageShown = new ReplaySubject<void>(1);
  if (!hydrating) pageShown.next();
  if (settings.oidc.debug) {
    Log.setLogger(console);
    Log.setLevel(Log.DEBUG);
  }

  const local = createLocalSettings(
    window.localStorage,
    window.location.host,
    restorePendingCookie(document),
  );
  const eventLog = createEventLog({ capacity: EVENT_LOG_CAPACITY });
  const userManager = createUserManager(settings.oidc);

  // Effects navigate through the router, which is created once the services exist.
  const navigate = (to: string) => void router.navigate(to);

  const http = createHttpClient({
    baseUrl: apiBaseUrl(settings.apphost),
    authorization: () => {
      const user = selectUser(auth.getSnapshot());
      return user ? authorizationOf(user) : undefined;
    },
  });

  const auth = createActor(
    authTokenMachine.provide(
      authTokenImplementations({
        userManager,
        http,
        postLogoutRedirectUri: settings.oidc.post_logout_redirect_uri,
        rememberCurrentUrl: () => local.rememberLast(currentUrl()),
        navigate,
      }),
    ),
    { systemId: 'authToken', inspect: eventLog.inspect },
  );
  const sidebar = createActor(sidebarMachine, { systemId: 'sidebar', inspect: eventLog.inspect });

  const hubAdapter = createHubAdapter({
    url: hubUrl(settings.apphost),
    ticket: async (signal) => {
      const result = await getTicket(http)(signal)();
      // An Error, so that the hub client's log says why ('Failed to fetch', 'Unauthorized').
      if (E.isLeft(result)) throw new Error(result.left.message);
      return result.right.ticket;
    },
  });
  const hub = createActor(hubConnectionMachine.provide(hubAdapter.implementations), {
    systemId: 'hubConnection',
    inspect: eventLog.inspect,
  });
  const announcements = createActor(
    announcementsMachine.provide(announcementsImplementations(hubAdapter.events)),
    { systemId: 'announcements', inspect: eventLog.inspect },
  );
  const browser = createActor(
    workspaceBrowserMachine.provide(
      workspaceBrowserImplementations({ http, auth, sidebar, hubEvents: hubAdapter.events, local }),
    ),
    { systemId: 'workspaceBrowser', input: rememberedBrowseMode(local), inspect: eventLog.inspect },
  );
  // What the user creates, clones, deletes or joins in this tab shows in the sidebar at once,
  // hub or no hub; other tabs and other people's changes come through the user's channel.
  const announceWorkspacesChanged = () => browser.send({ type: 'workspaces.changed' });

  const services: AppServices = {
    settings,
    auth,
    hub,
    sidebar,
    browser,
    announcements,
    local,
    eventLog,
    inspect: eventLog.inspect,
    routeShown: () => pageShown.next(),
    implementations: machineImplementations({
      http,
      userManager,
      auth,
      hub,
      hubEvents: hubAdapter.events,
      local,
      navigate,
      announceWorkspacesChanged,
    }),
    workspace: {
      http,
      apphost: settings.apphost,
      hub,
      hubEvents: hubAdapter.events,
      local,
      navigate,
      clipboard: navigator.clipboard,
      hubInvoke: hubAdapter.invoke,
      announceWorkspacesChanged,
      uploadIso: createIsoUploader({
        baseUrl: apiBaseUrl(settings.apphost),
        authorization: () => {
          const user = selectUser(auth.getSnapshot());
          return user ? authorizationOf(user) : undefined;
        },
      }),
    },
  };
  const router = createAppRouter({ local, uploadEnabled: settings.enable_upload });

  hotkeys$(document)
    .pipe(delayWhen(() => pageShown))
    .subscribe((intent) => {
      switch (intent.type) {
        case 'sidebar.openRequested':
          // Ctrl+O opens the sidebar with the focus in its search box (spec §2 Shell).
          sidebar.send(intent);
          browser.send({ type: 'search.focusRequested' });
          break;
        case 'sidebar.toggleRequested':
          sidebar.send(intent);
          break;
        case 'navigation.homeRequested':
          navigate(HOME_ITSELF);
          break;
        case 'navigation.sectionRequested': {
          // Section shortcuts mean something only inside a workspace.
          const workspace = /^\/topo\/([^/]+)\//.exec(router.state.location.pathname);
          if (workspace) navigate(`/topo/${workspace[1]}/${intent.section}`);
          break;
        }
      }
    });

  sidebar.start();
  browser.start();
  announcements.start();
  hub.start();
  // In the silent-renew iframe the session belongs to the parent page: starting a second
  // authToken actor there would register the user again and race the parent over the store,
  // and a second hub connection would only duplicate the parent's.
  if (window.location.pathname !== SILENT_CALLBACK_PATH) {
    // The hub connects with the session and disconnects when it ends (spec §4).
    tokenTransitions$(snapshots$(auth).pipe(map(selectTokenState))).subscribe((event) =>
      hub.send(event),
    );
    // Announcements were for the session that heard them.
    snapshots$(auth)
      .pipe(
        map(selectIsAuthenticated),
        distinctUntilChanged(),
        filter((signedIn) => !signedIn),
      )
      .subscribe(() => announcements.send({ type: 'session.ended' }));
    userChannelRequests$(
      snapshots$(auth).pipe(map((snapshot) => selectProfile(snapshot)?.id ?? null)),
    ).subscribe((event) => hub.send(event));
    pageShown.pipe(take(1)).subscribe(() => auth.start());
  }

  const app = (
    <StrictMode>
      <AppServicesContext value={services}>
        <AppNameContext value={settings.appname}>
          <RouterProvider router={router} />
        </AppNameContext>
      </AppServicesContext>
    </StrictMode>
  );
  // The prerendered page: React takes over its elements as they are, so what was painted stays in
  // place. Other pages start empty.
  if (hydrating) hydrateRoot(container, app);
  else createRoot(container).render(app);
}

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
void start(container);
