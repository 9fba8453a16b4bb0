import type { Db } from '../db';
import type { GameEventTable } from '../schema';

// A gamespace's event log (migration 008): rows are appended, read per gamespace in time order
// (the index game_events_gamespace serves both the read and the delete) and deleted with the
// gamespace (gamespaces.ts removes them in the gamespace's own transaction).

export function createGameEventRepository(db: Db) {
  return {
    async append(row: GameEventTable): Promise<void> {
      await db.insertInto('gameEvents').values(row).execute();
    },

    /** The gamespace's events, oldest first. */
    list: (gamespaceId: string): Promise<GameEventTable[]> =>
      db
        .selectFrom('gameEvents')
        .selectAll()
        .where('gamespaceId', '=', gamespaceId)
        .orderBy('at')
        .orderBy('id')
        .execute(),

    /**
     * When the latest event of each of these gamespaces happened (those without any are absent):
     * one grouped read for all of them, each group's maximum found by the index.
     */
    async latestOf(gamespaceIds: readonly string[]): Promise<Map<string, number>> {
      if (gamespaceIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('gameEvents')
        .select(['gamespaceId', (eb) => eb.fn.max('at').as('at')])
        .where('gamespaceId', 'in', gamespaceIds)
        .groupBy('gamespaceId')
        .execute();
      return new Map(rows.map((row) => [row.gamespaceId, Number(row.at)]));
    },

    async removeFor(gamespaceId: string): Promise<void> {
      await db.deleteFrom('gameEvents').where('gamespaceId', '=', gamespaceId).execute();
    },
  };
}

export type GameEventRepository = ReturnType<typeof createGameEventRepository>;
