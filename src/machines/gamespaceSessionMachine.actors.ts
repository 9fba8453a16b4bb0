import { fromCallback, fromEventObservable, fromPromise, type EventObject } from 'xstate';
import type { GameState } from '../api/play';
import { gamespaceActionMachine } from './gamespaceActionMachine';
import { gamespacePlayMachine } from './gamespacePlayMachine';
import type { GamespaceSessionEvent } from './gamespaceSessionMachine.types';

// The actors of gamespaceSessionMachine.ts, kept apart so that the machine's file is its setup and
// chart. The effects are placeholders that throw; src/app provides the real ones.

/** What the session asks of its clock: the time now, as a tick. */
export type ClockRequest = { type: 'clock.syncRequested' };

const notProvided = (name: string): Error =>
  new Error(`gamespaceSessionMachine: '${name}' is provided by the app (src/app)`);

export const gamespaceSessionActors = {
  /** GET gamespace/{id}. */
  loadGamespace: fromPromise<GameState, { id: string }>(() => {
    throw notProvided('loadGamespace');
  }),
  /** One confirmed action; provide it with the calls of launch, change and delete. */
  gamespaceAction: gamespaceActionMachine,
  /** Listens on the channel while running (Listen on start, Leave on stop). */
  listenToChannel: fromCallback<EventObject, { channelId: string }>(() => {
    throw notProvided('listenToChannel');
  }),
  /** GameEvents of the gamespace as `game.updated`. */
  gameEvents: fromEventObservable<GamespaceSessionEvent, { gamespaceId: string }>(() => {
    throw notProvided('gameEvents');
  }),
  /**
   * `clock.ticked` every STATE_REFRESH_MS, and at once when asked (`clock.syncRequested`): an
   * action's answer may start the game between two ticks.
   */
  clock: fromCallback<ClockRequest, undefined>(() => {
    throw notProvided('clock');
  }),
  /** The gamespace's parts; provide their quiz, controllers and invitation calls. */
  gamespacePlay: gamespacePlayMachine,
};
