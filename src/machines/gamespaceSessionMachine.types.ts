import type { GameState } from '../api/play';
import type { SessionAction } from './gamespaceActionMachine';

// The types of gamespaceSessionMachine.ts (which exports them), kept apart so that the machine's
// file is its setup and chart.

export type { GameState, SessionAction };

export type GamespaceSessionEvent =
  | { type: 'clock.ticked'; now: number }
  /** A GameEvent of the gamespace's channel: its model replaces the state. */
  | { type: 'game.updated'; state: GameState }
  /** The quiz graded a set; the answer is the updated gamespace. */
  | { type: 'quiz.graded'; state: GameState }
  | { type: 'session.startRequested' }
  | { type: 'session.endRequested' }
  | { type: 'session.resetRequested' }
  | { type: 'session.deployRequested' }
  | { type: 'session.destroyRequested' }
  | { type: 'session.extendRequested' }
  | { type: 'session.actionConfirmed' }
  | { type: 'session.actionCancelled' }
  | { type: 'session.inviteRequested' }
  | { type: 'session.errorDismissed'; index: number }
  /** From the gamespace's parts: an invitation could not be made. */
  | { type: 'invite.failed'; error: unknown }
  /** Internal: an action changed the gamespace shown (its parts are told). */
  | { type: 'game.changed'; state: GameState };

export interface GamespaceSessionInput {
  /** The route's id: a gamespace's, or a workspace's (its active gamespace, else its preview). */
  id: string;
  /** Epoch ms when the page opened; clock ticks move it on. */
  now: number;
  /** The page's origin, for the invitation link. */
  origin: string;
  /**
   * Whether the game's machines get controllers during play (the play page). The launch page
   * shows console links instead: its cookie cannot load a machine.
   */
  controlsMachines?: boolean;
}

export interface GamespaceSessionContext {
  /** What is loaded: the route id, then the workspace after a reset. */
  loadId: string;
  now: number;
  origin: string;
  controlsMachines: boolean;
  /** Null until loaded, and when the load failed (the page then offers a launch). */
  game: GameState | null;
  /** The action awaiting confirmation or running. */
  action: SessionAction | null;
  /** Launch and complete errors, and the others, listed on the page (spec §8). */
  errors: string[];
  /** The gamespace whose channel and parts run, while there is one. */
  shownId: string | null;
}
