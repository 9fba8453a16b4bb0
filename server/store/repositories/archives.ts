import type { Db } from '../db';
import type { TemplateTable, WorkspaceTable } from '../schema';

// Workspaces as an archive moves them between servers (core/workspaceArchive.ts holds the zip
// layout): the rows an export reads, and the rows an import adds in one transaction.

/** A workspace to import, with its own templates; the rest of the value is the caller's. */
export interface ImportedWorkspace {
  row: WorkspaceTable;
  templates: TemplateTable[];
}

/** What an export holds: the workspaces, their templates, and the stock templates they link to. */
export interface ArchivedRows {
  workspaces: WorkspaceTable[];
  templates: TemplateTable[];
  stock: TemplateTable[];
}

export function createArchiveRepository(db: Db) {
  return {
    /** The given workspaces (every one when `ids` is 'all'), ordered by id, with their templates. */
    async rows(ids: string[] | 'all'): Promise<ArchivedRows> {
      let query = db.selectFrom('workspaces').selectAll().orderBy('id');
      if (ids !== 'all') query = query.where('id', 'in', ids);
      const workspaces = await query.execute();
      const ownIds = workspaces.map((w) => w.id);
      const templates = ownIds.length
        ? await db.selectFrom('templates').selectAll().where('workspaceId', 'in', ownIds).execute()
        : [];
      const parentIds = [...new Set(templates.map((t) => t.parentId).filter((p) => p !== null))];
      const stock = parentIds.length
        ? await db
            .selectFrom('templates')
            .selectAll()
            .where('id', 'in', parentIds)
            .where('workspaceId', 'is', null)
            .execute()
        : [];
      return { workspaces, templates, stock };
    },

    /**
     * Adds, in one transaction, the stock templates and the workspaces that are not here yet (ids
     * kept), and answers the workspaces added. Templates whose id exists are left as they are.
     */
    addMissing<W extends ImportedWorkspace>(stock: TemplateTable[], workspaces: W[]): Promise<W[]> {
      return db.transaction().execute(async (tx) => {
        const hasTemplate = async (id: string) =>
          (await tx
            .selectFrom('templates')
            .select('id')
            .where('id', '=', id)
            .executeTakeFirst()) !== undefined;
        for (const t of stock) {
          if (!(await hasTemplate(t.id))) {
            await tx
              .insertInto('templates')
              .values({ ...t, parentId: null })
              .execute();
          }
        }
        const imported: W[] = [];
        for (const w of workspaces) {
          const exists = await tx
            .selectFrom('workspaces')
            .select('id')
            .where('id', '=', w.row.id)
            .executeTakeFirst();
          if (exists || imported.some((i) => i.row.id === w.row.id)) continue;
          await tx.insertInto('workspaces').values(w.row).execute();
          for (const t of w.templates) {
            if (await hasTemplate(t.id)) continue;
            // A parent that is neither here nor in the archive (another workspace's template) is
            // dropped: the template keeps its own detail and is no longer linked.
            const parentId = t.parentId && (await hasTemplate(t.parentId)) ? t.parentId : null;
            await tx
              .insertInto('templates')
              .values({ ...t, parentId })
              .execute();
          }
          imported.push(w);
        }
        return imported;
      });
    },
  };
}

export type ArchiveRepository = ReturnType<typeof createArchiveRepository>;
