import type { Db } from '../db';
import type { DispatchTable } from '../schema';

// Dispatches: commands for a gamespace's in-lab agents and their answers (wire reference §4.12).
// `targetGroup` is a gamespace id without a foreign key, as there: a record outlives nothing it
// depends on, and the janitor's deletion of a gamespace leaves its dispatches readable by admins.

export interface DispatchQuery {
  targetGroup: string;
  /** Only those not answered yet (whenUpdated unset). */
  pending: boolean;
  /** Only those created or answered after this time (ms); 0 for all. */
  since: number;
  skip: number;
  take: number;
}

export function createDispatchRepository(db: Db) {
  return {
    find(id: string): Promise<DispatchTable | undefined> {
      return db.selectFrom('dispatches').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async insert(row: DispatchTable): Promise<void> {
      await db.insertInto('dispatches').values(row).execute();
    },

    /** False when there was no such record. */
    async answer(
      id: string,
      answer: Pick<DispatchTable, 'result' | 'error' | 'targetName' | 'whenUpdated'>,
    ): Promise<boolean> {
      const changed = await db
        .updateTable('dispatches')
        .set(answer)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(changed.numUpdatedRows) > 0;
    },

    async remove(id: string): Promise<boolean> {
      const deleted = await db.deleteFrom('dispatches').where('id', '=', id).executeTakeFirst();
      return Number(deleted.numDeletedRows) > 0;
    },

    /**
     * A gamespace's dispatches, oldest first. The answers to a broadcast keep its creation time:
     * they follow it in the order they came (id breaks the last ties, so pages do not overlap).
     */
    list(query: DispatchQuery): Promise<DispatchTable[]> {
      let q = db.selectFrom('dispatches').selectAll().where('targetGroup', '=', query.targetGroup);
      if (query.pending) q = q.where('whenUpdated', '=', 0);
      if (query.since > 0) {
        const since = query.since;
        q = q.where((eb) => eb.or([eb('whenCreated', '>', since), eb('whenUpdated', '>', since)]));
      }
      return q
        .orderBy('whenCreated')
        .orderBy('whenUpdated')
        .orderBy('id')
        .offset(query.skip)
        .limit(query.take)
        .execute();
    },
  };
}

export type DispatchRepository = ReturnType<typeof createDispatchRepository>;
