import { createContext, useContext } from 'react';
import type { UserManager } from 'oidc-client-ts';
import * as E from 'fp-ts/Either';
import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { fromPromise, waitFor, type ActorOptions, type AnyActorLogic } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { HttpClient } from '../api/http';
import { createWorkspace, NEW_WORKSPACE_NAME } from '../api/workspace';
import { redeemWorkspaceInvitation } from '../api/workspaces';
import type { AnnouncementsActorRef } from '../machines/announcementsMachine';
import type { AuthTokenActorRef } from '../machines/authTokenMachine';
import { selectIsAuthenticated } from '../machines/authTokenMachine.selectors';
import type { HubConnectionActorRef } from '../machines/hubConnectionMachine';
import type { loginMachine } from '../machines/loginMachine';
import type { newWorkspaceMachine } from '../machines/newWorkspaceMachine';
import type { oidcCallbackMachine } from '../machines/oidcCallbackMachine';
import type { SidebarActorRef } from '../machines/sidebarMachine';
import type { WorkspaceBrowserActorRef } from '../machines/workspaceBrowserMachine';
import type {
  JoinedWorkspace,
  workspaceInvitationMachine,
} from '../machines/workspaceInvitationMachine';
import type { HubEventSource } from '../streams/hub';
import type { EventLog } from './eventLog';
import type { LocalSettingsStore } from './localSettings';
import type { AppSettings } from './settings';
import type { WorkspaceDependencies } from './workspaceImplementations';

type Implementations<T extends { provide: (...args: never[]) => unknown }> = Parameters<
  T['provide']
>[0];

/** The effects of the route-level machines, built once from the real dependencies. */
export interface MachineImplementations {
  login: Implementations<typeof loginMachine>;
  oidcCallback: Implementations<typeof oidcCallbackMachine>;
  oidcSilentCallback: Implementations<typeof oidcCallbackMachine>;
  newWorkspace: Implementations<typeof newWorkspaceMachine>;
  workspaceInvitation: Implementations<typeof workspaceInvitationMachine>;
}

/** Everything route containers need; views receive only actor refs and plain values. */
export interface AppServices {
  settings: AppSettings;
  auth: AuthTokenActorRef;
  /** The real-time hub connection (systemId `hubConnection`). */
  hub: HubConnectionActorRef;
  sidebar: SidebarActorRef;
  /** The workspace browser in the sidebar (systemId `workspaceBrowser`). */
  browser: WorkspaceBrowserActorRef;
  /** Administrators' announcements heard on the hub (systemId `announcements`). */
  announcements: AnnouncementsActorRef;
  local: LocalSettingsStore;
  eventLog: EventLog;
  /** Records every event of the actors it is given to in the event log. */
  inspect: NonNullable<ActorOptions<AnyActorLogic>['inspect']>;
  implementations: MachineImplementations;
  /**
   * Called by each route once its content is on screen. For the home page the server sent
   * already rendered, that is once React has taken the page over (hydrated it), which main.tsx
   * waits for before the session check may change what the page shows.
   */
  routeShown: () => void;
  /**
   * What the workspace editor's effects are built from; they are built by the lazily loaded
   * workspace route (src/app/workspaceImplementations.ts), so that they stay out of the first page.
   */
  workspace: WorkspaceDependencies;
}

export const AppServicesContext = createContext<AppServices | null>(null);

export function useAppServices(): AppServices {
  const services = useContext(AppServicesContext);
  if (!services) throw new Error('useAppServices: no AppServicesContext provider');
  return services;
}

/** A sign-in that takes longer than this to become a session is reported as failed. */
const SESSION_WAIT_MS = 10_000;

export interface ImplementationDependencies {
  http: HttpClient;
  userManager: UserManager;
  auth: AuthTokenActorRef;
  hub: HubConnectionActorRef;
  /** Server events of the hub connection, whichever connection is open. */
  hubEvents: HubEventSource;
  local: LocalSettingsStore;
  navigate: (to: string) => void;
  /** The user created or joined a workspace: the sidebar's workspace lists refresh. */
  announceWorkspacesChanged: () => void;
}

export function machineImplementations(deps: ImplementationDependencies): MachineImplementations {
  const { http, userManager, auth, navigate, announceWorkspacesChanged } = deps;

  // The callback URL's code can be exchanged once; a second run of the actor (React's strict
  // effects, or returning to the page) shares the first exchange instead of failing on it.
  let signin: Promise<string | null> | null = null;
  const completeRedirectSignin = () => {
    signin ??= (async () => {
      const user = await userManager.signinRedirectCallback();
      // Guarded targets need the session settled (the token state is debounced).
      await waitFor(auth, selectIsAuthenticated, { timeout: SESSION_WAIT_MS });
      return typeof user.state === 'string' ? user.state : null;
    })();
    return signin;
  };

  // Redeeming runs once per code: React's strict effects restart the page's actor at once, and
  // the restarted actor shares the call in flight rather than aborting it and sending another.
  const redemptions = new Map<string, Promise<JoinedWorkspace>>();
  const redeemOnce = (code: string) => {
    let redemption = redemptions.get(code);
    if (!redemption) {
      redemption = (async () => {
        const result = await redeemWorkspaceInvitation(http)(code, new AbortController().signal)();
        if (E.isLeft(result)) throw result.left;
        return { id: result.right.id };
      })().finally(() => redemptions.delete(code));
      redemptions.set(code, redemption);
    }
    return redemption;
  };

  return {
    login: {
      actors: {
        startLogin: fromPromise<void, { returnUrl: string }>(async ({ input }) => {
          await userManager.signinRedirect({ state: input.returnUrl });
        }),
      },
    },
    oidcCallback: {
      actors: { completeSignin: fromPromise<string | null>(completeRedirectSignin) },
      actions: { navigateToTarget: (_, { url }) => navigate(url) },
    },
    oidcSilentCallback: {
      actors: {
        completeSignin: fromPromise<string | null>(async () => {
          await userManager.signinSilentCallback();
          return null;
        }),
      },
      // The renew iframe is discarded by its parent once notified: running the app's home in it
      // would only consume the parent's remembered page from the shared local settings.
      actions: { navigateToTarget: () => undefined },
    },
    newWorkspace: {
      actors: {
        createWorkspace: fromTaskEither((_: void, signal) =>
          pipe(
            createWorkspace(http)(NEW_WORKSPACE_NAME, signal),
            TE.map((workspace) => ({ id: workspace.id })),
          ),
        ),
      },
      actions: {
        navigateToWorkspace: (_, { workspace }) =>
          navigate(`/topo/${encodeURIComponent(workspace.id)}/settings`),
        announceWorkspacesChanged,
      },
    },
    workspaceInvitation: {
      actors: {
        redeemInvitation: fromPromise<JoinedWorkspace, { code: string }>(({ input }) =>
          redeemOnce(input.code),
        ),
      },
      actions: {
        navigateToWorkspace: (_, { workspace }) =>
          navigate(`/topo/${encodeURIComponent(workspace.id)}/settings`),
        announceWorkspacesChanged,
      },
    },
  };
}
