import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { AuthTokenActorRef } from '../../machines/authTokenMachine';
import {
  selectIsAuthenticated,
  selectIsResolved,
  selectIsSigningOut,
  selectMayCreateWorkspaces,
  selectWorkspaceLimit,
} from '../../machines/authTokenMachine.selectors';
import type { NewWorkspaceActorRef } from '../../machines/newWorkspaceMachine';
import {
  selectCanCreate,
  selectCreateErrors,
  selectIsCreating,
} from '../../machines/newWorkspaceMachine.selectors';
import type { SidebarActorRef } from '../../machines/sidebarMachine';
import { DismissibleAlerts } from '../common/DismissibleAlerts';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import { Icon, piAngleDoubleLeft, piPlus, piSpinner } from '../common/icons';

function GettingStarted({
  auth,
  sidebar,
  newWorkspace,
}: {
  auth: AuthTokenActorRef;
  sidebar: SidebarActorRef;
  newWorkspace: NewWorkspaceActorRef;
}) {
  // New Workspace is offered only to those the server lets create (players are not, by default).
  const mayCreate = useSelector(auth, selectMayCreateWorkspaces);
  const limit = useSelector(auth, selectWorkspaceLimit);
  const creating = useSelector(newWorkspace, selectIsCreating);
  const canCreate = useSelector(newWorkspace, selectCanCreate);
  const errors = useSelector(newWorkspace, selectCreateErrors);

  return (
    <section className="tp-getting-started" aria-labelledby="tp-getting-started">
      <h2 id="tp-getting-started">Getting Started</h2>
      <p>We build in a workspace; then play in a gamespace.</p>
      <div className="tp-actions">
        <button
          type="button"
          className="p-button p-component p-button-outlined p-button-secondary"
          onClick={() => sidebar.send({ type: 'sidebar.openRequested' })}
        >
          <Icon shape={piAngleDoubleLeft} />
          <span>Find A Space</span>
        </button>
        {mayCreate && (
          <button
            type="button"
            className="p-button p-component"
            disabled={!canCreate}
            aria-busy={creating}
            onClick={() => newWorkspace.send({ type: 'workspace.createRequested' })}
          >
            <Icon shape={creating ? piSpinner : piPlus} spin={creating} />
            <span>New Workspace</span>
          </button>
        )}
      </div>
      {mayCreate && limit !== null && (
        <p className="tp-muted tp-small">
          You may manage up to {limit} {limit === 1 ? 'workspace' : 'workspaces'}.
        </p>
      )}
      <DismissibleAlerts
        messages={errors}
        onDismiss={(index) => newWorkspace.send({ type: 'workspace.errorDismissed', index })}
      />
    </section>
  );
}

/** The home page: app name and tagline, then what to do next (spec §2 route ''). */
export function HomeView({
  appname,
  auth,
  sidebar,
  newWorkspace,
  loginPrompt,
  history,
}: {
  appname: string;
  auth: AuthTokenActorRef;
  sidebar: SidebarActorRef;
  newWorkspace: NewWorkspaceActorRef;
  /** Shown to signed-out users; it owns its own login actor. */
  loginPrompt: ReactNode;
  /** The signed-in user's own games, shown below Getting Started. */
  history?: ReactNode;
}) {
  const resolved = useSelector(auth, selectIsResolved);
  const signedIn = useSelector(auth, selectIsAuthenticated);
  const signingOut = useSelector(auth, selectIsSigningOut);
  useTitle('Home');

  return (
    <div className="tp-page tp-home">
      <header className="tp-hero">
        <h1>{appname}</h1>
        <p className="tp-lead">a simple virtual topology builder and player</p>
      </header>
      {!resolved ? (
        <Spinner label="Checking your session" />
      ) : signingOut ? (
        // The logout leaves for the identity provider's sign-out page. A login prompt meanwhile
        // would offer a sign-in that the provider, its session not ended yet, grants at once.
        <Spinner label="Signing out" />
      ) : signedIn ? (
        <>
          <GettingStarted auth={auth} sidebar={sidebar} newWorkspace={newWorkspace} />
          {history}
        </>
      ) : (
        loginPrompt
      )}
    </div>
  );
}
