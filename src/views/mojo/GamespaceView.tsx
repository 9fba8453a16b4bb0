import { useSelector } from '@xstate/react';
import type { ReactNode } from 'react';
import type { GamespaceSessionActorRef } from '../../machines/gamespaceSessionMachine';
import {
  selectCanEnd,
  selectCanInvite,
  selectCanReset,
  selectCanStart,
  selectClock,
  selectErrors,
  selectGame,
  selectGamespacePlay,
  selectGameVms,
  selectInviteLink,
  selectIsInPlay,
  selectIsLaunching,
  selectIsLoading,
  selectIsNotFound,
  selectIsOver,
  selectMayManage,
  selectOffersStart,
  selectQuiz,
  selectShowCopied,
} from '../../machines/gamespaceSessionMachine.selectors';
import type { GameVmsActorRef } from '../../machines/gameVmsMachine';
import type { QuestionSetActorRef } from '../../machines/questionSetMachine';
import { selectHasNoQuestions } from '../../machines/questionSetMachine.selectors';
import { selectVmControllers } from '../../machines/gameVmsMachine.selectors';
import { DismissibleAlerts } from '../common/DismissibleAlerts';
import { Spinner } from '../common/Spinner';
import { StoppedPage } from '../common/StoppedPage';
import { useTitle } from '../common/useTitle';
import { MarkdownPreview } from '../topo/document/MarkdownPreview';
import { VmController } from '../topo/templates/VmController';
import { GameOver, Tally } from './GameStatus';
import { GameTopology } from './GameTopology';
import { QuestionSets } from './QuestionSets';
import {
  ActionButton,
  ExtendButton,
  LaunchProgress,
  MachineActions,
  NewGame,
  SessionConfirm,
  StartButton,
  TimeNotice,
} from './sessionActions';

/** The route's id names no gamespace nor workspace (deleted, or a wrong link). */
function NotFound() {
  return (
    <StoppedPage
      title="Gamespace not found"
      detail="No gamespace or workspace has this address: it may have been deleted, or the link is wrong."
    />
  );
}

/** A controller for each machine the game lists, in its order (the session runs them). */
function GameVms({ gameVms, vms }: { gameVms: GameVmsActorRef; vms: readonly { id: string }[] }) {
  const controllers = useSelector(gameVms, selectVmControllers);
  return vms.map((vm) => {
    const controller = controllers[vm.id];
    return controller && <VmController key={vm.id} controller={controller} />;
  });
}

function Resources({ session }: { session: GamespaceSessionActorRef }) {
  const game = useSelector(session, selectGame);
  const inPlay = useSelector(session, selectIsInPlay);
  const play = useSelector(session, selectGamespacePlay);
  const gameVms = useSelector(play, selectGameVms);
  const mayManage = useSelector(session, selectMayManage);
  if (!inPlay || !game?.id) return null;
  const vms = game.vms ?? [];
  return (
    <section className="tp-game-resources" aria-label="Resources">
      <h2>Resources</h2>
      <MachineActions session={session} />
      {/* Deploy is the manager's: the others are told why there is nothing here yet. */}
      {!mayManage && vms.length === 0 && (
        <p className="tp-muted">No machines are deployed yet: the game's manager deploys them.</p>
      )}
      {gameVms && <GameVms gameVms={gameVms} vms={vms} />}
    </section>
  );
}

function Invite({ session }: { session: GamespaceSessionActorRef }) {
  const play = useSelector(session, selectGamespacePlay);
  const canInvite = useSelector(play, selectCanInvite);
  const link = useSelector(play, selectInviteLink);
  const copied = useSelector(play, selectShowCopied);
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
      {link && (
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

/** The challenge's text and question sets; a lab without either shows no empty heading. */
function Challenge({ quiz, text }: { quiz: QuestionSetActorRef; text: string | null | undefined }) {
  const empty = useSelector(quiz, selectHasNoQuestions);
  if (empty && !text) return null;
  return (
    <section aria-label="Challenge">
      <h2>Challenge</h2>
      {text && <MarkdownPreview markdown={text} />}
      <QuestionSets quiz={quiz} />
    </section>
  );
}

/**
 * /mojo/{id}/**: the gamespace play page (spec §2 Gamespace play page). `help` renders Ask for
 * help for the gamespace while it is in play (the route gives it its own actor).
 */
export function GamespaceView({
  session,
  help,
}: {
  session: GamespaceSessionActorRef;
  help?: (gamespaceId: string) => ReactNode;
}) {
  const loading = useSelector(session, selectIsLoading);
  const notFound = useSelector(session, selectIsNotFound);
  const game = useSelector(session, selectGame);
  const clock = useSelector(session, selectClock);
  const over = useSelector(session, selectIsOver);
  const launching = useSelector(session, selectIsLaunching);
  const canStart = useSelector(session, selectCanStart);
  const canEnd = useSelector(session, selectCanEnd);
  const canReset = useSelector(session, selectCanReset);
  const inPlay = useSelector(session, selectIsInPlay);
  // Start (before play), End and Invite are the manager's; Reset and a new game are anyone's.
  const mayManage = useSelector(session, selectMayManage);
  const offersStart = useSelector(session, selectOffersStart);
  const errors = useSelector(session, selectErrors);
  const play = useSelector(session, selectGamespacePlay);
  const quiz = useSelector(play, selectQuiz);
  useTitle(notFound ? 'Gamespace not found' : game?.name || 'Gamespace');

  if (loading) return <Spinner label="Loading gamespace" />;
  if (notFound) return <NotFound />;

  return (
    <div className="tp-page tp-game">
      <header className="tp-game-header">
        <h1>{game?.name ?? 'Gamespace'}</h1>
        <div className="tp-actions" role="toolbar" aria-label="Game actions">
          {!over && offersStart && (
            <StartButton session={session} canStart={canStart} launching={launching} />
          )}
          {inPlay && (
            <>
              {mayManage && (
                <ActionButton
                  session={session}
                  action="end"
                  label="End"
                  enabled={canEnd}
                  severity="danger"
                />
              )}
              <ActionButton
                session={session}
                action="reset"
                label="Reset"
                enabled={canReset}
                severity="secondary"
              />
            </>
          )}
          {/* The link of a game that is over invites to nothing. */}
          {mayManage && !over && <Invite session={session} />}
          {!over && (
            <span className="tp-game-clock" role="timer" aria-label="Countdown">
              {clock}
            </span>
          )}
          <ExtendButton session={session} />
          <Tally session={session} />
        </div>
        {launching && <LaunchProgress />}
        <TimeNotice session={session} />
        {over ? (
          <GameOver session={session}>
            <NewGame session={session} canStart={canStart} launching={launching} />
          </GameOver>
        ) : (
          <SessionConfirm session={session} actions={['start', 'end', 'reset', 'extend']} />
        )}
        <DismissibleAlerts
          messages={errors}
          onDismiss={(index) => session.send({ type: 'session.errorDismissed', index })}
        />
      </header>
      {help && inPlay && game?.id && help(game.id)}
      <Resources session={session} />
      <GameTopology session={session} />
      {game?.markdown && <MarkdownPreview markdown={game.markdown} />}
      {quiz && <Challenge quiz={quiz} text={game?.challenge?.text} />}
    </div>
  );
}
