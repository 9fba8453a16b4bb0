import { isUniqueViolation, type Db } from '../db';
import type { FavoriteTable } from '../schema';

// A user's favorites of one kind (workspaces, gamespaces, templates): three tables of the same
// shape, one favorite per user and target.

export type FavoriteTableName = 'workspaceFavorites' | 'gamespaceFavorites' | 'templateFavorites';

export function createFavoriteRepository(db: Db, table: FavoriteTableName) {
  // The three tables have the same columns; Kysely cannot follow a union of table names.
  const name = table as 'workspaceFavorites';
  return {
    /** The user's favorite target ids, oldest first. */
    async targetsOf(userId: string): Promise<string[]> {
      const rows = await db
        .selectFrom(name)
        .select('targetId')
        .where('userId', '=', userId)
        .orderBy('whenCreated')
        .orderBy('id')
        .execute();
      return rows.map((r) => r.targetId);
    },

    /** True when the favorite was not there yet (adding twice keeps the first row). */
    async add(row: FavoriteTable): Promise<boolean> {
      try {
        await db.insertInto(name).values(row).execute();
        return true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return false;
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

export type FavoriteRepository = ReturnType<typeof createFavoriteRepository>;
