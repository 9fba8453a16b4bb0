import type { Db } from '../db';
import type { AlertTable } from '../schema';

// Answer-sharing alerts (migration 010) and what finding them reads of the workspace's other
// gamespaces: their ids by variant (the index gamespaces_workspace), then the stored challenges
// of those the alert service has not read yet.

/** The most challenges read in one query (SQLite binds at most 32766 parameters). */
const CHUNK = 500;

export function createAlertRepository(db: Db) {
  return {
    async append(row: AlertTable): Promise<void> {
      await db.insertInto('alerts').values(row).execute();
    },

    /** The newest `limit` alerts, of one workspace or of all, newest first. */
    list: (options: { workspaceId?: string; limit: number }): Promise<AlertTable[]> => {
      let query = db.selectFrom('alerts').selectAll();
      if (options.workspaceId !== undefined) {
        query = query.where('workspaceId', '=', options.workspaceId);
      }
      return query.orderBy('at', 'desc').orderBy('id', 'desc').limit(options.limit).execute();
    },

    /** How many alerts each of these gamespaces raised, for those with any (the wall). */
    async countsOf(gamespaceIds: readonly string[]): Promise<Map<string, number>> {
      if (gamespaceIds.length === 0) return new Map();
      const rows = await db
        .selectFrom('alerts')
        .select(['gamespaceId', (eb) => eb.fn.countAll<number | string>().as('count')])
        .where('gamespaceId', 'in', [...gamespaceIds])
        .groupBy('gamespaceId')
        .execute();
      return new Map(rows.map((r) => [r.gamespaceId, Number(r.count)]));
    },

    /** The ids of the workspace's gamespaces playing `variant`, but `exceptId`. */
    async gamespacesPlaying(
      workspaceId: string,
      variant: number,
      exceptId: string,
    ): Promise<string[]> {
      const rows = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('workspaceId', '=', workspaceId)
        .where('variant', '=', variant)
        .where('id', '!=', exceptId)
        // The first made first: an alert names it among those generated the same answer.
        .orderBy('whenCreated')
        .orderBy('id')
        .execute();
      return rows.map((r) => r.id);
    },

    /** The stored challenge text of each of these gamespaces. */
    async challengesOf(ids: readonly string[]): Promise<Array<{ id: string; challenge: string }>> {
      const out: Array<{ id: string; challenge: string }> = [];
      for (let i = 0; i < ids.length; i += CHUNK) {
        const chunk = ids.slice(i, i + CHUNK);
        out.push(
          ...(await db
            .selectFrom('gamespaces')
            .select(['id', 'challenge'])
            .where('id', 'in', chunk)
            .execute()),
        );
      }
      return out;
    },
  };
}

export type AlertRepository = ReturnType<typeof createAlertRepository>;
