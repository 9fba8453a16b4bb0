import { useSelector } from '@xstate/react';
import { EXTENSION_MINUTES } from '../../machines/gamespaceActionMachine';
import type {
  GamespaceSessionActorRef,
  SessionAction,
} from '../../machines/gamespaceSessionMachine';
import {
  selectCanDeploy,
  selectCanDestroy,
  selectCanExtend,
  selectConfirmation,
  selectExtendersText,
  selectHasMachines,
  selectIsChangingMachines,
  selectMayManage,
  selectShowsExtend,
  selectTimeWarning,
} from '../../machines/gamespaceSessionMachine.selectors';
import { Icon, piSpinner } from '../common/icons';
import { Spinner } from '../common/Spinner';
import { ConfirmPrompt } from '../topo/ConfirmPrompt';
import './game.css';

// The session's action buttons, shared by the play page (/mojo) and the launch page (/lp): each
// sends its request to the session machine, which asks for confirmation with these questions.

export const ACTION_QUESTIONS: Record<SessionAction, string> = {
  start: 'Start the game?',
  end: 'End the game?',
  reset: 'Reset the game? Its machines and answers are deleted.',
  deploy: 'Deploy the machines?',
  destroy: 'Destroy the machines?',
  extend: `Add ${EXTENSION_MINUTES} minutes to the game?`,
};

const EVENTS = {
  start: 'session.startRequested',
  end: 'session.endRequested',
  reset: 'session.resetRequested',
  deploy: 'session.deployRequested',
  destroy: 'session.destroyRequested',
  extend: 'session.extendRequested',
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

/**
 * Start, for as long as it is offered and while the launch it asked for runs: then it stays in
 * place, disabled and saying so, rather than vanishing from under the pointer.
 */
export function StartButton({
  session,
  canStart,
  launching,
  label = 'Start',
}: {
  session: GamespaceSessionActorRef;
  canStart: boolean;
  launching: boolean;
  label?: string;
}) {
  if (!canStart && !launching) return null;
  return (
    <ActionButton
      session={session}
      action="start"
      label={launching ? 'Starting…' : label}
      enabled={canStart && !launching}
    />
  );
}

/**
 * Once a game is over, a new one is offered under 'Game Over' saying what it is, rather than a
 * bare Start where the finished game's actions were.
 */
export function NewGame({
  session,
  canStart,
  launching,
}: {
  session: GamespaceSessionActorRef;
  canStart: boolean;
  launching: boolean;
}) {
  const confirming = useSelector(session, selectConfirmation) === 'start';
  if (!canStart && !launching && !confirming) return null;
  return (
    <div className="tp-game-new">
      <p className="tp-muted">
        A new game of this workspace starts with its own machines, the full time and no answers.
      </p>
      <div className="tp-actions">
        <StartButton
          session={session}
          canStart={canStart}
          launching={launching}
          label="Start a new game"
        />
        <SessionConfirm
          session={session}
          actions={['start']}
          questions={{ start: 'Start a new game?' }}
        />
      </div>
    </div>
  );
}

/**
 * Extend, for those who may manage the game, during play. Its name does not say 'Extend': the
 * play page's End must stay the only button whose name holds 'end'.
 */
export function ExtendButton({ session }: { session: GamespaceSessionActorRef }) {
  const shows = useSelector(session, selectShowsExtend);
  const enabled = useSelector(session, selectCanExtend);
  if (!shows) return null;
  return (
    <ActionButton
      session={session}
      action="extend"
      label={`Add ${EXTENSION_MINUTES} min`}
      enabled={enabled}
      severity="secondary"
    />
  );
}

const TIME_WARNINGS = {
  fiveMinutes: 'Less than 5 minutes left.',
  lastMinute: 'Less than a minute left.',
} as const;

/**
 * The notice of a game whose time is running out (at 5 minutes, again at the last one), with
 * what can be done: Extend for those who may, who to ask for the others.
 */
export function TimeNotice({ session }: { session: GamespaceSessionActorRef }) {
  const warning = useSelector(session, selectTimeWarning);
  const manages = useSelector(session, selectShowsExtend);
  const extenders = useSelector(session, selectExtendersText);
  if (!warning) return null;
  return (
    <p className="tp-alert tp-alert-warning tp-game-time-notice" role="alert">
      <span>
        <strong>{TIME_WARNINGS[warning]}</strong>{' '}
        {manages ? `Add ${EXTENSION_MINUTES} min gives the game more time.` : extenders}
      </span>
    </p>
  );
}

/** What a launch is doing while it runs: it takes seconds, as the machines are deployed. */
export function LaunchProgress() {
  return (
    <p className="tp-game-launching" role="status">
      <Icon shape={piSpinner} spin />
      <span>Starting the game: its machines are being deployed…</span>
    </p>
  );
}

/**
 * The session's pending confirmation, when it was asked by one of `actions`: each group of buttons
 * renders this beside itself, so that the question stands next to the button that asked.
 */
export function SessionConfirm({
  session,
  actions,
  questions = {},
}: {
  session: GamespaceSessionActorRef;
  actions: readonly SessionAction[];
  /** Questions of its own for some actions, where the usual one would not say what happens. */
  questions?: Partial<Record<SessionAction, string>>;
}) {
  const confirmation = useSelector(session, selectConfirmation);
  if (!confirmation || !actions.includes(confirmation)) return null;
  return (
    <ConfirmPrompt
      question={questions[confirmation] ?? ACTION_QUESTIONS[confirmation]}
      onConfirm={() => session.send({ type: 'session.actionConfirmed' })}
      onCancel={() => session.send({ type: 'session.actionCancelled' })}
    />
  );
}

/** Deploy or Destroy the game's machines, with a spinner while they change. */
export function MachineActions({ session }: { session: GamespaceSessionActorRef }) {
  const hasMachines = useSelector(session, selectHasMachines);
  const canDeploy = useSelector(session, selectCanDeploy);
  const canDestroy = useSelector(session, selectCanDestroy);
  const changing = useSelector(session, selectIsChangingMachines);
  // Deploy and Destroy are the manager's: an invited player sees the machines, not these.
  const mayManage = useSelector(session, selectMayManage);
  if (!mayManage) return null;
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
      <SessionConfirm session={session} actions={['deploy', 'destroy']} />
    </div>
  );
}
