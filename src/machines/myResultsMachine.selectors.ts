import type { GameResult } from '../api/results';
import type { MyResultsSnapshot } from './myResultsMachine';

export const selectMyGames = (s: MyResultsSnapshot): readonly GameResult[] => s.context.games;
export const selectMyResultsError = (s: MyResultsSnapshot): string | null => s.context.error;
export const selectAreMyResultsLoading = (s: MyResultsSnapshot): boolean => s.hasTag('loading');
/** Loaded, and never a game: the empty state. */
export const selectHasNoGamesYet = (s: MyResultsSnapshot): boolean =>
  s.matches('loaded') && s.context.games.length === 0;
