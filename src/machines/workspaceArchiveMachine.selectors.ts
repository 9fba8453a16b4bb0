import { matchingCandidates } from '../domain/workspaceArchive';
import type { WorkspaceArchiveSnapshot } from './workspaceArchiveMachine';

export const selectArchiveTerm = (s: WorkspaceArchiveSnapshot) => s.context.term;
export const selectArchiveSelected = (s: WorkspaceArchiveSnapshot) => s.context.selected;
export const selectArchiveAll = (s: WorkspaceArchiveSnapshot) => s.context.all;
export const selectArchiveWorkspaces = (s: WorkspaceArchiveSnapshot) => s.context.workspaces;
export const selectArchiveListError = (s: WorkspaceArchiveSnapshot) => s.context.listError;
/** The workspaces whose name holds the search typed (a new array: compare with `shallowEqual`). */
export const selectArchiveMatches = (s: WorkspaceArchiveSnapshot) =>
  matchingCandidates(s.context.workspaces, s.context.term);
export const selectArchiveResults = (s: WorkspaceArchiveSnapshot) => s.context.results;
export const selectArchiveDone = (s: WorkspaceArchiveSnapshot) => s.context.done;
export const selectArchiveError = (s: WorkspaceArchiveSnapshot) => s.context.error;
export const selectIsArchiveBusy = (s: WorkspaceArchiveSnapshot) => s.hasTag('busy');
/** Whether what is picked can be exported (or downloaded) now. */
export const selectCanExport = (s: WorkspaceArchiveSnapshot) =>
  s.can({ type: 'archive.exportRequested' });
