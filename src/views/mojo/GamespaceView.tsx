import { useActorRef, useSelector } from '@xstate/react';
import { useContext } from 'react';
import type { GamespaceSessionActorRef } from '../../machines/gamespaceSessionMachine';
import {
  selectCanEnd,
  selectCanInvite,
  selectCanReset,
  selectCanStart,
  selectClock,
  selectConfirmation,
  selectErrors,
  selectGame,
  selectInviteLink,
  selectIsInPlay,
  selectIsLaunching,
  selectIsLoading,
  selectIsOver,
  selectQuiz,
  selectShowCopied,
} from '../../machines/gamespaceSessionMachine.selectors';
import { DismissibleAlerts } from '../common/DismissibleAlerts';
import { Spinner } from '../common/Spinner';
import { ConfirmPrompt } from '../topo/ConfirmPrompt';
import { MarkdownPreview } from '../topo/document/MarkdownPreview';
import { VmController } from '../topo/templates/VmController';
import { GameVmContext, type GameVmServices } from './gameVmContext';
import { QuestionSets } from './QuestionSets';
import { ACTION_QUESTIONS, ActionButton, MachineActions } from './sessionActions';

function GameVm({
  services,
  vm,
  gamespaceId,
}: {
  services: GameVmServices;
  vm: { id: string; name?: string | null };
  gamespaceId: string;
}) {
  const controller = useActorRef(services.logic, {
    input: {
      // The play page's controller loads the machine itself: its id stands for the template.
      template: { id: vm.id, name: vm.name ?? '', isLinked: true, workspaceId: gamespaceId },
      hideDelete: true,
      fullbleed: true,
      sessionId: gamespaceId,
    },
    inspect: services.inspect,
  });
  return <VmController controller={controller} />;
}

function Resources({ session }: { session: GamespaceSessionActorRef }) {
  const game = useSelector(session, selectGame);
  const inPlay = useSelector(session, selectIsInPlay);
  const services = useContext(GameVmContext);
  if (!inPlay || !game?.id) return null;
  return (
    <section className="tp-game-resources" aria-label="Resources">
      <h2>Resources</h2>
      <MachineActions session={session} />
      {services &&
        (game.vms ?? []).map((vm) => (
          <GameVm key={vm.id} services={services} vm={vm} gamespaceId={game.id ?? ''} />
        ))}
    </section>
  );
}

function Invite({ session }: { session: GamespaceSessionActorRef }) {
  const canInvite = useSelector(session, selectCanInvite);
  const link = useSelector(session, selectInviteLink);
  const copied = useSelector(session, selectShowCopied);
  const over = useSelector(session, selectIsOver);
  return (
    <span className="tp-game-invite">
      <button
        type="button"
        className="p-button p-component p-button-sm p-button-secondary"
        disabled={!canInvite}
        onClick={() => session.send({ type: 'session.inviteRequested' })}
      >
        Invite
      </button>
      {/* The link of a game that is over invites to nothing. */}
      {link && !over && (
        <input
          className="p-inputtext p-component"
          readOnly
          value={link}
          aria-label="Invitation link"
        />
      )}
      {copied && <span role="status">copied</span>}
    </span>
  );
}

/** /mojo/{id}/**: the gamespace play page (spec §2 Gamespace play page). */
export function GamespaceView({ session }: { session: GamespaceSessionActorRef }) {
  const loading = useSelector(session, selectIsLoading);
  const game = useSelector(session, selectGame);
  const clock = useSelector(session, selectClock);
  const over = useSelector(session, selectIsOver);
  const launching = useSelector(session, selectIsLaunching);
  const canStart = useSelector(session, selectCanStart);
  const canEnd = useSelector(session, selectCanEnd);
  const canReset = useSelector(session, selectCanReset);
  const inPlay = useSelector(session, selectIsInPlay);
  const confirmation = useSelector(session, selectConfirmation);
  const errors = useSelector(session, selectErrors);
  const quiz = useSelector(session, selectQuiz);

  if (loading) return <Spinner label="Loading gamespace" />;

  return (
    <div className="tp-page tp-game">
      <header className="tp-game-header">
        <h1>{game?.name ?? 'Gamespace'}</h1>
        <div className="tp-actions" role="toolbar" aria-label="Game actions">
          {canStart && <ActionButton session={session} action="start" label="Start" enabled />}
          {inPlay && (
            <>
              <ActionButton
                session={session}
                action="end"
                label="End"
                enabled={canEnd}
                severity="danger"
              />
              <ActionButton
                session={session}
                action="reset"
                label="Reset"
                enabled={canReset}
                severity="secondary"
              />
            </>
          )}
          <Invite session={session} />
          <span className="tp-game-clock" role="timer" aria-label="Countdown">
            {clock}
          </span>
          {launching && <Spinner label="Launching" />}
        </div>
        {confirmation && (
          <ConfirmPrompt
            question={ACTION_QUESTIONS[confirmation]}
            onConfirm={() => session.send({ type: 'session.actionConfirmed' })}
            onCancel={() => session.send({ type: 'session.actionCancelled' })}
          />
        )}
        {over && <h2 className="tp-game-over">Game Over</h2>}
        <DismissibleAlerts
          messages={errors}
          onDismiss={(index) => session.send({ type: 'session.errorDismissed', index })}
        />
      </header>
      <Resources session={session} />
      {game?.markdown && <MarkdownPreview markdown={game.markdown} />}
      {quiz && (
        <section aria-label="Challenge">
          <h2>Challenge</h2>
          {game?.challenge?.text && <MarkdownPreview markdown={game.challenge.text} />}
          <QuestionSets quiz={quiz} />
        </section>
      )}
    </div>
  );
}
