// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createActor,
  fromCallback,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
  type EventObject,
  type Subscribable,
} from 'xstate';
import {
  authTokenMachine,
  TOKEN_DEBOUNCE_MS,
  type AuthTokenEvent,
  type AuthUser,
  type Profile,
} from '../../machines/authTokenMachine';
import { selectIsSigningOut } from '../../machines/authTokenMachine.selectors';
import { hubChannelMachine } from '../../machines/hubChannelMachine';
import { hubConnectorMachine } from '../../machines/hubConnectorMachine';
import {
  hubConnectionMachine,
  type HubConnectionEvent,
  type HubInvocation,
} from '../../machines/hubConnectionMachine';
import { hubOutboxMachine } from '../../machines/hubOutboxMachine';
import { sidebarMachine } from '../../machines/sidebarMachine';
import { silentRenewMachine } from '../../machines/silentRenewMachine';
import { userRegistrationMachine } from '../../machines/userRegistrationMachine';
import { workspaceBrowserMachine } from '../../machines/workspaceBrowserMachine';
import { Shell } from './Shell';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const USER: AuthUser = {
  accessToken: 'token',
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
};

const profile = (roles: Partial<Profile>): Profile => ({
  id: 'u-1',
  name: 'Ada',
  role: 'user',
  isAdmin: false,
  isObserver: false,
  isCreator: false,
  isBuilder: false,
  ...roles,
});

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A settled session: signed out, or signed in with `roles`. */
async function session(roles: Partial<Profile> | null) {
  const clock = new SimulatedClock();
  const initial: AuthTokenEvent = roles
    ? { type: 'user.loaded', user: USER }
    : { type: 'user.unloaded' };
  const auth = createActor(
    authTokenMachine.provide({
      actors: {
        userEvents: fromCallback<EventObject>(({ sendBack }) => sendBack(initial)),
        registration: userRegistrationMachine.provide({
          actors: {
            registerUser: fromPromise<Profile, { user: AuthUser }>(async () =>
              profile(roles ?? {}),
            ),
          },
        }),
        logout: fromPromise<void, void>(() => new Promise<void>(() => undefined)),
        silentRenew: silentRenewMachine.provide({
          actors: { renewSilently: fromPromise<void, void>(async () => undefined) },
        }),
      },
      actions: {
        rememberUrl: () => undefined,
        navigateHome: () => undefined,
        clearUser: () => undefined,
      },
    }),
    { clock },
  ).start();
  clock.increment(TOKEN_DEBOUNCE_MS);
  await flush();
  return auth;
}

/** A hub connection whose attempts succeed; `lose()` drops the current connection. */
function connectingHub() {
  let lose: ((event: HubConnectionEvent) => void) | undefined;
  const hub = createActor(
    hubConnectionMachine.provide({
      actors: {
        connector: hubConnectorMachine.provide({
          actors: { openConnection: fromPromise<string, void>(async () => 'c1') },
        }),
        watchConnection: fromCallback<EventObject, { connectionId: string }>(({ sendBack }) => {
          lose = sendBack;
        }),
        closeConnection: fromPromise<void, { connectionId: string }>(async () => undefined),
        outbox: hubOutboxMachine.provide({
          actors: {
            invoke: fromPromise<unknown, HubInvocation & { connectionId: string }>(
              async () => undefined,
            ),
          },
        }),
        hubChannel: hubChannelMachine,
      },
    }),
    // The reconnect waits on this clock, which never advances: a lost connection stays lost.
    { clock: new SimulatedClock() },
  ).start();
  return { hub, lose: () => lose?.({ type: 'hub.connectionLost', error: null }) };
}

/** Events that never come: the shell tests look at the browser only while signed out. */
const silence = <E,>(): Subscribable<E> =>
  ({ subscribe: () => ({ unsubscribe: () => undefined }) }) as unknown as Subscribable<E>;

/** A browser that stays signed out and fetches nothing (WorkspaceBrowser.test covers the rest). */
const signedOutBrowser = () =>
  createActor(
    workspaceBrowserMachine.provide({
      actors: {
        watchSession: fromEventObservable(() =>
          silence<{ type: 'session.started' | 'session.ended' }>(),
        ),
        watchSidebar: fromEventObservable(() =>
          silence<{ type: 'browser.shown' | 'browser.hidden' }>(),
        ),
      },
      actions: { rememberMode: () => undefined },
    }),
    { input: {} },
  ).start();

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

async function renderShell(roles: Partial<Profile> | null) {
  const auth = await session(roles);
  const { hub, lose } = connectingHub();
  const sidebar = createActor(sidebarMachine).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () =>
    root?.render(
      <MemoryRouter>
        <Shell
          appname="Topoplay"
          auth={auth}
          hub={hub}
          sidebar={sidebar}
          browser={signedOutBrowser()}
          uploadEnabled={false}
        >
          <p>page</p>
        </Shell>
      </MemoryRouter>,
    ),
  );
  const el = container;
  const byName = (selector: string, name: string) =>
    [...el.querySelectorAll<HTMLElement>(selector)].find(
      (node) => (node.getAttribute('aria-label') ?? node.textContent?.trim()) === name,
    );
  const topbar = () =>
    [
      ...el.querySelectorAll<HTMLElement>(
        'nav[aria-label="Main"] a, nav[aria-label="Main"] button',
      ),
    ].map((node) => node.textContent?.trim());
  const panel = () => el.querySelector<HTMLElement>('nav[aria-label="Workspace browser"]');
  const banner = () =>
    [...el.querySelectorAll<HTMLElement>('[role="alert"]')].find((node) =>
      node.textContent?.includes('Attempting re-connection...'),
    );
  const connect = async () => {
    await act(async () => {
      hub.send({ type: 'hub.startRequested' });
      await flush();
    });
  };
  const loseConnection = async () => act(async () => lose());
  return { auth, hub, sidebar, byName, topbar, panel, el, banner, connect, loseConnection };
}

describe('Shell', () => {
  it('offers Home and About to signed-out users, and asks them to sign in in the sidebar', async () => {
    const { topbar, panel, byName } = await renderShell(null);
    expect(topbar()).toEqual(['Home', 'About']);
    expect(panel()?.dataset.state).toBe('collapsed');
    await act(async () => byName('button', 'Pin sidebar')?.click());
    expect(panel()?.dataset.state).toBe('expanded');
    expect(panel()?.textContent).toContain('Sign in to browse workspaces.');
  });

  it('adds Admin and Logout for administrators', async () => {
    const { topbar } = await renderShell({ isAdmin: true, isObserver: true });
    expect(topbar()).toEqual(['Home', 'About', 'Admin', 'Ada Administrator', 'Logout']);
  });

  it('adds Observe for observers who are not administrators', async () => {
    const { topbar } = await renderShell({ isObserver: true });
    expect(topbar()).toEqual(['Home', 'About', 'Observe', 'Ada Observer', 'Logout']);
  });

  it('names the signed-in user and its role, as the link to the profile (issue 29)', async () => {
    const { el } = await renderShell({});
    const link = el.querySelector<HTMLAnchorElement>('nav[aria-label="Main"] a[href="/profile"]');
    expect(link?.textContent?.trim()).toBe('Ada User');
  });

  it('logs out with the Logout button', async () => {
    const { auth, byName } = await renderShell({});
    await act(async () => byName('button', 'Logout')?.click());
    expect(selectIsSigningOut(auth.getSnapshot())).toBe(true);
  });

  it('shows the reconnection banner while a signed-in user has lost the hub connection', async () => {
    const { banner, connect, loseConnection } = await renderShell({});
    expect(banner()).toBeUndefined();
    await connect();
    expect(banner()).toBeUndefined();
    await loseConnection();
    expect(banner()).toBeDefined();
  });

  it('hides the reconnection banner once the session ends', async () => {
    const { auth, banner, connect, loseConnection } = await renderShell({});
    await connect();
    await loseConnection();
    await act(async () => auth.send({ type: 'logout.requested' }));
    expect(banner()).toBeUndefined();
  });

  it('expands the sidebar on hover and collapses it when the pointer leaves', async () => {
    const { panel } = await renderShell(null);
    const nav = panel();
    await act(async () => {
      nav?.dispatchEvent(
        new MouseEvent('mouseover', { bubbles: true, relatedTarget: document.body }),
      );
    });
    expect(panel()?.dataset.state).toBe('expanded');
    await act(async () => {
      nav?.dispatchEvent(
        new MouseEvent('mouseout', { bubbles: true, relatedTarget: document.body }),
      );
    });
    expect(panel()?.dataset.state).toBe('collapsed');
  });

  it('pins the sidebar from the keyboard: the pin button is a real, named toggle button', async () => {
    const { byName } = await renderShell(null);
    const pin = byName('button', 'Pin sidebar');
    expect(pin?.tagName).toBe('BUTTON');
    expect(pin?.getAttribute('aria-pressed')).toBe('false');
    await act(async () => pin?.click());
    expect(byName('button', 'Pin sidebar')?.getAttribute('aria-pressed')).toBe('true');
  });
});
