import { isUniqueViolation, type Db } from '../store/db';
import { newId } from './ids';

// A user's favorites of one kind (workspaces, gamespaces, templates): the same table shape and
// rules for each, oldest first, adding twice keeps one.

type FavoriteTableName = 'workspaceFavorites' | 'gamespaceFavorites' | 'templateFavorites';

export function createFavorites(db: Db, table: FavoriteTableName, now: () => number = Date.now) {
  // The three tables have the same columns; Kysely cannot follow a union of table names.
  const name = table as 'workspaceFavorites';
  return {
    /** The user's favorite ids, oldest first. */
    async list(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom(name)
        .select('targetId')
        .where('userId', '=', userId)
        .orderBy('whenCreated')
        .orderBy('id')
        .execute();
      return rows.map((r) => r.targetId);
    },

    /** Adds one; a favorite already there stays as it is. */
    async add(userId: string, targetId: string): Promise<void> {
      try {
        await db
          .insertInto(name)
          .values({ id: newId(), userId, targetId, whenCreated: now() })
          .execute();
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
      }
    },

    async remove(userId: string, targetId: string): Promise<void> {
      await db
        .deleteFrom(name)
        .where('userId', '=', userId)
        .where('targetId', '=', targetId)
        .execute();
    },
  };
}
