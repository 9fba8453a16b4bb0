import type { SessionWindow } from '../domain/session';
import { sessionClock } from '../domain/session';
import {
  hasMachines,
  isPlayable,
  sessionOf,
  type GameState,
  type GamespaceSessionSnapshot,
  type SessionAction,
} from './gamespaceSessionMachine';
import type { QuestionSetActorRef } from './questionSetMachine';

export const selectWindow = (snapshot: GamespaceSessionSnapshot): SessionWindow =>
  (snapshot.value as { window: SessionWindow }).window;

/**
 * The countdown clock, HH:MM:SS (spec §2 Gamespace play page). A game ended before its expiry is
 * still 'during' by its dates, but no time is left to play: the clock stops at zero beside
 * 'Game Over' rather than counting down to an expiry that no longer matters.
 */
export const selectClock = (snapshot: GamespaceSessionSnapshot): string => {
  const s = sessionOf(snapshot.context);
  return sessionClock(s.isOver ? 0 : s.countdown);
};

/** 'Game Over': the window is after, or the gamespace was ended. */
export const selectIsOver = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.context.game !== null && sessionOf(snapshot.context).isOver;

export const selectIsLoading = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.matches({ activity: 'loading' });

/** The spinner while launching. */
export const selectIsLaunching = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.hasTag('launching');

export const selectIsBusy = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectGame = (snapshot: GamespaceSessionSnapshot): GameState | null =>
  snapshot.context.game;

export const selectGamespaceId = (snapshot: GamespaceSessionSnapshot): string | null =>
  snapshot.context.game?.id ?? null;

export const selectCanStart = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.startRequested' });

export const selectCanEnd = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.endRequested' });

export const selectCanReset = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.resetRequested' });

/** End and Reset show during play (they are enabled when nothing else runs). */
export const selectIsInPlay = (snapshot: GamespaceSessionSnapshot): boolean =>
  isPlayable(snapshot.context.game, snapshot.context.now);

/** Deploy shows during play when there are no machines, Destroy when there are (spec §2). */
export const selectHasMachines = (snapshot: GamespaceSessionSnapshot): boolean =>
  hasMachines(snapshot.context.game);

export const selectCanDeploy = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.deployRequested' });

export const selectCanDestroy = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.destroyRequested' });

/** A spinner shows while machines are deployed or destroyed. */
export const selectIsChangingMachines = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.matches({ activity: 'running' }) &&
  (snapshot.context.action === 'deploy' || snapshot.context.action === 'destroy');

/** The action awaiting confirmation. */
export const selectConfirmation = (snapshot: GamespaceSessionSnapshot): SessionAction | null =>
  snapshot.matches({ activity: 'confirming' }) ? snapshot.context.action : null;

export const selectErrors = (snapshot: GamespaceSessionSnapshot): string[] =>
  snapshot.context.errors;

export const selectCanInvite = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.inviteRequested' });

export const selectInviteLink = (snapshot: GamespaceSessionSnapshot): string | null =>
  snapshot.context.inviteLink;

export const selectShowCopied = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.hasTag('copied');

/** The quiz of a started gamespace. */
export const selectQuiz = (snapshot: GamespaceSessionSnapshot): QuestionSetActorRef | undefined =>
  snapshot.children.questionSet as QuestionSetActorRef | undefined;
