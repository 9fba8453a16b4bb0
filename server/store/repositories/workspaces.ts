import { isUniqueViolation, type Db } from '../db';
import { preparedRead } from '../prepared';
import type { TemplateTable, WorkerTable, WorkspaceTable } from '../schema';
import { contains, startsWith } from './search';

// Workspaces and their workers (who may edit or manage them, joined through the invitation code).
// Deleting and cloning a workspace are units of work over its templates, workers, favorites and
// gamespaces too, so they are here whole.

/** What a workspace list reads (see WorkspaceService.list). */
export interface WorkspaceQuery {
  /** Already lowercase: in the name, tags, description, author or audience, or the start of the id. */
  term: string;
  /** Only the workspaces this subject works on. */
  workerId?: string;
  /** Newest first, else by name; ties by id. */
  byAge: boolean;
  /** A page of the ordered list; the whole list without it. */
  page?: { skip: number; take: number };
}

/** A template row with the name of its parent (the workspace DTO lists them so). */
export type TemplateWithParentName = TemplateTable & { parentName: string | null };

/** What the janitor reports of a workspace. */
export type JanitorWorkspace = Pick<
  WorkspaceTable,
  'id' | 'name' | 'author' | 'lastActivity' | 'isPublished'
>;

/** Read on every launch and every workspace page. */
const byId = preparedRead((db: Db, id: string) =>
  db.selectFrom('workspaces').selectAll().where('id', '=', id),
);

export function createWorkspaceRepository(db: Db) {
  return {
    async find(id: string): Promise<WorkspaceTable | undefined> {
      return (await byId(db, id))[0];
    },

    findByShareCode(code: string): Promise<WorkspaceTable | undefined> {
      return db
        .selectFrom('workspaces')
        .selectAll()
        .where('shareCode', '=', code)
        .executeTakeFirst();
    },

    async exists(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', id)
        .executeTakeFirst();
      return !!row;
    },

    /** The names of the workspaces among `ids` that exist. */
    async namesOf(ids: readonly string[]): Promise<Array<Pick<WorkspaceTable, 'id' | 'name'>>> {
      if (ids.length === 0) return [];
      return db.selectFrom('workspaces').select(['id', 'name']).where('id', 'in', ids).execute();
    },

    /** Every workspace's audience. */
    audiences(): Promise<Array<Pick<WorkspaceTable, 'id' | 'audience'>>> {
      return db.selectFrom('workspaces').select(['id', 'audience']).execute();
    },

    /** The workspaces a query selects, in its order. */
    search(query: WorkspaceQuery): Promise<WorkspaceTable[]> {
      const { term, workerId } = query;
      let q = db.selectFrom('workspaces as w').selectAll('w');
      if (term) {
        q = q.where((eb) =>
          eb.or([
            contains('w.name', term),
            contains('w.tags', term),
            contains('w.description', term),
            contains('w.author', term),
            contains('w.audience', term),
            startsWith('w.id', term),
          ]),
        );
      }
      if (workerId !== undefined) {
        q = q.where('w.id', 'in', (eb) =>
          eb.selectFrom('workers').select('workspaceId').where('subjectId', '=', workerId),
        );
      }
      if (!query.page) return q.execute();
      q = query.byAge ? q.orderBy('w.whenCreated', 'desc') : q.orderBy('w.name');
      return q.orderBy('w.id').limit(query.page.take).offset(query.page.skip).execute();
    },

    /** A new workspace with its first worker, together. */
    async create(row: WorkspaceTable, worker: WorkerTable): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('workspaces').values(row).execute();
        await tx.insertInto('workers').values(worker).execute();
      });
    },

    /** A copy of a workspace with its workers and templates, together. */
    async createCopy(
      row: WorkspaceTable,
      workers: readonly WorkerTable[],
      templates: readonly TemplateTable[],
    ): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('workspaces').values(row).execute();
        if (workers.length > 0) await tx.insertInto('workers').values(workers).execute();
        if (templates.length > 0) await tx.insertInto('templates').values(templates).execute();
      });
    },

    async update(id: string, changes: Partial<WorkspaceTable>): Promise<void> {
      await db.updateTable('workspaces').set(changes).where('id', '=', id).execute();
    },

    /**
     * The workspace with its templates, workers and the favorites of both, together; its
     * gamespaces keep their rows, with no workspace.
     */
    async remove(id: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx
          .deleteFrom('templateFavorites')
          .where('targetId', 'in', (eb) =>
            eb.selectFrom('templates').select('id').where('workspaceId', '=', id),
          )
          .execute();
        await tx.deleteFrom('workspaceFavorites').where('targetId', '=', id).execute();
        await tx
          .updateTable('gamespaces')
          .set({ workspaceId: null })
          .where('workspaceId', '=', id)
          .execute();
        await tx.deleteFrom('templates').where('workspaceId', '=', id).execute();
        await tx.deleteFrom('workers').where('workspaceId', '=', id).execute();
        await tx.deleteFrom('workspaces').where('id', '=', id).execute();
      });
    },

    /** The workspace's templates. */
    templatesOf(workspaceId: string): Promise<TemplateTable[]> {
      return db
        .selectFrom('templates')
        .selectAll()
        .where('workspaceId', '=', workspaceId)
        .execute();
    },

    /** The workspace's templates with their parents' names. */
    async templatesWithParentNames(workspaceId: string): Promise<TemplateWithParentName[]> {
      const rows = await db
        .selectFrom('templates as t')
        .leftJoin('templates as p', 'p.id', 't.parentId')
        .selectAll('t')
        .select('p.name as parentName')
        .where('t.workspaceId', '=', workspaceId)
        .execute();
      return rows.map((r) => ({ ...r, parentName: r.parentName ?? null }));
    },

    /** The ids of the workspace's gamespaces that have not ended. */
    async unendedGames(workspaceId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('workspaceId', '=', workspaceId)
        .where('endTime', '=', 0)
        .execute();
      return rows.map((r) => r.id);
    },

    async countUnendedGames(workspaceId: string): Promise<number> {
      const { n } = await db
        .selectFrom('gamespaces')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .where('endTime', '=', 0)
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /** Ends these gamespaces at `endTime`. */
    async endGames(ids: readonly string[], endTime: number): Promise<void> {
      if (ids.length === 0) return;
      await db.updateTable('gamespaces').set({ endTime }).where('id', 'in', ids).execute();
    },

    // Workers.

    /** The workspace's workers by name (then id). */
    workersOf(workspaceId: string): Promise<WorkerTable[]> {
      return db
        .selectFrom('workers')
        .selectAll()
        .where('workspaceId', '=', workspaceId)
        .orderBy('subjectName')
        .orderBy('subjectId')
        .execute();
    },

    /** The subject's permission flags in the workspace; null when not a worker. */
    async permissionOf(workspaceId: string, subjectId: string): Promise<number | null> {
      const w = await db
        .selectFrom('workers')
        .select('permission')
        .where('workspaceId', '=', workspaceId)
        .where('subjectId', '=', subjectId)
        .executeTakeFirst();
      return w ? w.permission : null;
    },

    async isWorker(workspaceId: string, subjectId: string): Promise<boolean> {
      const w = await db
        .selectFrom('workers')
        .select('subjectId')
        .where('workspaceId', '=', workspaceId)
        .where('subjectId', '=', subjectId)
        .executeTakeFirst();
      return !!w;
    },

    /** The ids of the workspaces the subject works on. */
    async workedOnBy(subjectId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('workers')
        .select('workspaceId')
        .where('subjectId', '=', subjectId)
        .execute();
      return rows.map((r) => r.workspaceId);
    },

    /** The workspaces the subject works on, by name (then id). */
    ofWorker(subjectId: string): Promise<WorkspaceTable[]> {
      return db
        .selectFrom('workspaces as w')
        .selectAll('w')
        .where('w.id', 'in', (eb) =>
          eb.selectFrom('workers').select('workspaceId').where('subjectId', '=', subjectId),
        )
        .orderBy('w.name')
        .orderBy('w.id')
        .execute();
    },

    /** How many workspaces the subject works on with exactly these permission flags. */
    async countWorkedOnWith(subjectId: string, permission: number): Promise<number> {
      const { n } = await db
        .selectFrom('workers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subjectId', '=', subjectId)
        .where('permission', '=', permission)
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /** True when the subject was not a worker yet (adding twice keeps the first row). */
    async addWorker(worker: WorkerTable): Promise<boolean> {
      try {
        await db.insertInto('workers').values(worker).execute();
        return true;
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        return false;
      }
    },

    async removeWorker(workspaceId: string, subjectId: string): Promise<void> {
      await db
        .deleteFrom('workers')
        .where('workspaceId', '=', workspaceId)
        .where('subjectId', '=', subjectId)
        .execute();
    },

    // The janitor's reports (server/core/janitor.ts).

    /** Workspaces last active after `after` and before `before`. */
    lastActiveBetween(after: number, before: number): Promise<JanitorWorkspace[]> {
      return db
        .selectFrom('workspaces')
        .select(['id', 'name', 'author', 'lastActivity', 'isPublished'])
        .where('lastActivity', '>', after)
        .where('lastActivity', '<', before)
        .execute();
    },

    /**
     * Unpublished workspaces without an audience last active before `unpublishedBefore`, and
     * published ones last active before `publishedBefore`.
     */
    idle(options: {
      unpublishedBefore: number;
      publishedBefore: number;
    }): Promise<JanitorWorkspace[]> {
      return db
        .selectFrom('workspaces')
        .select(['id', 'name', 'author', 'lastActivity', 'isPublished'])
        .where((eb) =>
          eb.or([
            eb.and([
              eb('isPublished', '=', 0),
              eb('audience', '=', ''),
              eb('lastActivity', '<', options.unpublishedBefore),
            ]),
            eb.and([eb('isPublished', '=', 1), eb('lastActivity', '<', options.publishedBefore)]),
          ]),
        )
        .execute();
    },

    /** The workers of these workspaces with exactly these permission flags, by name. */
    async workersWith(
      workspaceIds: readonly string[],
      permission: number,
    ): Promise<Array<Pick<WorkerTable, 'workspaceId' | 'subjectName'>>> {
      if (workspaceIds.length === 0) return [];
      return db
        .selectFrom('workers')
        .select(['workspaceId', 'subjectName'])
        .where('workspaceId', 'in', workspaceIds)
        .where('permission', '=', permission)
        .orderBy('subjectName')
        .execute();
    },
  };
}

export type WorkspaceRepository = ReturnType<typeof createWorkspaceRepository>;
