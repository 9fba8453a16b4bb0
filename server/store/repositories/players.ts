import { isUniqueViolation, type Db } from '../db';
import type { PlayerTable } from '../schema';

// The players of gamespaces: who may interact with a gamespace, and with which permission. A
// subject is a player of a gamespace once (the primary key).

export function createPlayerRepository(db: Db) {
  return {
    /** A gamespace's players, in the order the game state lists them. */
    of(gamespaceId: string): Promise<PlayerTable[]> {
      return db
        .selectFrom('players')
        .selectAll()
        .where('gamespaceId', '=', gamespaceId)
        .orderBy('subjectName')
        .orderBy('subjectId')
        .execute();
    },

    /** The subject's permission in the gamespace; null when not a player. */
    async permissionOf(gamespaceId: string, subjectId: string): Promise<number | null> {
      const p = await db
        .selectFrom('players')
        .select('permission')
        .where('gamespaceId', '=', gamespaceId)
        .where('subjectId', '=', subjectId)
        .executeTakeFirst();
      return p ? p.permission : null;
    },

    /** True when the subject was not a player yet (adding twice keeps the first row). */
    async add(player: PlayerTable): Promise<boolean> {
      try {
        await db.insertInto('players').values(player).execute();
        return true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return false;
      }
    },

    async remove(gamespaceId: string, subjectId: string): Promise<void> {
      await db
        .deleteFrom('players')
        .where('gamespaceId', '=', gamespaceId)
        .where('subjectId', '=', subjectId)
        .execute();
    },
  };
}

export type PlayerRepository = ReturnType<typeof createPlayerRepository>;
