import type { Db } from '../store/db';
import type { TemplateTable, WorkerTable, WorkspaceTable } from '../store/schema';
import { isoDate } from './dto';
import { forbidden, notFound, ValidationFailed } from './errors';
import { newId } from './ids';
import type { Actor } from './users';

// Workspace permissions are flags: Editor = 1; Manager = 0xFF includes Editor.
export const PERMISSION = { none: 0, editor: 1, manager: 0xff } as const;
export const DEFAULT_TEMPLATE_LIMIT = 3;

export function permissionName(p: number): 'none' | 'editor' | 'manager' {
  if ((p & PERMISSION.manager) === PERMISSION.manager) return 'manager';
  if (p & PERMISSION.editor) return 'editor';
  return 'none';
}

export function workerDto(w: WorkerTable) {
  const permission = permissionName(w.permission);
  return {
    workspaceId: w.workspaceId,
    subjectId: w.subjectId,
    subjectName: w.subjectName,
    permission,
    canManage: permission === 'manager',
    canEdit: permission !== 'none',
  };
}

export function templateDto(
  t: TemplateTable,
  parentName: string | null,
  workspaceName: string | null,
) {
  return {
    id: t.id,
    name: t.name,
    description: t.description,
    audience: t.audience,
    networks: t.networks,
    iso: t.iso,
    guestinfo: t.guestinfo,
    isHidden: !!t.isHidden,
    isLinked: !!t.isLinked,
    parentId: t.parentId,
    parentName,
    replicas: t.replicas,
    variant: t.variant,
    workspaceId: t.workspaceId,
    workspaceName,
  };
}

export function workspaceDto(
  w: WorkspaceTable,
  workers: WorkerTable[],
  templates: ReturnType<typeof templateDto>[],
) {
  return {
    id: w.id,
    name: w.name,
    description: w.description,
    tags: w.tags,
    author: w.author,
    audience: w.audience,
    whenCreated: isoDate(w.whenCreated),
    templateScope: w.templateScope,
    templateLimit: w.templateLimit,
    durationMinutes: w.durationMinutes,
    challenge: w.challenge,
    workers: workers.map(workerDto),
    templates,
  };
}

export interface NewWorkspace {
  name?: unknown;
  description?: unknown;
  tags?: unknown;
  author?: unknown;
  audience?: unknown;
  templateScope?: unknown;
  templateLimit?: unknown;
}

const text = (v: unknown, max: number, field: string): string => {
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw new ValidationFailed(field, `InvalidPropertyValue '${field}'`);
  if (v.length > max)
    throw new ValidationFailed(field, `The field ${field} must be at most ${max} characters.`);
  return v;
};

export function createWorkspaceService(db: Db) {
  async function load(id: string) {
    const ws = await db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (!ws) return null;
    const workers = await db
      .selectFrom('workers')
      .selectAll()
      .where('workspaceId', '=', id)
      .execute();
    const rows = await db
      .selectFrom('templates as t')
      .leftJoin('templates as p', 'p.id', 't.parentId')
      .selectAll('t')
      .select('p.name as parentName')
      .where('t.workspaceId', '=', id)
      .execute();
    const templates = rows
      .map(({ parentName, ...t }) => templateDto(t, parentName ?? null, ws.name))
      .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
    return workspaceDto(ws, workers, templates);
  }

  async function permissionOf(actorId: string, workspaceId: string): Promise<number> {
    const w = await db
      .selectFrom('workers')
      .select('permission')
      .where('workspaceId', '=', workspaceId)
      .where('subjectId', '=', actorId)
      .executeTakeFirst();
    return w?.permission ?? 0;
  }

  return {
    async exists(id: string): Promise<boolean> {
      return !!(await db
        .selectFrom('workspaces')
        .select('id')
        .where('id', '=', id)
        .executeTakeFirst());
    },

    async canEdit(actor: Actor, id: string): Promise<boolean> {
      return actor.isAdmin || ((await permissionOf(actor.id, id)) & PERMISSION.editor) !== 0;
    },

    async canManage(actor: Actor, id: string): Promise<boolean> {
      return (
        actor.isAdmin ||
        ((await permissionOf(actor.id, id)) & PERMISSION.manager) === PERMISSION.manager
      );
    },

    /** Creators may always create; others while they manage fewer workspaces than their limit. */
    async canCreate(actor: Actor): Promise<boolean> {
      if (actor.isCreator) return true;
      if (actor.isAgent || actor.workspaceLimit <= 0) return false;
      const managed = await db
        .selectFrom('workers')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('subjectId', '=', actor.id)
        .where('permission', '=', PERMISSION.manager)
        .executeTakeFirstOrThrow();
      return Number(managed.n) < actor.workspaceLimit;
    },

    async create(actor: Actor, model: NewWorkspace) {
      if (!(await this.canCreate(actor))) throw forbidden();
      if (model.name === undefined || model.name === null) {
        throw new ValidationFailed('name', "Missing value for required property 'name'");
      }
      const name = text(model.name, 64, 'name').trim();
      if (!name) throw new ValidationFailed('name', "Missing value for required property 'name'");
      const limit = Number(model.templateLimit);
      const row: WorkspaceTable = {
        id: newId(),
        name,
        description: text(model.description, 255, 'description'),
        tags: text(model.tags, 255, 'tags'),
        author: text(model.author, 64, 'author') || actor.name.slice(0, 64),
        audience: text(model.audience, 64, 'audience'),
        shareCode: '',
        // Only creators choose the template scope and limit; everyone else gets the defaults.
        templateScope: actor.isCreator ? text(model.templateScope, 64, 'templateScope') : '',
        templateLimit:
          actor.isCreator && Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_TEMPLATE_LIMIT,
        isPublished: 0,
        hostAffinity: 0,
        useUplinkSwitch: 0,
        durationMinutes: 0,
        launchCount: 0,
        lastActivity: Date.now(),
        challenge: '',
        whenCreated: Date.now(),
      };
      await db.transaction().execute(async (tx) => {
        await tx.insertInto('workspaces').values(row).execute();
        await tx
          .insertInto('workers')
          .values({
            workspaceId: row.id,
            subjectId: actor.id,
            subjectName: actor.name.slice(0, 64),
            permission: PERMISSION.manager,
          })
          .execute();
      });
      const created = await load(row.id);
      if (!created) throw notFound();
      return created;
    },

    load,
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
