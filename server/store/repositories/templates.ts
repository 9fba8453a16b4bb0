import type { Db } from '../db';
import { preparedRead } from '../prepared';
import type { TemplateTable } from '../schema';
import { contains, startsWith } from './search';

// Templates: stock ones (no workspace) and those of workspaces, linked to a parent or not. Rows
// are read with the names of their parent and workspace, which every template DTO shows.

/** A template row with the names of its parent and workspace. */
export interface NamedTemplate extends TemplateTable {
  parentName: string | null;
  workspaceName: string | null;
}

/** What a template list reads (see TemplateService.list). */
export interface TemplateQuery {
  /** Already lowercase: in the name or audience, or the start of the id, workspace id or name. */
  term: string;
  /** Only the children of this template. */
  parentId?: string;
  publishedOnly: boolean;
  skip: number;
  take: number;
}

/** A template row with its parent's detail (what a gamespace deploys). */
export type TemplateWithParentDetail = TemplateTable & { parentDetail: string | null };

/** A template that mounts an ISO (IsoStore.usage). */
export interface IsoUser {
  id: string;
  name: string;
  workspaceId: string | null;
  workspaceName: string | null;
}

/**
 * Read on every game state built of a gamespace: which machines a player sees, and the networks
 * of those its topology diagram draws.
 */
const visibility = preparedRead((db: Db, workspaceId: string) =>
  db
    .selectFrom('templates')
    .select(['name', 'isHidden', 'networks', 'variant'])
    .where('workspaceId', '=', workspaceId),
);

/** Read on every launch: the templates its machines are deployed from. */
const withParentDetail = preparedRead((db: Db, workspaceId: string) =>
  db
    .selectFrom('templates as t')
    .leftJoin('templates as p', 'p.id', 't.parentId')
    .selectAll('t')
    .select('p.detail as parentDetail')
    .where('t.workspaceId', '=', workspaceId)
    .orderBy('t.name'),
);

export function createTemplateRepository(db: Db) {
  const named = () =>
    db
      .selectFrom('templates as t')
      .leftJoin('templates as p', 'p.id', 't.parentId')
      .leftJoin('workspaces as w', 'w.id', 't.workspaceId')
      .selectAll('t')
      .select(['p.name as parentName', 'w.name as workspaceName']);

  const withNames = <T extends { parentName?: string | null; workspaceName?: string | null }>(
    row: T,
  ) => ({ ...row, parentName: row.parentName ?? null, workspaceName: row.workspaceName ?? null });

  return {
    find(id: string): Promise<TemplateTable | undefined> {
      return db.selectFrom('templates').selectAll().where('id', '=', id).executeTakeFirst();
    },

    async findNamed(id: string): Promise<NamedTemplate | undefined> {
      const row = await named().where('t.id', '=', id).executeTakeFirst();
      return row && withNames(row);
    },

    /** The templates a query selects, ordered by name. */
    async search(query: TemplateQuery): Promise<NamedTemplate[]> {
      const { term, parentId } = query;
      let q = named();
      if (term) {
        q = q.where((eb) =>
          eb.or([
            contains('t.name', term),
            startsWith('t.id', term),
            startsWith('t.workspaceId', term),
            contains('t.audience', term),
            startsWith('w.name', term),
          ]),
        );
      }
      if (parentId !== undefined) q = q.where('t.parentId', '=', parentId);
      if (query.publishedOnly) q = q.where('t.isPublished', '=', 1);
      const rows = await q
        .orderBy('t.name')
        .orderBy('t.id')
        .limit(query.take)
        .offset(query.skip)
        .execute();
      return rows.map(withNames);
    },

    /** The other children of the template's parent, ordered by name. */
    async siblingsOf(template: { id: string; parentId: string }): Promise<NamedTemplate[]> {
      const rows = await named()
        .where('t.parentId', '=', template.parentId)
        .where('t.id', '!=', template.id)
        .orderBy('t.name')
        .orderBy('t.id')
        .execute();
      return rows.map(withNames);
    },

    /** The templates with an audience, ordered by name. */
    async withAudience(): Promise<NamedTemplate[]> {
      const rows = await named()
        .where('t.audience', '!=', '')
        .orderBy('t.name')
        .orderBy('t.id')
        .execute();
      return rows.map(withNames);
    },

    async hasChildren(id: string): Promise<boolean> {
      const child = await db
        .selectFrom('templates')
        .select('id')
        .where('parentId', '=', id)
        .executeTakeFirst();
      return !!child;
    },

    /** The names of the workspace's templates. */
    async namesInWorkspace(workspaceId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('templates')
        .select('name')
        .where('workspaceId', '=', workspaceId)
        .execute();
      return rows.map((row) => row.name);
    },

    async countInWorkspace(workspaceId: string): Promise<number> {
      const { n } = await db
        .selectFrom('templates')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /** The ISO paths the workspace's templates name (an empty one is none). */
    async isosOfWorkspace(workspaceId: string): Promise<string[]> {
      const rows = await db
        .selectFrom('templates')
        .select('iso')
        .where('workspaceId', '=', workspaceId)
        .where('iso', '!=', '')
        .execute();
      return rows.map((r) => r.iso);
    },

    /** The templates that mount the ISO at this path, ordered by name. */
    async usingIso(path: string): Promise<IsoUser[]> {
      const rows = await db
        .selectFrom('templates as t')
        .leftJoin('workspaces as w', 'w.id', 't.workspaceId')
        .select(['t.id', 't.name', 't.workspaceId', 'w.name as workspaceName'])
        .where('t.iso', '=', path)
        .orderBy('t.name')
        .execute();
      return rows.map((r) => ({ ...r, workspaceName: r.workspaceName ?? null }));
    },

    /** The workspace's templates by name, with their parents' details (linked ones deploy them). */
    ofWorkspaceWithParentDetail(workspaceId: string): Promise<TemplateWithParentDetail[]> {
      return withParentDetail(db, workspaceId);
    },

    /** Which of the workspace's templates are hidden from players, by name. */
    visibilityInWorkspace(
      workspaceId: string,
    ): Promise<Array<Pick<TemplateTable, 'name' | 'isHidden' | 'networks' | 'variant'>>> {
      return visibility(db, workspaceId);
    },

    async insert(row: TemplateTable): Promise<void> {
      await db.insertInto('templates').values(row).execute();
    },

    async update(id: string, changes: Partial<TemplateTable>): Promise<void> {
      await db.updateTable('templates').set(changes).where('id', '=', id).execute();
    },

    /** The template and the favorites that point at it, together. */
    async remove(id: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('templateFavorites').where('targetId', '=', id).execute();
        await tx.deleteFrom('templates').where('id', '=', id).execute();
      });
    },
  };
}

export type TemplateRepository = ReturnType<typeof createTemplateRepository>;
