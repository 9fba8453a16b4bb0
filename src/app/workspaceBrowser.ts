import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { map } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { fromTaskEither } from '../api/actor';
import { listGamespaces, type Gamespace } from '../api/gamespaces';
import type { HttpClient } from '../api/http';
import { listWorkspaces, type WorkspaceSummary } from '../api/workspaces';
import { isUnsetDate } from '../domain/time';
import type { AuthTokenActorRef } from '../machines/authTokenMachine';
import { selectIsAuthenticated } from '../machines/authTokenMachine.selectors';
import type { PageQuery } from '../machines/pagedSearchMachine';
import type { SidebarActorRef } from '../machines/sidebarMachine';
import { selectIsSidebarExpanded } from '../machines/sidebarMachine.selectors';
import {
  gamespaceSearchMachine,
  isBrowseMode,
  workspaceSearchMachine,
  type BrowseMode,
  type GamespaceCard,
  type WorkspaceBrowserInput,
  type workspaceBrowserMachine,
  type WorkspaceCard,
} from '../machines/workspaceBrowserMachine';
import { sessionEvents$, visibilityEvents$, workspaceChanges$ } from '../streams/browser';
import { clockTicks$ } from '../streams/clock';
import { snapshots$, type HubEventSource } from '../streams/hub';
import type { LocalSettingsStore } from './localSettings';

export const toWorkspaceCard = (workspace: WorkspaceSummary): WorkspaceCard => ({
  id: workspace.id,
  name: workspace.name ?? '',
  slug: workspace.slug ?? '',
});

/** Unset dates ('0001-…') mean not started and no expiry (wire reference §0). */
export const toGamespaceCard = (gamespace: Gamespace): GamespaceCard => ({
  id: gamespace.id,
  workspaceId: gamespace.workspaceId ?? null,
  name: gamespace.name ?? '',
  slug: gamespace.slug ?? '',
  started: !isUnsetDate(gamespace.startTime),
  expiresAt:
    gamespace.expirationTime && !isUnsetDate(gamespace.expirationTime)
      ? Date.parse(gamespace.expirationTime)
      : null,
});

/** The browse mode remembered in local settings, if it is one this version knows. */
export const rememberedBrowseMode = (local: LocalSettingsStore): WorkspaceBrowserInput => {
  const { browseMode } = local.read();
  return isBrowseMode(browseMode) ? { mode: browseMode } : {};
};

export interface WorkspaceBrowserDependencies {
  http: HttpClient;
  auth: AuthTokenActorRef;
  sidebar: SidebarActorRef;
  /** Server events of the hub connection, whichever connection is open. */
  hubEvents: HubEventSource;
  local: LocalSettingsStore;
}

type WorkspaceBrowserImplementations = Parameters<typeof workspaceBrowserMachine.provide>[0];

/** The sidebar browser's effects: the session, the sidebar, the hub, the clock and the API. */
export function workspaceBrowserImplementations(
  deps: WorkspaceBrowserDependencies,
): WorkspaceBrowserImplementations {
  const { http, auth, sidebar, hubEvents, local } = deps;
  return {
    actors: {
      watchSession: fromEventObservable(() =>
        sessionEvents$(snapshots$(auth).pipe(map(selectIsAuthenticated))),
      ),
      watchSidebar: fromEventObservable(() =>
        visibilityEvents$(snapshots$(sidebar).pipe(map(selectIsSidebarExpanded))),
      ),
      watchWorkspaceChanges: fromEventObservable(() => workspaceChanges$(hubEvents)),
      clock: fromEventObservable(() => clockTicks$()),
      workspaceSearch: workspaceSearchMachine.provide({
        actors: {
          fetchPage: fromTaskEither((query: PageQuery, signal) =>
            pipe(
              listWorkspaces(http)(query, signal),
              TE.map((workspaces) => workspaces.map(toWorkspaceCard)),
            ),
          ),
        },
      }),
      gamespaceSearch: gamespaceSearchMachine.provide({
        actors: {
          fetchPage: fromTaskEither((query: PageQuery, signal) =>
            pipe(
              listGamespaces(http)(query, signal),
              TE.map((gamespaces) => gamespaces.map(toGamespaceCard)),
            ),
          ),
        },
      }),
    },
    actions: {
      rememberMode: (_, { mode }: { mode: BrowseMode }) => local.update({ browseMode: mode }),
    },
  };
}
