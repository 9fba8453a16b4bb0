import { isUniqueViolation, type Db } from '../db';
import { preparedRead } from '../prepared';
import type { PlayerTable } from '../schema';

// The players of gamespaces: who may interact with a gamespace, and with which permission. A
// subject is a player of a gamespace once (the primary key).

/** Read on every game state built. */
const playersOf = preparedRead((db: Db, gamespaceId: string) =>
  db.selectFrom('players').selectAll().where('gamespaceId', '=', gamespaceId),
);

/**
 * The game state's order: by name, then subject, comparing code units, so that every engine
 * lists them alike (PostgreSQL would follow its collation). Sorted here rather than by the query:
 * SQLite (built with STAT4) plans a parameterized ORDER BY again on every run, which cost five
 * times the read.
 */
export const inStateOrder = (a: PlayerTable, b: PlayerTable) =>
  a.subjectName < b.subjectName
    ? -1
    : a.subjectName > b.subjectName
      ? 1
      : a.subjectId < b.subjectId
        ? -1
        : a.subjectId > b.subjectId
          ? 1
          : 0;

export function createPlayerRepository(db: Db) {
  return {
    /** A gamespace's players, in the order the game state lists them. */
    async of(gamespaceId: string): Promise<PlayerTable[]> {
      return (await playersOf(db, gamespaceId)).sort(inStateOrder);
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

    /** The players of each of these gamespaces, in the game state's order: one read for all. */
    async inGamespaces(gamespaceIds: readonly string[]): Promise<Map<string, PlayerTable[]>> {
      const byGamespace = new Map<string, PlayerTable[]>();
      if (gamespaceIds.length === 0) return byGamespace;
      const rows = await db
        .selectFrom('players')
        .selectAll()
        .where('gamespaceId', 'in', gamespaceIds)
        .execute();
      for (const player of rows.sort(inStateOrder)) {
        byGamespace.set(player.gamespaceId, [
          ...(byGamespace.get(player.gamespaceId) ?? []),
          player,
        ]);
      }
      return byGamespace;
    },

    /** The players' names of each of these gamespaces, in the game state's order. */
    async namesIn(gamespaceIds: readonly string[]): Promise<Map<string, string[]>> {
      const names = new Map<string, string[]>();
      if (gamespaceIds.length === 0) return names;
      const rows = await db
        .selectFrom('players')
        .selectAll()
        .where('gamespaceId', 'in', gamespaceIds)
        .execute();
      for (const player of rows.sort(inStateOrder)) {
        names.set(player.gamespaceId, [
          ...(names.get(player.gamespaceId) ?? []),
          player.subjectName,
        ]);
      }
      return names;
    },
  };
}

export type PlayerRepository = ReturnType<typeof createPlayerRepository>;
