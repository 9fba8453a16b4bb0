import { useSelector } from '@xstate/react';
import type {
  GamespaceSessionActorRef,
  GamespaceSessionSnapshot,
} from '../../machines/gamespaceSessionMachine';
import {
  selectCanEnd,
  selectCanStart,
  selectClock,
  selectErrors,
  selectGame,
  selectGamespacePlay,
  selectIsInPlay,
  selectIsLaunching,
  selectIsLoading,
  selectIsOver,
  selectQuiz,
  selectWindow,
} from '../../machines/gamespaceSessionMachine.selectors';
import { DismissibleAlerts } from '../common/DismissibleAlerts';
import { Spinner } from '../common/Spinner';
import { useTitle } from '../common/useTitle';
import { GameOver, Tally } from '../mojo/GameStatus';
import { QuestionSets } from '../mojo/QuestionSets';
import {
  ActionButton,
  ExtendButton,
  LaunchProgress,
  MachineActions,
  SessionConfirm,
  StartButton,
  TimeNotice,
} from '../mojo/sessionActions';
import { MarkdownPreview } from '../topo/document/MarkdownPreview';
import { Icon, piDesktop } from '../common/icons';

// The launch page (/lp): the play page of one gamespace for a browser signed in by the console
// cookie. It shows what that cookie may do: start, deploy, destroy and end the game, open the
// machines' consoles, answer the questions. Reset and Invite (which need a full sign-in) and the
// machines' own controls (GET vm/{id} takes no cookie) stay on the play page, /mojo/{id}.

/** The console of a gamespace's machine, as the reference's console links name it. */
export const launchConsolePath = (gamespaceId: string, vmName: string): string =>
  `/mks/?f=1&s=${encodeURIComponent(gamespaceId)}&v=${encodeURIComponent(vmName)}`;

/** Start here launches the gamespace not yet started; a game over is not launched again. */
const selectCanLaunch = (snapshot: GamespaceSessionSnapshot): boolean =>
  selectWindow(snapshot) === 'before' && selectCanStart(snapshot);

function Machines({ session }: { session: GamespaceSessionActorRef }) {
  const game = useSelector(session, selectGame);
  const inPlay = useSelector(session, selectIsInPlay);
  if (!inPlay || !game?.id) return null;
  const gamespaceId = game.id;
  const vms = (game.vms ?? []).filter((vm) => vm.isVisible !== false);
  return (
    <section className="tp-game-resources" aria-label="Resources">
      <h2>Resources</h2>
      <MachineActions session={session} />
      <ul className="tp-launch-vms">
        {vms.map((vm) => {
          const name = vm.name ?? vm.id;
          return (
            <li key={vm.id}>
              <a
                className="p-button p-component p-button-sm p-button-outlined"
                href={launchConsolePath(gamespaceId, name)}
                target="_blank"
                rel="noopener"
                aria-label={`Open the console of ${name}`}
              >
                <Icon shape={piDesktop} />
                <span>{name}</span>
              </a>
              <span className="tp-muted tp-small">
                {vm.isRunning === false ? ' not running' : ' running'}
              </span>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** /lp: the game of a launch link (wire reference §7 Launchpoint). */
export function LaunchGameView({ session }: { session: GamespaceSessionActorRef }) {
  const loading = useSelector(session, selectIsLoading);
  const game = useSelector(session, selectGame);
  const clock = useSelector(session, selectClock);
  const over = useSelector(session, selectIsOver);
  const launching = useSelector(session, selectIsLaunching);
  const canLaunch = useSelector(session, selectCanLaunch);
  const canEnd = useSelector(session, selectCanEnd);
  const inPlay = useSelector(session, selectIsInPlay);
  const errors = useSelector(session, selectErrors);
  const play = useSelector(session, selectGamespacePlay);
  const quiz = useSelector(play, selectQuiz);
  useTitle(game?.name || 'Gamespace');

  if (loading) return <Spinner label="Loading gamespace" />;
  if (!game?.id) {
    return (
      <div className="tp-page tp-center">
        <p className="tp-alert tp-alert-danger" role="alert">
          This game could not be loaded. It may have been removed.
        </p>
      </div>
    );
  }

  return (
    <div className="tp-page tp-game tp-launch">
      <header className="tp-game-header">
        <h1>{game.name ?? 'Gamespace'}</h1>
        <div className="tp-actions" role="toolbar" aria-label="Game actions">
          <StartButton session={session} canStart={canLaunch} launching={launching} />
          {inPlay && (
            <ActionButton
              session={session}
              action="end"
              label="End"
              enabled={canEnd}
              severity="danger"
            />
          )}
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
        <SessionConfirm session={session} actions={['start', 'end', 'extend']} />
        {over && <GameOver session={session} />}
        <DismissibleAlerts
          messages={errors}
          onDismiss={(index) => session.send({ type: 'session.errorDismissed', index })}
        />
      </header>
      <Machines session={session} />
      {game.markdown && <MarkdownPreview markdown={game.markdown} />}
      {quiz && (
        <section aria-label="Challenge">
          <h2>Challenge</h2>
          {game.challenge?.text && <MarkdownPreview markdown={game.challenge.text} />}
          <QuestionSets quiz={quiz} />
        </section>
      )}
    </div>
  );
}
