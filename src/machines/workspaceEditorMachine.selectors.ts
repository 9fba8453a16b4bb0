import type { CollaboratorsActorRef } from './collaboratorsMachine';
import type { InvitationActorRef } from './invitationMachine';
import type { PresenceActorRef } from './presenceMachine';
import type { TemplateListActorRef } from './templateListMachine';
import type { WorkspaceActionsActorRef } from './workspaceActionsMachine';
import type { WorkspaceEditorSnapshot, WorkspaceHeader } from './workspaceEditorMachine';
import type { WorkspaceSettingsActorRef } from './workspaceSettingsMachine';

export const selectIsWorkspaceLoading = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.matches('loading');

export const selectWorkspaceHeader = (snapshot: WorkspaceEditorSnapshot): WorkspaceHeader | null =>
  snapshot.context.header;

export const selectWorkspaceLoadError = (snapshot: WorkspaceEditorSnapshot): string | null =>
  snapshot.context.error;

export const selectShowJanitorNotice = (snapshot: WorkspaceEditorSnapshot): boolean =>
  snapshot.hasTag('janitorNotice');

/** The workspace was deleted while open: who did it ('' when unknown), else null. */
export const selectDeletedBy = (snapshot: WorkspaceEditorSnapshot): string | null =>
  snapshot.matches('deleted') ? (snapshot.context.deletedBy ?? '') : null;

// Children are typed by logic, not by invoke id; each id below only ever holds that machine.
// Each is running once the workspace has loaded (workspaceActions from the start) and undefined
// otherwise.

/** Who else is in the workspace. */
export const selectPresence = (snapshot: WorkspaceEditorSnapshot): PresenceActorRef | undefined =>
  snapshot.children.presence as PresenceActorRef | undefined;

export const selectSettingsActor = (
  snapshot: WorkspaceEditorSnapshot,
): WorkspaceSettingsActorRef | undefined =>
  snapshot.children.settings as WorkspaceSettingsActorRef | undefined;

export const selectCollaboratorsActor = (
  snapshot: WorkspaceEditorSnapshot,
): CollaboratorsActorRef | undefined =>
  snapshot.children.collaborators as CollaboratorsActorRef | undefined;

export const selectInvitationActor = (
  snapshot: WorkspaceEditorSnapshot,
): InvitationActorRef | undefined => snapshot.children.invitation as InvitationActorRef | undefined;

export const selectWorkspaceActionsActor = (
  snapshot: WorkspaceEditorSnapshot,
): WorkspaceActionsActorRef | undefined =>
  snapshot.children.workspaceActions as WorkspaceActionsActorRef | undefined;

export const selectTemplateListActor = (
  snapshot: WorkspaceEditorSnapshot,
): TemplateListActorRef | undefined =>
  snapshot.children.templates as TemplateListActorRef | undefined;
