import type { WorkspaceArchiveSnapshot } from './workspaceArchiveMachine';

export const selectArchiveIds = (s: WorkspaceArchiveSnapshot) => s.context.ids;
export const selectArchiveResults = (s: WorkspaceArchiveSnapshot) => s.context.results;
export const selectArchiveDone = (s: WorkspaceArchiveSnapshot) => s.context.done;
export const selectArchiveError = (s: WorkspaceArchiveSnapshot) => s.context.error;
export const selectIsArchiveBusy = (s: WorkspaceArchiveSnapshot) => s.hasTag('busy');
/** Whether the ids typed can be exported (or downloaded) now. */
export const selectCanExport = (s: WorkspaceArchiveSnapshot) =>
  s.can({ type: 'archive.exportRequested' });
