import type { Db } from '../store/db';

// Who takes part in a gamespace or a workspace (the reference's UserStore.CanInteract parts),
// shared by the hub's Listen rule and the VM rules.

/** A player of the gamespace, or its manager. */
export async function playsOrManages(
  db: Db,
  actorId: string,
  gamespaceId: string,
): Promise<boolean> {
  const player = await db
    .selectFrom('players')
    .select('gamespaceId')
    .where('gamespaceId', '=', gamespaceId)
    .where('subjectId', '=', actorId)
    .executeTakeFirst();
  if (player) return true;
  const managed = await db
    .selectFrom('gamespaces')
    .select('id')
    .where('id', '=', gamespaceId)
    .where('managerId', '=', actorId)
    .executeTakeFirst();
  return !!managed;
}

/** A worker of the workspace, with any permission. */
export async function worksOn(db: Db, actorId: string, workspaceId: string): Promise<boolean> {
  const worker = await db
    .selectFrom('workers')
    .select('subjectId')
    .where('workspaceId', '=', workspaceId)
    .where('subjectId', '=', actorId)
    .executeTakeFirst();
  return !!worker;
}

/**
 * Tells the hub that someone's right to listen on a group may have ended (see Hub.revoke): the
 * connections concerned leave the groups they may no longer listen on, on every server process.
 */
export interface ListenerRevoker {
  revoke(target: { group?: string; subjectId?: string }): void;
}

export const NO_REVOKER: ListenerRevoker = { revoke: () => {} };
