import type { GameResult } from '../api/results';
import type { ResultColumn, SortDirection } from '../domain/results';
import type { WorkspaceResultsSnapshot } from './workspaceResultsMachine';

export const selectResultRows = (s: WorkspaceResultsSnapshot): readonly GameResult[] =>
  s.context.rows;
export const selectWorkspaceName = (s: WorkspaceResultsSnapshot): string =>
  s.context.results?.workspaceName ?? '';
/** The most question sets a game has: one score column each. */
export const selectQuestionSetNames = (s: WorkspaceResultsSnapshot): string =>
  // Joined so that the view gets a primitive; the first game with a set names its column.
  Array.from(
    { length: s.context.rows.reduce((n, r) => Math.max(n, r.questionSets.length), 0) },
    (_, i) => s.context.rows.find((r) => r.questionSets[i])?.questionSets[i]?.name ?? '',
  ).join('\u0000');
export const selectResultsError = (s: WorkspaceResultsSnapshot): string | null => s.context.error;
export const selectExportError = (s: WorkspaceResultsSnapshot): string | null =>
  s.context.exportError;
export const selectIsLoadingResults = (s: WorkspaceResultsSnapshot): boolean => s.hasTag('loading');
export const selectIsExporting = (s: WorkspaceResultsSnapshot): boolean => s.hasTag('exporting');
/** Loaded, and no game at all: the empty state. */
export const selectHasNoGames = (s: WorkspaceResultsSnapshot): boolean =>
  s.matches('loaded') && s.context.rows.length === 0;
export const selectCanExport = (s: WorkspaceResultsSnapshot): boolean =>
  s.can({ type: 'results.exportRequested' }) && s.context.rows.length > 0;
/** aria-sort of a column heading. */
export const selectSortOf =
  (column: ResultColumn) =>
  (s: WorkspaceResultsSnapshot): SortDirection | 'none' =>
    s.context.sort.column === column ? s.context.sort.direction : 'none';
