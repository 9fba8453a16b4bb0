import type { Db } from '../store/db';
import { createMembershipRepository } from '../store/repositories/membership';

// Who takes part in a gamespace or a workspace (the reference's UserStore.CanInteract parts),
// shared by the hub's Listen rule and the VM rules.

/** A player of the gamespace, or its manager. */
export function playsOrManages(db: Db, actorId: string, gamespaceId: string): Promise<boolean> {
  return createMembershipRepository(db).playsOrManages(actorId, gamespaceId);
}

/** A worker of the workspace, with any permission. */
export function worksOn(db: Db, actorId: string, workspaceId: string): Promise<boolean> {
  return createMembershipRepository(db).worksOn(actorId, workspaceId);
}

/**
 * Tells the hub that someone's right to listen on a group may have ended (see Hub.revoke): the
 * connections concerned leave the groups they may no longer listen on, on every server process.
 */
export interface ListenerRevoker {
  revoke(target: { group?: string; subjectId?: string }): void;
}

export const NO_REVOKER: ListenerRevoker = { revoke: () => {} };
