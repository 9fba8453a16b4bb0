import type { WorkspaceEditorSnapshot, WorkspaceHeader } from './workspaceEditorMachine';

export const selectIsWorkspaceLoading = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.matches('loading');

export const selectWorkspaceHeader = (snapshot: WorkspaceEditorSnapshot): WorkspaceHeader | null =>
  snapshot.context.workspace;

export const selectWorkspaceLoadError = (snapshot: WorkspaceEditorSnapshot): string | null =>
  snapshot.context.error;

export const selectShowJanitorNotice = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.hasTag('janitorNotice');
