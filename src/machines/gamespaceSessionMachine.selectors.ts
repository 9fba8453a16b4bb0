import type { EndReason, SessionWindow } from '../domain/session';
import {
  endedAt,
  endReason,
  sessionClock,
  timeAllowed,
  timeUsed,
  timeWarning,
  type TimeWarning,
} from '../domain/session';
import type { GamespacePlayActorRef, GamespacePlaySnapshot } from './gamespacePlayMachine';
import {
  canExtend,
  extenderNames,
  hasGamespace,
  hasMachines,
  isPlayable,
  mayManage,
  sessionOf,
} from './gamespaceRules';
import type { GameState, GamespaceSessionSnapshot, SessionAction } from './gamespaceSessionMachine';
import type { GameVmsActorRef } from './gameVmsMachine';
import type { QuestionSetActorRef } from './questionSetMachine';

// The gamespace's own parts are its play's (the selectors that take a GamespacePlaySnapshot, or
// undefined while there is no gamespace): the quiz, the machines' controllers and the invitation.

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

/** The id names neither a gamespace nor a workspace: nothing to show or start. */
export const selectIsNotFound = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.matches({ activity: 'notFound' });

/** Why the game is over, once it is (the state and the page's time decide). */
export const selectEndReason = (snapshot: GamespaceSessionSnapshot): EndReason | null =>
  snapshot.context.game === null ? null : endReason(snapshot.context.game, snapshot.context.now);

/**
 * How long a game that is over was played: 'Time used 00:12:34 of 01:00:00' (the clock's format),
 * null while it is not over and for a game ended before it started.
 */
export const selectTimeUsedText = (snapshot: GamespaceSessionSnapshot): string | null => {
  const { game, now } = snapshot.context;
  const used = game === null ? null : timeUsed(game, now);
  if (game === null || used === null) return null;
  const allowed = timeAllowed(game);
  return `Time used ${sessionClock(used)}${allowed === null ? '' : ` of ${sessionClock(allowed)}`}`;
};

/** When a game that is over ended, in the browser's words for dates; null while it is not. */
export const selectEndedAtText = (snapshot: GamespaceSessionSnapshot): string | null => {
  const { game, now } = snapshot.context;
  const ended = game === null ? null : endedAt(game, now);
  return ended === null ? null : `Ended ${new Date(ended).toLocaleString()}`;
};

/** 'Score 30 / 100' once the gamespace has a challenge with points; each new state updates it. */
export const selectScoreText = (snapshot: GamespaceSessionSnapshot): string | null => {
  const challenge = snapshot.context.game?.challenge;
  if (!hasGamespace(snapshot.context.game) || !challenge || !challenge.maxPoints) return null;
  return `Score ${challenge.score ?? 0} / ${challenge.maxPoints}`;
};

/** 'Attempts 2 / 3', or 'Attempts 2' when they are unlimited (maxAttempts 0). */
export const selectAttemptsText = (snapshot: GamespaceSessionSnapshot): string | null => {
  const challenge = snapshot.context.game?.challenge;
  if (!hasGamespace(snapshot.context.game) || !challenge) return null;
  const used = `Attempts ${challenge.attempts ?? 0}`;
  return challenge.maxAttempts ? `${used} / ${challenge.maxAttempts}` : used;
};

/** The spinner while launching (a confirmed start runs). */
export const selectIsLaunching = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.matches({ activity: 'running' }) && snapshot.context.action === 'start';

export const selectIsBusy = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectGame = (snapshot: GamespaceSessionSnapshot): GameState | null =>
  snapshot.context.game;

export const selectGamespaceId = (snapshot: GamespaceSessionSnapshot): string | null =>
  snapshot.context.game?.id ?? null;

/**
 * Whether the viewer may manage the game: Start (before play), End, Deploy, Destroy, Invite and
 * Extend show only then; an invited player does not see them.
 */
export const selectMayManage = (snapshot: GamespaceSessionSnapshot): boolean =>
  mayManage(snapshot.context.game);

/** Start shows for the workspace's preview (a launch of one's own) and to those who may manage. */
export const selectOffersStart = (snapshot: GamespaceSessionSnapshot): boolean =>
  !hasGamespace(snapshot.context.game) || mayManage(snapshot.context.game);

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

/** Extend shows during play to those who may manage the game (enabled when nothing else runs). */
export const selectShowsExtend = (snapshot: GamespaceSessionSnapshot): boolean =>
  canExtend(snapshot.context.game, snapshot.context.now);

export const selectCanExtend = (snapshot: GamespaceSessionSnapshot): boolean =>
  snapshot.can({ type: 'session.extendRequested' });

/** The game's time is running out: within 5 minutes, then in its last minute. */
export const selectTimeWarning = (snapshot: GamespaceSessionSnapshot): TimeWarning | null =>
  snapshot.context.game === null ? null : timeWarning(sessionOf(snapshot.context));

/**
 * Who may extend the game, for those who may not: its manager and managing players by name, and
 * administrators ('Only Ann, Bo or an administrator can extend the game.').
 */
export const selectExtendersText = (snapshot: GamespaceSessionSnapshot): string => {
  const names = extenderNames(snapshot.context.game);
  const who = [...(names.length ? names : ["the game's manager"]), 'an administrator'];
  return `Only ${who.slice(0, -1).join(', ')} or ${who.at(-1)} can extend the game.`;
};

/** The action awaiting confirmation. */
export const selectConfirmation = (snapshot: GamespaceSessionSnapshot): SessionAction | null =>
  snapshot.matches({ activity: 'confirming' }) ? snapshot.context.action : null;

export const selectErrors = (snapshot: GamespaceSessionSnapshot): string[] =>
  snapshot.context.errors;

/** The parts of the gamespace shown, while there is one. */
export const selectGamespacePlay = (
  snapshot: GamespaceSessionSnapshot,
): GamespacePlayActorRef | undefined => snapshot.children.play;

export const selectCanInvite = (play: GamespacePlaySnapshot | undefined): boolean =>
  play?.can({ type: 'session.inviteRequested' }) ?? false;

export const selectInviteLink = (play: GamespacePlaySnapshot | undefined): string | null =>
  play?.context.inviteLink ?? null;

export const selectShowCopied = (play: GamespacePlaySnapshot | undefined): boolean =>
  play?.hasTag('copied') ?? false;

/** The quiz of a started gamespace. */
export const selectQuiz = (
  play: GamespacePlaySnapshot | undefined,
): QuestionSetActorRef | undefined => play?.children.questionSet;

/** The controllers of the game's machines, during play on the play page. */
export const selectGameVms = (
  play: GamespacePlaySnapshot | undefined,
): GameVmsActorRef | undefined => play?.children.gameVms;
