import type { Db } from '../db';
import type { DocumentUpdateTable } from '../schema';

// The co-editing logs of workspace documents: one row per Yjs update (base64), in no order, since
// the document is their merge in any order.

/** A row of a document's log as compaction reads it. */
export type LoggedUpdate = Pick<DocumentUpdateTable, 'id' | 'update'>;

/** Ids deleted per statement: PostgreSQL and SQLite limit the parameters of one statement. */
const DELETE_CHUNK = 500;

export function createDocumentRepository(db: Db) {
  return {
    async count(workspaceId: string): Promise<number> {
      const { n } = await db
        .selectFrom('documentUpdates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /** The log's updates, base64. */
    async updates(workspaceId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('documentUpdates')
        .select('update')
        .where('workspaceId', '=', workspaceId)
        .execute();
      return rows.map((r) => r.update);
    },

    async append(row: DocumentUpdateTable): Promise<void> {
      await db.insertInto('documentUpdates').values(row).execute();
    },

    /** Appends unless a row with its id is there already (the seed of a log, which has one id). */
    async appendOnce(row: DocumentUpdateTable): Promise<void> {
      await db
        .insertInto('documentUpdates')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
    },

    /**
     * Replaces the log's rows by the one row `merge` makes of them, in one transaction; `merge`
     * answers null to leave the log as it is. Rows appended meanwhile are not among the deleted
     * ids, so they stay.
     */
    async replaceAll(
      workspaceId: string,
      merge: (rows: LoggedUpdate[]) => DocumentUpdateTable | null,
    ): Promise<void> {
      await db.transaction().execute(async (tx) => {
        const rows = await tx
          .selectFrom('documentUpdates')
          .select(['id', 'update'])
          .where('workspaceId', '=', workspaceId)
          .execute();
        const merged = merge(rows);
        if (!merged) return;
        const ids = rows.map((r) => r.id);
        for (let i = 0; i < ids.length; i += DELETE_CHUNK) {
          await tx
            .deleteFrom('documentUpdates')
            .where('id', 'in', ids.slice(i, i + DELETE_CHUNK))
            .execute();
        }
        await tx.insertInto('documentUpdates').values(merged).execute();
      });
    },

    /** A deleted workspace's log. */
    async removeAll(workspaceId: string): Promise<void> {
      await db.deleteFrom('documentUpdates').where('workspaceId', '=', workspaceId).execute();
    },
  };
}

export type DocumentRepository = ReturnType<typeof createDocumentRepository>;
