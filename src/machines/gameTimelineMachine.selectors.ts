import { gameEventLine, type GameEventLine } from '../domain/gameEvents';
import type { GameTimelineSnapshot } from './gameTimelineMachine';

/** The log as lines, newest last; null until it first arrives. */
export const selectTimelineEvents = (snapshot: GameTimelineSnapshot) => snapshot.context.events;

export const timelineLines = (events: GameTimelineSnapshot['context']['events']) =>
  events === null ? null : events.map(gameEventLine);

export const selectTimelineError = (snapshot: GameTimelineSnapshot): string | null =>
  snapshot.context.error;

export const selectIsTimelineLoading = (snapshot: GameTimelineSnapshot): boolean =>
  snapshot.hasTag('loading');

export type { GameEventLine };

/** New events arrive on their own (the workspace's observe channel is joined). */
export const selectIsTimelineLive = (snapshot: GameTimelineSnapshot): boolean =>
  snapshot.context.live;
