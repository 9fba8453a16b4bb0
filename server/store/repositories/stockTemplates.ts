import { isUniqueViolation, type Db } from '../db';
import type { TemplateTable } from '../schema';

// The stock templates' seeding: the templates and a marker that they were seeded, so that
// deleting them all is not undone at the next start; later changes of the stock templates, each
// with a marker of its own, so that they are made once.

export function createStockTemplateRepository(db: Db) {
  return {
    async isMarked(markerKey: string): Promise<boolean> {
      const marker = await db
        .selectFrom('keyValues')
        .select('key')
        .where('key', '=', markerKey)
        .executeTakeFirst();
      return !!marker;
    },

    /**
     * The marker and the templates, together; false when the marker was there already (another
     * server seeded meanwhile: the marker's key is unique), and then nothing is added.
     */
    async seed(
      marker: { key: string; value: string },
      templates: readonly TemplateTable[],
    ): Promise<boolean> {
      try {
        await db.transaction().execute(async (tx) => {
          await tx.insertInto('keyValues').values(marker).execute();
          await tx.insertInto('templates').values(templates).execute();
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },

    /** Stock templates (in no workspace) of these names. */
    async stockNamed(names: readonly string[]): Promise<TemplateTable[]> {
      if (names.length === 0) return [];
      return db
        .selectFrom('templates')
        .selectAll()
        .where('workspaceId', 'is', null)
        .where('name', 'in', [...names])
        .execute();
    },

    /**
     * The marker and the changes of templates, together; false when the marker was there
     * already (another server made them meanwhile), and then nothing is changed.
     */
    async update(
      marker: { key: string; value: string },
      changes: ReadonlyArray<{ id: string; changes: Partial<TemplateTable> }>,
    ): Promise<boolean> {
      try {
        await db.transaction().execute(async (tx) => {
          await tx.insertInto('keyValues').values(marker).execute();
          for (const change of changes) {
            await tx
              .updateTable('templates')
              .set(change.changes)
              .where('id', '=', change.id)
              .execute();
          }
        });
        return true;
      } catch (error) {
        if (isUniqueViolation(error)) return false;
        throw error;
      }
    },
  };
}

export type StockTemplateRepository = ReturnType<typeof createStockTemplateRepository>;
