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

    async removeFor(gamespaceId: string): Promise<void> {
      await db.deleteFrom('gameEvents').where('gamespaceId', '=', gamespaceId).execute();
    },
  };
}

export type GameEventRepository = ReturnType<typeof createGameEventRepository>;
