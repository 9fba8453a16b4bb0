import type { Db } from '../db';
import type { WorkspaceTable } from '../schema';

// A workspace's challenge: the spec as JSON text in the workspace's `challenge` column.

export function createChallengeRepository(db: Db) {
  return {
    /** The workspace's id and challenge text; undefined when there is no such workspace. */
    find(workspaceId: string): Promise<Pick<WorkspaceTable, 'id' | 'challenge'> | undefined> {
      return db
        .selectFrom('workspaces')
        .select(['id', 'challenge'])
        .where('id', '=', workspaceId)
        .executeTakeFirst();
    },

    /** Stores the text; editing the challenge is activity on the workspace. */
    async store(workspaceId: string, challenge: string, lastActivity: number): Promise<void> {
      await db
        .updateTable('workspaces')
        .set({ challenge, lastActivity })
        .where('id', '=', workspaceId)
        .execute();
    },
  };
}

export type ChallengeRepository = ReturnType<typeof createChallengeRepository>;
