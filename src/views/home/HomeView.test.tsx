// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock, type EventObject } from 'xstate';
import {
  authTokenMachine,
  TOKEN_DEBOUNCE_MS,
  type AuthUser,
  type Profile,
} from '../../machines/authTokenMachine';
import { newWorkspaceMachine } from '../../machines/newWorkspaceMachine';
import { sidebarMachine } from '../../machines/sidebarMachine';
import { silentRenewMachine } from '../../machines/silentRenewMachine';
import { userRegistrationMachine } from '../../machines/userRegistrationMachine';
import { HomeView } from './HomeView';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

const USER: AuthUser = {
  accessToken: 'token',
  tokenType: 'Bearer',
  expiresAt: null,
  profile: { sub: 'u-1', name: 'Ada' },
};

const PROFILE: Profile = {
  id: 'u-1',
  name: 'Ada',
  role: 'user',
  isAdmin: false,
  isObserver: false,
  isCreator: true,
  isBuilder: false,
};

const flush = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

/** A signed-in session whose logout, once asked for, never finishes (it left the page). */
async function signedIn() {
  const clock = new SimulatedClock();
  const auth = createActor(
    authTokenMachine.provide({
      actors: {
        userEvents: fromCallback<EventObject>(({ sendBack }) =>
          sendBack({ type: 'user.loaded', user: USER }),
        ),
        registration: userRegistrationMachine.provide({
          actors: {
            registerUser: fromPromise<Profile, { user: AuthUser }>(async () => PROFILE),
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

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

describe('HomeView', () => {
  it('shows the logout under way, not a login prompt, until the page leaves for the sign-out', async () => {
    const auth = await signedIn();
    const el = document.createElement('div');
    container = el;
    document.body.append(el);
    root = createRoot(el);
    await act(async () =>
      root?.render(
        <HomeView
          appname="Topoplay"
          auth={auth}
          sidebar={createActor(sidebarMachine).start()}
          newWorkspace={createActor(newWorkspaceMachine).start()}
          loginPrompt={<button type="button">Login with the identity provider</button>}
        />,
      ),
    );
    expect(el.textContent).toContain('Getting Started');

    await act(async () => auth.send({ type: 'logout.requested' }));
    expect(el.querySelector('[role="status"]')?.getAttribute('aria-label')).toBe('Signing out');
    expect(el.textContent).not.toContain('Login with');
    expect(el.textContent).not.toContain('Getting Started');
  });

  it("shows the user's own games below Getting Started only while signed in", async () => {
    const auth = await signedIn();
    const el = document.createElement('div');
    container = el;
    document.body.append(el);
    root = createRoot(el);
    await act(async () =>
      root?.render(
        <HomeView
          appname="Topoplay"
          auth={auth}
          sidebar={createActor(sidebarMachine).start()}
          newWorkspace={createActor(newWorkspaceMachine).start()}
          loginPrompt={<button type="button">Login with the identity provider</button>}
          history={<section aria-label="Your games">games</section>}
        />,
      ),
    );
    expect(el.querySelector('[aria-label="Your games"]')).not.toBeNull();
    await act(async () => auth.send({ type: 'logout.requested' }));
    expect(el.querySelector('[aria-label="Your games"]')).toBeNull();
  });
});
