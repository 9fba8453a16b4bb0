import type { Db } from '../db';

// Who takes part in a gamespace or a workspace, whatever their permission: the questions the hub's
// Listen rule and the VM rules ask on every call, each answered by an index.

export function createMembershipRepository(db: Db) {
  return {
    /** A player of the gamespace, or its manager. */
    async playsOrManages(subjectId: string, gamespaceId: string): Promise<boolean> {
      const player = await db
        .selectFrom('players')
        .select('gamespaceId')
        .where('gamespaceId', '=', gamespaceId)
        .where('subjectId', '=', subjectId)
        .executeTakeFirst();
      if (player) return true;
      const managed = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('id', '=', gamespaceId)
        .where('managerId', '=', subjectId)
        .executeTakeFirst();
      return !!managed;
    },

    /** A worker of the workspace, with any permission. */
    async worksOn(subjectId: string, workspaceId: string): Promise<boolean> {
      const worker = await db
        .selectFrom('workers')
        .select('subjectId')
        .where('workspaceId', '=', workspaceId)
        .where('subjectId', '=', subjectId)
        .executeTakeFirst();
      return !!worker;
    },
  };
}

export type MembershipRepository = ReturnType<typeof createMembershipRepository>;
