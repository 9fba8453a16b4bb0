import type { GamespaceActionOutcome } from './gamespaceActionMachine';
import {
  canExtend,
  hasGamespace,
  hasMachines,
  isActive,
  isNotFoundError,
  isPlayable,
  mayManage,
  sessionOf,
} from './gamespaceRules';
import type { GamespaceSessionContext } from './gamespaceSessionMachine.types';

// The guards of gamespaceSessionMachine.ts, kept apart so that the machine's file is its setup and
// chart: which window the page is in, and which of the page's actions the viewer may ask for.

type Args = { context: GamespaceSessionContext };

export const gamespaceSessionGuards = {
  isDuring: ({ context }: Args) => sessionOf(context).window === 'during',
  isAfter: ({ context }: Args) => sessionOf(context).window === 'after',
  isBefore: ({ context }: Args) => sessionOf(context).window === 'before',
  /**
   * Start: before, a gamespace's by those who may manage it; or from the workspace's preview,
   * or over/after, a new launch of the viewer's own (spec §4 Server actions).
   */
  canStart: ({ context }: Args) => {
    const s = sessionOf(context);
    if (s.window === 'after' || s.isOver) return true;
    return s.window === 'before' && (!hasGamespace(context.game) || mayManage(context.game));
  },
  isInPlay: ({ context }: Args) => isPlayable(context.game, context.now),
  /** Ending, deploying and destroying are for those who may manage (an invited player may not). */
  canEnd: ({ context }: Args) => isPlayable(context.game, context.now) && mayManage(context.game),
  canDeploy: ({ context }: Args) =>
    isPlayable(context.game, context.now) && mayManage(context.game) && !hasMachines(context.game),
  canDestroy: ({ context }: Args) =>
    isPlayable(context.game, context.now) && mayManage(context.game) && hasMachines(context.game),
  /** Extend: during play, for those who may manage the game (the server says who). */
  canExtend: ({ context }: Args) => canExtend(context.game, context.now),
  isActive: ({ context }: Args) => isActive(context.game),
  hasGamespace: ({ context }: Args) => hasGamespace(context.game),
  isAnotherGamespace: ({ context }: Args) => context.shownId !== (context.game?.id ?? null),
  isReset: (_: unknown, outcome: GamespaceActionOutcome) => outcome.type === 'reset',
  isNotFound: (_: unknown, { error }: { error: unknown }) => isNotFoundError(error),
};
