import type { GameState } from '../api/play';
import { session, type Session } from '../domain/session';
import { isUnsetDate } from '../domain/time';

// What the play page decides by from a gamespace's state: the rules that its session machine
// and its selectors share (spec §2 Gamespace play page, §4).

/** The window of a stored state at a time. */
export const sessionOf = (context: { game: GameState | null; now: number }): Session =>
  session(context.game ?? {}, context.now);

export const hasGamespace = (game: GameState | null): game is GameState & { id: string } =>
  typeof game?.id === 'string' && game.id !== '';

export const isActive = (game: GameState | null): boolean =>
  hasGamespace(game) && game.isActive === true;

/** Answers are taken during a game that is not over (spec §4 Question sets). */
export const isPlayable = (game: GameState | null, now: number): boolean => {
  const s = session(game ?? {}, now);
  return s.window === 'during' && !s.isOver;
};

/** A started gamespace has a quiz (the server sends its challenge once started). */
export const isStarted = (game: GameState | null): boolean =>
  hasGamespace(game) && !isUnsetDate(game.startTime);

export const hasMachines = (game: GameState | null): boolean => (game?.vms ?? []).length > 0;

/**
 * Whether the viewer may manage the game (its manager, a player with the manager's permission,
 * an administrator): the server says so in the answers it makes for the page (`canManage`).
 * Starting, ending, deploying, destroying, inviting and extending are theirs; an invited player
 * may play, reset (when the game allows it) and start a new game of its own once it is over.
 */
export const mayManage = (game: GameState | null): boolean => game?.canManage === true;

/** Extend is offered during play to those who may manage, to a game with an expiry to move. */
export const canExtend = (game: GameState | null, now: number): boolean =>
  isPlayable(game, now) && mayManage(game) && !isUnsetDate(game?.expirationTime);

/**
 * A new state of the game shown, keeping what the server said of the viewer's rights: hub events
 * and other answers, the same for everyone, leave them out.
 */
export function withViewerRights(previous: GameState | null, next: GameState): GameState {
  if (next.canManage != null || previous?.canManage == null || previous.id !== next.id) return next;
  return { ...next, canManage: previous.canManage };
}

/** Who may extend the game: its manager and the players who manage it, by name. */
export function extenderNames(game: GameState | null): string[] {
  const names = [
    game?.managerName ?? '',
    ...(game?.players ?? []).filter((p) => p.isManager === true).map((p) => p.subjectName ?? ''),
  ].filter((name) => name.trim() !== '');
  return [...new Set(names)];
}

/**
 * The load's answer for an id that names neither a gamespace nor a workspace: 400
 * ResourceNotFound from the reference's validation (404 from a proxy or a later server).
 */
export const isNotFoundError = (error: unknown): boolean => {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
  return status === 404 || message === 'ResourceNotFound';
};

/** The link to share: /mojo/{id}/{slug}/{code}. */
export const invitationLink = (origin: string, game: GameState, code: string): string =>
  `${origin}/mojo/${encodeURIComponent(game.id ?? '')}/${encodeURIComponent(game.slug ?? 'game')}/${encodeURIComponent(code)}`;
