import { USER_TOPO_ACTIONS } from '../../src/domain/workspaceAccess';
import type { TemplateTable, WorkspaceTable } from '../store/schema';
import { forbidden } from './errors';
import { newId } from './ids';
import { clonedTemplateName, cloneName } from './naming';
import { localizeDiskPaths, parseDetail, serializeDetail } from './templateDetail';
import type { Actor } from './actor';
import type { WorkspaceContext } from './workspaceContext';
import type { WorkspaceDto } from './workspaceViews';

// A workspace's copies and its end (wire reference §4.8): cloning it with its workers and
// templates, and deleting it with everything that is its.

export function createWorkspaceLifecycle(context: WorkspaceContext) {
  const {
    repo,
    existing,
    manageable,
    loadOrThrow,
    canCreate,
    canEdit,
    publishTopo,
    publishToUsers,
  } = context;

  return {
    /**
     * DELETE /api/workspace/{id} (ws.CanManage). The cascade: its machines first (builder VMs
     * and template disks, through the seam), then its files (the document and its co-editing
     * log, the images), then in one transaction its templates, workers and the favorites of
     * both; its gamespaces keep their rows with no workspace, so their history does too. Rows
     * go last so that a failure on the way leaves a workspace that can be deleted again, rather
     * than machines or files that nothing names. TOPO.DELETED to the workspace's group.
     */
    async remove(actor: Actor, id: unknown): Promise<WorkspaceDto> {
      const ws = await manageable(actor, id);
      const dto = await loadOrThrow(ws.id);
      const workers = await repo.workersOf(ws.id);
      await context.machines.workspaceDeleted(ws.id, await repo.templatesOf(ws.id));
      for (const kept of context.files) await kept.workspaceDeleted(ws.id);
      await repo.remove(ws.id);
      publishTopo(actor, 'TOPO.DELETED', dto);
      publishToUsers(
        [actor.id, ...workers.map((w) => w.subjectId)],
        actor,
        USER_TOPO_ACTIONS.deleted,
        ws,
      );
      context.listeners.revoke({ group: ws.id });
      return dto;
    },

    /**
     * POST /api/workspace/{id}/clone: a copy named "-CLONE" or "vN+1", with the same workers.
     * Templates get new ids (see `clonedTemplateName` for their names); an ISO from the old
     * workspace's folder is cleared; unlinked templates become children of their originals,
     * unpublished, with their disks moved to the clone's folder.
     *
     * Quirk fixed: the reference only checks the workspace limit, so anyone could copy any
     * workspace (its challenge and answers included); we also require ws.CanEdit on the source.
     */
    async clone(actor: Actor, id: unknown): Promise<WorkspaceDto> {
      const source = await existing(id);
      if (!(await canCreate(actor)) || !(await canEdit(actor, source.id))) throw forbidden();
      const now = context.clock.now();
      const wsId = newId();
      const workers = await repo.workersOf(source.id);
      const templates = await repo.templatesOf(source.id);
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
      const copy: WorkspaceTable = {
        ...source,
        id: wsId,
        name: cloneName(source.name),
        // The invitation belongs to the original; a copied code would join two workspaces.
        shareCode: '',
        launchCount: 0,
        lastActivity: now,
        whenCreated: now,
      };
      await repo.createCopy(
        copy,
        workers.map((w) => ({ ...w, workspaceId: wsId })),
        copies,
      );
      // The copy keeps the original's workers: each of them can reach it now.
      publishToUsers(
        [actor.id, ...workers.map((w) => w.subjectId)],
        actor,
        USER_TOPO_ACTIONS.added,
        copy,
      );
      return loadOrThrow(wsId);
    },
  };
}
