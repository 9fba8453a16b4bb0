import { StrictMode } from 'react';
import { renderToString } from 'react-dom/server';
import {
  createStaticHandler,
  createStaticRouter,
  StaticRouterProvider,
  type StaticHandlerContext,
} from 'react-router';
import { createActor } from 'xstate';
import { createHttpClient } from '../api/http';
import { createIsoUploader } from '../api/isoUpload';
import { APP_NAME_SLOT } from '../domain/homePage';
import { announcementsMachine } from '../machines/announcementsMachine';
import { authTokenMachine } from '../machines/authTokenMachine';
import { hubConnectionMachine } from '../machines/hubConnectionMachine';
import { sidebarMachine } from '../machines/sidebarMachine';
import { workspaceBrowserMachine } from '../machines/workspaceBrowserMachine';
import { AppNameContext, pageTitle } from '../views/common/useTitle';
import { createEventLog } from './eventLog';
import { createHubAdapter } from './hub';
import { createLocalSettings } from './localSettings';
import { appRoutes } from './router';
import { AppServicesContext, type AppServices } from './services';
import { defaultSettings } from './settings';

export { HOME_PAGE_FILE } from '../domain/homePage';

// The home page rendered at build time (scripts/prerender.mjs), so that a visitor's browser
// paints it from the HTML while the scripts load; main.tsx then hydrates it. It is what the app
// itself renders first on `/`: the shell, and home's title above the session check, whoever the
// visitor is (the check settles in the browser). The application's name is left as a slot that
// the server fills from its configuration, the same name it writes into settings.json.

/** A Storage that holds nothing: no page to go back to, no remembered browse mode. */
const emptyStorage: Storage = {
  length: 0,
  clear: () => undefined,
  getItem: () => null,
  key: () => null,
  removeItem: () => undefined,
  setItem: () => undefined,
};

/**
 * The services as main.tsx builds them, with actors that are never started: rendering reads their
 * first snapshots only, so no effect runs and none needs its real implementation.
 */
function inertServices(): AppServices {
  const settings = { ...defaultSettings(''), appname: APP_NAME_SLOT };
  const local = createLocalSettings(emptyStorage, '');
  const eventLog = createEventLog();
  const http = createHttpClient({ baseUrl: '', authorization: () => undefined });
  const hubAdapter = createHubAdapter({
    url: '',
    ticket: () => Promise.reject(new Error('The prerendered page has no hub')),
  });
  const hub = createActor(hubConnectionMachine);
  const announceWorkspacesChanged = () => undefined;
  return {
    settings,
    auth: createActor(authTokenMachine),
    hub,
    sidebar: createActor(sidebarMachine),
    browser: createActor(workspaceBrowserMachine, { input: {} }),
    announcements: createActor(announcementsMachine),
    local,
    eventLog,
    inspect: eventLog.inspect,
    implementations: {
      login: {},
      oidcCallback: {},
      oidcSilentCallback: {},
      newWorkspace: {},
      workspaceInvitation: {},
    },
    routeShown: () => undefined,
    workspace: {
      http,
      apphost: '',
      hub,
      hubEvents: hubAdapter.events,
      local,
      navigate: () => undefined,
      clipboard: { writeText: () => Promise.resolve() },
      hubInvoke: hubAdapter.invoke,
      announceWorkspacesChanged,
      uploadIso: createIsoUploader({ baseUrl: '', authorization: () => undefined }),
    },
  };
}

/** The markup of `/` as the app's first render in the browser makes it. */
export async function renderHome(): Promise<string> {
  const services = inertServices();
  const handler = createStaticHandler(
    appRoutes({ local: services.local, uploadEnabled: services.settings.enable_upload }),
  );
  const context = await handler.query(new Request('http://localhost/'));
  if (context instanceof Response) throw new Error(`prerender: / answered ${context.status}`);
  const router = createStaticRouter(handler.dataRoutes, context as StaticHandlerContext);
  return renderToString(
    <StrictMode>
      <AppServicesContext value={services}>
        <AppNameContext value={services.settings.appname}>
          <StaticRouterProvider router={router} context={context} hydrate={false} />
        </AppNameContext>
      </AppServicesContext>
    </StrictMode>,
  );
}

/** index.html with home's markup in its root element and home's title. */
export async function renderHomePage(indexHtml: string): Promise<string> {
  const root = '<div id="root"></div>';
  if (!indexHtml.includes(root)) throw new Error(`prerender: index.html has no ${root}`);
  const title = /<title>[^<]*<\/title>/;
  if (!title.test(indexHtml)) throw new Error('prerender: index.html has no <title>');
  const markup = await renderHome();
  return indexHtml
    .replace(title, () => `<title>${pageTitle(APP_NAME_SLOT, ['Home'])}</title>`)
    .replace(root, () => `<div id="root">${markup}</div>`);
}
