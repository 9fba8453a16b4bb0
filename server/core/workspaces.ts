import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isUniqueViolation, type Db } from '../store/db';
import type { TemplateTable, WorkerTable, WorkspaceTable } from '../store/schema';
import { hasAnyToken, isoDate, slug } from './dto';
import { DomainError, forbidden, notFound, ValidationFailed } from './errors';
import {
  actorRef,
  contains,
  integer,
  normalizeTerm,
  optionalText,
  paging,
  requiredText,
  silentPublisher,
  startsWith,
  unknownArgument,
  type Publisher,
} from './fields';
import { newId } from './ids';
import { clonedTemplateName, cloneName, NAME_MAX } from './naming';
import { localizeDiskPaths, parseDetail, serializeDetail, templateDto } from './templates';
import type { Actor } from './users';
import { createFavorites } from './favorites';
import { NO_REVOKER, type ListenerRevoker } from './membership';

export { templateDto } from './templates';

// Workspaces (wire reference §1.1, §2.1, §4.7, §4.8): the list and its visibility rules, settings,
// clone, delete, statistics, invitations and workers, favorites.

// Workspace permissions are flags: Editor = 1; Manager = 0xFF includes Editor.
export const PERMISSION = { none: 0, editor: 1, manager: 0xff } as const;
export const DEFAULT_TEMPLATE_LIMIT = 3;

/** Field limits (wire reference §6). */
export const WORKSPACE_LIMITS = {
  name: NAME_MAX,
  description: 255,
  tags: 255,
  author: 64,
  audience: 64,
  templateScope: 64,
} as const;

/** The markdown document's cut line: the list shows the part above it with `doc=1`. */
export const MARKDOWN_CUT_LINE = '<!-- cut -->';

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

export type WorkspaceDto = ReturnType<typeof workspaceDto>;

export function workspaceSummaryDto(w: WorkspaceTable, text: string | null = null) {
  return {
    id: w.id,
    name: w.name,
    slug: slug(w.name),
    description: w.description,
    tags: w.tags,
    text,
    audience: w.audience,
    author: w.author,
    durationMinutes: w.durationMinutes,
    whenCreated: isoDate(w.whenCreated),
    lastActivity: isoDate(w.lastActivity),
  };
}

export type WorkspaceSummaryDto = ReturnType<typeof workspaceSummaryDto>;

export interface NewWorkspace {
  name?: unknown;
  description?: unknown;
  tags?: unknown;
  author?: unknown;
  audience?: unknown;
  templateScope?: unknown;
  templateLimit?: unknown;
}

/** RestrictedChangedWorkspace, and with `templateScope`/`templateLimit` ChangedWorkspace. */
export interface ChangedWorkspace {
  id?: unknown;
  name?: unknown;
  description?: unknown;
  tags?: unknown;
  author?: unknown;
  audience?: unknown;
  durationMinutes?: unknown;
  templateScope?: unknown;
  templateLimit?: unknown;
}

export interface WorkspaceSearch {
  term?: string;
  skip?: number;
  take?: number;
  sort?: string;
  filter?: string[];
  aud?: string;
  /** 0 = no text, 1 = the document above the cut line, 2 (or more) = the whole document. */
  doc?: number;
}

export interface WorkspaceStats {
  id: string;
  activeGamespaceCount: number;
  launchCount: number;
  lastActivity: string;
}

/**
 * The seam where the machine issue plugs in (wire reference §4.8): before a workspace's rows go,
 * its builder VMs and the disks of its templates are removed; a gamespace ended from its workspace
 * has its VMs removed. Until then nothing runs, so these do nothing.
 */
export interface WorkspaceMachines {
  workspaceDeleted(workspaceId: string, templates: TemplateTable[]): Promise<void>;
  gamespaceEnded(gamespaceId: string): Promise<void>;
}

export const NO_WORKSPACE_MACHINES: WorkspaceMachines = {
  workspaceDeleted: async () => {},
  gamespaceEnded: async () => {},
};

export interface WorkspaceServiceOptions {
  publisher?: Publisher;
  machines?: WorkspaceMachines;
  /** Workers removed and workspaces deleted stop receiving the workspace's hub events. */
  listeners?: ListenerRevoker;
  /** The folder of workspace documents (`{id}.md`), read for `doc` in the list. */
  docsDir?: string;
}

const tokens = (s: string) =>
  s
    .toLowerCase()
    .split(/[\s,;]+/)
    .filter(Boolean);

/** Every token of `wanted` is in `scope`: the actor may ask for that audience. */
const hasScope = (scope: string, wanted: string) => {
  const own = new Set(tokens(scope));
  return tokens(wanted).every((t) => own.has(t));
};

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;

export function createWorkspaceService(db: Db, options: WorkspaceServiceOptions = {}) {
  const publisher = options.publisher ?? silentPublisher;
  const machines = options.machines ?? NO_WORKSPACE_MACHINES;
  const listeners = options.listeners ?? NO_REVOKER;
  const favorites = createFavorites(db, 'workspaceFavorites');

  async function find(id: unknown): Promise<WorkspaceTable | undefined> {
    const key = asId(id);
    if (!key) return undefined;
    return db.selectFrom('workspaces').selectAll().where('id', '=', key).executeTakeFirst();
  }

  /** The workspace, or 400 ResourceNotFound naming the argument (before authorization). */
  async function existing(id: unknown, argument = 'id'): Promise<WorkspaceTable> {
    const ws = await find(id);
    if (!ws) throw unknownArgument(argument);
    return ws;
  }

  async function load(id: string) {
    const ws = await find(id);
    if (!ws) return null;
    const workers = await db
      .selectFrom('workers')
      .selectAll()
      .where('workspaceId', '=', id)
      .orderBy('subjectName')
      .orderBy('subjectId')
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

  async function loadOrThrow(id: string): Promise<WorkspaceDto> {
    const ws = await load(id);
    if (!ws) throw notFound();
    return ws;
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

  async function canEdit(actor: Actor, id: string): Promise<boolean> {
    return actor.isAdmin || ((await permissionOf(actor.id, id)) & PERMISSION.editor) !== 0;
  }

  async function canManage(actor: Actor, id: string): Promise<boolean> {
    return (
      actor.isAdmin ||
      ((await permissionOf(actor.id, id)) & PERMISSION.manager) === PERMISSION.manager
    );
  }

  /** Creators may always create; others while they manage fewer workspaces than their limit. */
  async function canCreate(actor: Actor): Promise<boolean> {
    if (actor.isCreator) return true;
    if (actor.isAgent || actor.workspaceLimit <= 0) return false;
    const managed = await db
      .selectFrom('workers')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('subjectId', '=', actor.id)
      .where('permission', '=', PERMISSION.manager)
      .executeTakeFirstOrThrow();
    return Number(managed.n) < actor.workspaceLimit;
  }

  async function markdown(id: string, aboveCut: boolean): Promise<string> {
    if (!options.docsDir) return '';
    let text = '';
    try {
      text = await readFile(join(options.docsDir, `${id}.md`), 'utf8');
    } catch {
      // No document yet.
    }
    return aboveCut ? (text.split(MARKDOWN_CUT_LINE)[0] ?? '') : text;
  }

  async function stats(id: string): Promise<WorkspaceStats> {
    const ws = await find(id);
    if (!ws) throw notFound();
    const { n } = await db
      .selectFrom('gamespaces')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaceId', '=', id)
      .where('endTime', '=', 0)
      .executeTakeFirstOrThrow();
    return {
      id,
      activeGamespaceCount: Number(n),
      launchCount: ws.launchCount,
      lastActivity: isoDate(ws.lastActivity),
    };
  }

  function publishTopo(actor: Actor, action: string, model: WorkspaceDto) {
    publisher.publish(model.id, 'TopoEvent', { action, actor: actorRef(actor), model });
  }

  return {
    async exists(id: string): Promise<boolean> {
      return !!(await find(id));
    },

    canEdit,
    canManage,
    canCreate,

    async create(actor: Actor, model: NewWorkspace) {
      if (!(await canCreate(actor))) throw forbidden();
      const name = requiredText(model.name, WORKSPACE_LIMITS.name);
      const limit = Number(model.templateLimit);
      const now = Date.now();
      const row: WorkspaceTable = {
        id: newId(),
        name,
        description: optionalText(model.description, WORKSPACE_LIMITS.description, 'description'),
        tags: optionalText(model.tags, WORKSPACE_LIMITS.tags, 'tags'),
        author:
          optionalText(model.author, WORKSPACE_LIMITS.author, 'author') ||
          actor.name.slice(0, WORKSPACE_LIMITS.author),
        audience: optionalText(model.audience, WORKSPACE_LIMITS.audience, 'audience'),
        shareCode: '',
        // Only creators choose the template scope and limit; everyone else gets the defaults.
        templateScope: actor.isCreator
          ? optionalText(model.templateScope, WORKSPACE_LIMITS.templateScope, 'templateScope')
          : '',
        templateLimit:
          actor.isCreator && Number.isInteger(limit) && limit > 0 ? limit : DEFAULT_TEMPLATE_LIMIT,
        isPublished: 0,
        hostAffinity: 0,
        useUplinkSwitch: 0,
        durationMinutes: 0,
        launchCount: 0,
        lastActivity: now,
        challenge: '',
        whenCreated: now,
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
      return loadOrThrow(row.id);
    },

    load,

    /** GET /api/workspace/{id}. */
    async get(actor: Actor, id: unknown): Promise<WorkspaceDto> {
      const ws = await existing(id);
      if (!(await canEdit(actor, ws.id))) throw forbidden();
      return loadOrThrow(ws.id);
    },

    /**
     * GET /api/workspaces (wire reference §1.1, "Workspace list semantics"). Administrators and
     * `filter=my` query the store (`my`: where the actor is a worker). Everyone else gets the
     * workspaces whose audience shares a token with their scope plus "everyone", and the ones they
     * work on. With `aud` (which must be in the actor's scope), the audience is compared with `aud`
     * alone: the caller asks what is published to that audience, so its own workspaces are not
     * added.
     */
    async list(actor: Actor, search: WorkspaceSearch): Promise<WorkspaceSummaryDto[]> {
      const aud = (search.aud ?? '').trim();
      if (aud && !hasScope(actor.scope, aud)) {
        throw new ValidationFailed('search', 'ActorLacksAudienceScope');
      }
      const { skip, take } = paging(search);
      const term = normalizeTerm(search.term);
      const filters = (search.filter ?? []).map((f) => f.toLowerCase());
      const mine = filters.includes('my');
      const byAge = (search.sort ?? '').toLowerCase() === 'age';

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

      let rows: WorkspaceTable[];
      if (actor.isAdmin || mine) {
        if (mine) {
          q = q.where('w.id', 'in', (eb) =>
            eb.selectFrom('workers').select('workspaceId').where('subjectId', '=', actor.id),
          );
        }
        q = byAge ? q.orderBy('w.whenCreated', 'desc') : q.orderBy('w.name');
        rows = await q.orderBy('w.id').limit(take).offset(skip).execute();
      } else {
        const own = aud
          ? new Set<string>()
          : new Set(
              (
                await db
                  .selectFrom('workers')
                  .select('workspaceId')
                  .where('subjectId', '=', actor.id)
                  .execute()
              ).map((r) => r.workspaceId),
            );
        const scope = aud || `${actor.scope} everyone`;
        rows = (await q.execute())
          .filter((w) => own.has(w.id) || hasAnyToken(w.audience, scope))
          .sort((a, b) =>
            byAge
              ? b.whenCreated - a.whenCreated || byCodePoint(a.id, b.id)
              : byCodePoint(a.name, b.name) || byCodePoint(a.id, b.id),
          )
          .slice(skip, skip + take);
      }

      // Quirk fixed: the reference answers doc=2 with the whole guide to anyone who may list
      // the workspace; the part below the cut is for those who may edit it (the play page shows
      // it only once a game has started).
      const doc = search.doc ?? 0;
      return Promise.all(
        rows.map(async (w) => {
          if (doc <= 0) return workspaceSummaryDto(w, null);
          const whole = doc >= 2 && (await canEdit(actor, w.id));
          return workspaceSummaryDto(w, await markdown(w.id, !whole));
        }),
      );
    },

    /**
     * PUT /api/workspace (ws.CanEdit), or with `privileged` PUT /api/workspace/priv (admin), which
     * also sets the template scope and limit. TOPO.UPDATED to the workspace's group.
     *
     * The name is required; other fields left out of the body keep their values (null clears a
     * text). The reference maps the whole model, so a field left out is cleared there; pytopomojo
     * sends only name, description, tags, author and audience, which would reset the duration.
     */
    async update(actor: Actor, model: ChangedWorkspace, privileged = false): Promise<WorkspaceDto> {
      const ws = await existing(model.id);
      const changes: Partial<WorkspaceTable> = {
        name: requiredText(model.name, WORKSPACE_LIMITS.name),
      };
      const texts = ['description', 'tags', 'author', 'audience'] as const;
      for (const field of texts) {
        if (model[field] !== undefined) {
          changes[field] = optionalText(model[field], WORKSPACE_LIMITS[field], field);
        }
      }
      if (model.durationMinutes !== undefined) {
        changes.durationMinutes = integer(model.durationMinutes, 'durationMinutes', { min: 0 });
      }
      if (privileged && model.templateScope !== undefined) {
        changes.templateScope = optionalText(
          model.templateScope,
          WORKSPACE_LIMITS.templateScope,
          'templateScope',
        );
      }
      if (privileged && model.templateLimit !== undefined) {
        changes.templateLimit = integer(model.templateLimit, 'templateLimit', { min: 0 });
      }
      const allowed = privileged ? actor.isAdmin : await canEdit(actor, ws.id);
      if (!allowed) throw forbidden();
      await db.updateTable('workspaces').set(changes).where('id', '=', ws.id).execute();
      const dto = await loadOrThrow(ws.id);
      publishTopo(actor, 'TOPO.UPDATED', dto);
      return dto;
    },

    /**
     * DELETE /api/workspace/{id} (ws.CanManage): its machines first (the seam), then its
     * templates, workers and favorites; its gamespaces keep their rows with no workspace.
     * TOPO.DELETED to the workspace's group.
     */
    async remove(actor: Actor, id: unknown): Promise<WorkspaceDto> {
      const ws = await existing(id);
      if (!(await canManage(actor, ws.id))) throw forbidden();
      const dto = await loadOrThrow(ws.id);
      const templates = await db
        .selectFrom('templates')
        .selectAll()
        .where('workspaceId', '=', ws.id)
        .execute();
      await machines.workspaceDeleted(ws.id, templates);
      await db.transaction().execute(async (tx) => {
        const ids = templates.map((t) => t.id);
        if (ids.length)
          await tx.deleteFrom('templateFavorites').where('targetId', 'in', ids).execute();
        await tx.deleteFrom('workspaceFavorites').where('targetId', '=', ws.id).execute();
        await tx
          .updateTable('gamespaces')
          .set({ workspaceId: null })
          .where('workspaceId', '=', ws.id)
          .execute();
        await tx.deleteFrom('templates').where('workspaceId', '=', ws.id).execute();
        await tx.deleteFrom('workers').where('workspaceId', '=', ws.id).execute();
        await tx.deleteFrom('workspaces').where('id', '=', ws.id).execute();
      });
      publishTopo(actor, 'TOPO.DELETED', dto);
      listeners.revoke({ group: ws.id });
      return dto;
    },

    /**
     * POST /api/workspace/{id}/clone (wire reference §4.8): a copy named "-CLONE" or "vN+1", with
     * the same workers. Templates get new ids (see `clonedTemplateName` for their names); an ISO
     * from the old workspace's folder is cleared; unlinked templates become children of their
     * originals, unpublished, with their disks moved to the clone's folder.
     *
     * Quirk fixed: the reference only checks the workspace limit, so anyone could copy any
     * workspace (its challenge and answers included); we also require ws.CanEdit on the source.
     */
    async clone(actor: Actor, id: unknown): Promise<WorkspaceDto> {
      const source = await existing(id);
      if (!(await canCreate(actor)) || !(await canEdit(actor, source.id))) throw forbidden();
      const now = Date.now();
      const wsId = newId();
      const workers = await db
        .selectFrom('workers')
        .selectAll()
        .where('workspaceId', '=', source.id)
        .execute();
      const templates = await db
        .selectFrom('templates')
        .selectAll()
        .where('workspaceId', '=', source.id)
        .execute();
      const copies = templates.map((t): TemplateTable => {
        const tplId = newId();
        const copy: TemplateTable = {
          ...t,
          id: tplId,
          name: clonedTemplateName(t.name, source.name),
          iso: t.iso.includes(source.id) ? '' : t.iso,
          workspaceId: wsId,
          whenCreated: now,
        };
        if (t.isLinked) return copy;
        let detail = t.detail;
        if (detail) {
          try {
            detail = serializeDetail(localizeDiskPaths(parseDetail(detail), wsId, tplId));
          } catch {
            // A detail that is not VmTemplate JSON is copied as it is.
          }
        }
        return { ...copy, parentId: t.id, isPublished: 0, detail };
      });
      await db.transaction().execute(async (tx) => {
        await tx
          .insertInto('workspaces')
          .values({
            ...source,
            id: wsId,
            name: cloneName(source.name),
            // The invitation belongs to the original; a copied code would join two workspaces.
            shareCode: '',
            launchCount: 0,
            lastActivity: now,
            whenCreated: now,
          })
          .execute();
        if (workers.length) {
          await tx
            .insertInto('workers')
            .values(workers.map((w) => ({ ...w, workspaceId: wsId })))
            .execute();
        }
        if (copies.length) await tx.insertInto('templates').values(copies).execute();
      });
      return loadOrThrow(wsId);
    },

    /** GET /api/workspace/{id}/stats (ws.CanEdit). */
    async stats(actor: Actor, id: unknown): Promise<WorkspaceStats> {
      const ws = await existing(id);
      if (!(await canEdit(actor, ws.id))) throw forbidden();
      return stats(ws.id);
    },

    /**
     * DELETE /api/workspace/{id}/games (ws.CanEdit): ends every gamespace of the workspace that
     * has not ended (endTime = now), removes their machines (the seam) and tells each gamespace's
     * group GAME.OVER. The rows stay, so their history does too.
     */
    async endGames(actor: Actor, id: unknown): Promise<WorkspaceStats> {
      const ws = await existing(id);
      if (!(await canEdit(actor, ws.id))) throw forbidden();
      const games = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('workspaceId', '=', ws.id)
        .where('endTime', '=', 0)
        .execute();
      if (games.length) {
        await db
          .updateTable('gamespaces')
          .set({ endTime: Date.now() })
          .where(
            'id',
            'in',
            games.map((g) => g.id),
          )
          .execute();
      }
      for (const game of games) {
        await machines.gamespaceEnded(game.id);
        publisher.publish(game.id, 'GameEvent', {
          action: 'GAME.OVER',
          actor: actorRef(actor),
          model: { id: game.id },
        });
      }
      return stats(ws.id);
    },

    /** PUT /api/workspace/{id}/invite (ws.CanManage): a new code; the previous one stops working. */
    async invite(actor: Actor, id: unknown): Promise<{ id: string; code: string }> {
      const ws = await existing(id);
      if (!(await canManage(actor, ws.id))) throw forbidden();
      const code = newId();
      await db.updateTable('workspaces').set({ shareCode: code }).where('id', '=', ws.id).execute();
      return { id: ws.id, code };
    },

    /**
     * POST /api/worker/{code}: the actor joins as an Editor, or as the Manager of a workspace
     * that has no workers. Joining again changes nothing.
     */
    async enlist(actor: Actor, code: string): Promise<WorkspaceSummaryDto> {
      if (actor.isAgent) throw forbidden();
      const ws = code
        ? await db
            .selectFrom('workspaces')
            .selectAll()
            .where('shareCode', '=', code)
            .executeTakeFirst()
        : undefined;
      if (!ws) throw new DomainError('InvalidInvitation');
      const workers = await db
        .selectFrom('workers')
        .select(['subjectId'])
        .where('workspaceId', '=', ws.id)
        .execute();
      if (!workers.some((w) => w.subjectId === actor.id)) {
        try {
          await db
            .insertInto('workers')
            .values({
              workspaceId: ws.id,
              subjectId: actor.id,
              subjectName: actor.name.slice(0, 64),
              permission: workers.length ? PERMISSION.editor : PERMISSION.manager,
            })
            .execute();
        } catch (error) {
          // The same user joining twice at once: the other request added the row.
          if (!isUniqueViolation(error)) throw error;
        }
        // Collaborators on the editor see the newcomer in their list at once.
        publishTopo(actor, 'TOPO.UPDATED', await loadOrThrow(ws.id));
      }
      return workspaceSummaryDto(ws);
    },

    /**
     * DELETE /api/workspace/{id}/worker/{subjectId} (ws.CanManage). Only an administrator may
     * remove the last manager (ActionForbidden otherwise). Removing a non-worker does nothing.
     */
    async removeWorker(actor: Actor, id: unknown, subjectId: string): Promise<void> {
      const ws = await existing(id);
      if (!(await canManage(actor, ws.id))) throw forbidden();
      const workers = await db
        .selectFrom('workers')
        .selectAll()
        .where('workspaceId', '=', ws.id)
        .execute();
      const member = workers.find((w) => w.subjectId === subjectId);
      if (!member) return;
      const isManager = (w: WorkerTable) =>
        (w.permission & PERMISSION.manager) === PERMISSION.manager;
      const managers = workers.filter(isManager).length;
      if (!actor.isAdmin && isManager(member) && managers === 1) {
        throw new DomainError('ActionForbidden');
      }
      await db
        .deleteFrom('workers')
        .where('workspaceId', '=', ws.id)
        .where('subjectId', '=', subjectId)
        .execute();
      publishTopo(actor, 'TOPO.UPDATED', await loadOrThrow(ws.id));
      listeners.revoke({ group: ws.id, subjectId });
    },

    /** GET /api/workspace-favorites: the actor's favorite workspace ids, oldest first. */
    favorites: (actor: Actor): Promise<string[]> => favorites.list(actor.id),

    /** PUT /api/workspace-favorite/{id}: false when there is no such workspace (404). */
    async favorite(actor: Actor, workspaceId: string): Promise<boolean> {
      if (!(await find(workspaceId))) return false;
      await favorites.add(actor.id, workspaceId);
      return true;
    },

    /** DELETE /api/workspace-favorite/{id}. */
    unfavorite: (actor: Actor, workspaceId: string): Promise<void> =>
      favorites.remove(actor.id, workspaceId),
  };
}

export type WorkspaceService = ReturnType<typeof createWorkspaceService>;
