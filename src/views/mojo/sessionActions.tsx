import { useSelector } from '@xstate/react';
import type {
  GamespaceSessionActorRef,
  SessionAction,
} from '../../machines/gamespaceSessionMachine';
import {
  selectCanDeploy,
  selectCanDestroy,
  selectHasMachines,
  selectIsChangingMachines,
} from '../../machines/gamespaceSessionMachine.selectors';
import { Spinner } from '../common/Spinner';

// The session's action buttons, shared by the play page (/mojo) and the launch page (/lp): each
// sends its request to the session machine, which asks for confirmation with these questions.

export const ACTION_QUESTIONS: Record<SessionAction, string> = {
  start: 'Start the game?',
  end: 'End the game?',
  reset: 'Reset the game? Its machines and answers are deleted.',
  deploy: 'Deploy the machines?',
  destroy: 'Destroy the machines?',
};

const EVENTS = {
  start: 'session.startRequested',
  end: 'session.endRequested',
  reset: 'session.resetRequested',
  deploy: 'session.deployRequested',
  destroy: 'session.destroyRequested',
} as const satisfies Record<SessionAction, string>;

export function ActionButton({
  session,
  action,
  label,
  enabled,
  severity,
}: {
  session: GamespaceSessionActorRef;
  action: SessionAction;
  label: string;
  enabled: boolean;
  severity?: 'danger' | 'secondary';
}) {
  return (
    <button
      type="button"
      className={`p-button p-component p-button-sm${severity ? ` p-button-${severity}` : ''}`}
      disabled={!enabled}
      onClick={() => session.send({ type: EVENTS[action] })}
    >
      {label}
    </button>
  );
}

/** Deploy or Destroy the game's machines, with a spinner while they change. */
export function MachineActions({ session }: { session: GamespaceSessionActorRef }) {
  const hasMachines = useSelector(session, selectHasMachines);
  const canDeploy = useSelector(session, selectCanDeploy);
  const canDestroy = useSelector(session, selectCanDestroy);
  const changing = useSelector(session, selectIsChangingMachines);
  return (
    <div className="tp-actions">
      {hasMachines ? (
        <ActionButton
          session={session}
          action="destroy"
          label="Destroy"
          enabled={canDestroy}
          severity="danger"
        />
      ) : (
        <ActionButton session={session} action="deploy" label="Deploy" enabled={canDeploy} />
      )}
      {changing && <Spinner label={hasMachines ? 'Destroying' : 'Deploying'} />}
    </div>
  );
}
