import type { WorkspaceActionsSnapshot } from './workspaceActionsMachine';

/** The action being confirmed, if any: the view asks 'Clone this workspace?' or 'Delete ...?'. */
export const selectPendingWorkspaceAction = (
  snapshot: WorkspaceActionsSnapshot,
): 'clone' | 'delete' | null =>
  snapshot.matches('confirmingClone')
    ? 'clone'
    : snapshot.matches('confirmingDelete')
      ? 'delete'
      : null;

/** Clone and Delete are offered while nothing is being confirmed or carried out. */
export const selectCanRequestWorkspaceAction = (snapshot: WorkspaceActionsSnapshot): boolean =>
  snapshot.matches('idle');

export const selectIsWorkspaceActionBusy = (snapshot: WorkspaceActionsSnapshot): boolean =>
  snapshot.hasTag('busy');

export const selectWorkspaceActionErrors = (
  snapshot: WorkspaceActionsSnapshot,
): readonly string[] => snapshot.context.errors;
