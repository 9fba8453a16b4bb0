import type { WorkspaceInvitationSnapshot } from './workspaceInvitationMachine';

/** 'Redeeming invitation' shows until the server answers (and while the page opens after). */
export const selectIsRedeeming = (snapshot: WorkspaceInvitationSnapshot): boolean =>
  !snapshot.matches('failed');

/** 'Invalid invitation code.' */
export const selectIsInvitationInvalid = (snapshot: WorkspaceInvitationSnapshot): boolean =>
  snapshot.matches('failed');
