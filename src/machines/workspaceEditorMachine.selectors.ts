import type { PresenceActorRef } from './presenceMachine';
import type { WorkspaceEditorSnapshot, WorkspaceHeader } from './workspaceEditorMachine';

export const selectIsWorkspaceLoading = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.matches('loading');

export const selectWorkspaceHeader = (snapshot: WorkspaceEditorSnapshot): WorkspaceHeader | null =>
  snapshot.context.workspace;

export const selectWorkspaceLoadError = (snapshot: WorkspaceEditorSnapshot): string | null =>
  snapshot.context.error;

export const selectShowJanitorNotice = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.hasTag('janitorNotice');

/** Who else is in the workspace: running once it has loaded, undefined before. */
export const selectPresence = (snapshot: WorkspaceEditorSnapshot): PresenceActorRef | undefined =>
  // Children are typed by logic, not by invoke id; 'presence' is only ever the presence machine.
  snapshot.children.presence as PresenceActorRef | undefined;
