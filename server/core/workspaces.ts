import { USER_TOPO_ACTIONS } from '../../src/domain/workspaceAccess';
import { WORKSPACE_LIMITS } from '../../src/domain/workspaceSettings';
import type { Repositories } from '../store/repositories';
import type { WorkspaceTable } from '../store/schema';
import { forbidden } from './errors';
import { integer, invalid, optionalText, requiredText } from './fields';
import { newId } from './ids';
import type { Actor } from './actor';
import { createFavorites } from './favorites';
import { createWorkspaceContext, type WorkspaceServiceOptions } from './workspaceContext';
import { createWorkspaceGames, type WorkspaceStats } from './workspaceGames';
import { createWorkspaceLifecycle } from './workspaceLifecycle';
import { createWorkspaceList } from './workspaceList';
import { PERMISSION, type WorkspaceDto } from './workspaceViews';
import { createWorkspaceWorkers } from './workspaceWorkers';

// Workspaces (wire reference §1.1, §2.1, §4.7, §4.8), one job per module: the list and its
// visibility rules (workspaceList.ts), workers and invitations (workspaceWorkers.ts), clone and
// delete (workspaceLifecycle.ts), statistics and ending games (workspaceGames.ts), on what they
// share (workspaceContext.ts); creating and changing settings, and favorites, are here. This is
// the one service the routes see.

export {
  NO_WORKSPACE_MACHINES,
  type WorkspaceFiles,
  type WorkspaceMachines,
  type WorkspaceServiceOptions,
} from './workspaceContext';
export type { WorkspaceStats } from './workspaceGames';
export { MARKDOWN_CUT_LINE, type WorkspaceSearch } from './workspaceList';
export {
  PERMISSION,
  permissionName,
  workerDto,
  workspaceDto,
  workspaceSummaryDto,
  type WorkspaceDto,
  type WorkspaceSummaryDto,
} from './workspaceViews';

export const DEFAULT_TEMPLATE_LIMIT = 3;

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
  /** Ours: record its gamespaces' consoles; null: the server's default (RECORD_CONSOLES). */
  recordConsoles?: unknown;
}

export function createWorkspaceService(
  repos: Pick<Repositories, 'workspaces' | 'workspaceFavorites'>,
  options: WorkspaceServiceOptions = {},
) {
  const context = createWorkspaceContext(repos.workspaces, options);
  const { repo, find, existing, editable, loadOrThrow, canEdit, canCreate, publishTopo } = context;
  const games = createWorkspaceGames(context);
  const lifecycle = createWorkspaceLifecycle(context);
  const workers = createWorkspaceWorkers(context);
  const favorites = createFavorites(repos.workspaceFavorites, context.clock);

  return {
    async exists(id: string): Promise<boolean> {
      return !!(await find(id));
    },

    canEdit,
    canManage: context.canManage,
    canCreate,

    async create(actor: Actor, model: NewWorkspace) {
      if (!(await canCreate(actor))) throw forbidden();
      const name = requiredText(model.name, WORKSPACE_LIMITS.name);
      const limit = Number(model.templateLimit);
      const now = context.clock.now();
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
      await repo.create(row, {
        workspaceId: row.id,
        subjectId: actor.id,
        subjectName: actor.name.slice(0, 64),
        permission: PERMISSION.manager,
      });
      // The creator's other tabs list it too.
      context.publishToUsers([actor.id], actor, USER_TOPO_ACTIONS.added, row);
      return loadOrThrow(row.id);
    },

    load: context.load,

    /**
     * GET /api/workspace/{id}, with the workspace's stats as the spec's Workspace has them (§3):
     * the Templates tab offers to delete gamespaces only when some are under way.
     */
    async get(actor: Actor, id: unknown): Promise<WorkspaceDto & { stats: WorkspaceStats }> {
      const ws = await editable(actor, id);
      return { ...(await loadOrThrow(ws.id)), stats: await games.stats(actor, ws.id) };
    },

    list: createWorkspaceList(context),

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
      if (model.recordConsoles !== undefined) {
        const record = model.recordConsoles;
        if (record !== null && typeof record !== 'boolean') throw invalid('recordConsoles');
        changes.recordConsoles = record === null ? null : record ? 1 : 0;
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
      await repo.update(ws.id, changes);
      const dto = await loadOrThrow(ws.id);
      publishTopo(actor, 'TOPO.UPDATED', dto);
      return dto;
    },

    remove: lifecycle.remove,
    clone: lifecycle.clone,

    stats: games.stats,
    endGames: games.endGames,

    invite: workers.invite,
    enlist: workers.enlist,
    removeWorker: workers.removeWorker,

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
