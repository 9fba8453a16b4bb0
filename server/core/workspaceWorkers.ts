import { USER_TOPO_ACTIONS } from '../../src/domain/workspaceAccess';
import type { WorkerTable } from '../store/schema';
import { DomainError, forbidden } from './errors';
import { newId } from './ids';
import type { Actor } from './actor';
import type { WorkspaceContext } from './workspaceContext';
import { PERMISSION, workspaceSummaryDto, type WorkspaceSummaryDto } from './workspaceViews';

// A workspace's workers (wire reference §4.7): the invitation code that lets someone join, joining
// by it, and removing a worker. Each change reaches the collaborators on the editor (TOPO.UPDATED);
// a removed worker stops receiving the workspace's hub events. The user who joined or was removed
// hears of it on their own channel (TOPO.ADDED, TOPO.REMOVED), for their workspace list.

const isManager = (w: WorkerTable) => (w.permission & PERMISSION.manager) === PERMISSION.manager;

export function createWorkspaceWorkers(context: WorkspaceContext) {
  const { repo, manageable, loadOrThrow, publishTopo, publishToUsers, listeners } = context;

  return {
    /** PUT /api/workspace/{id}/invite (ws.CanManage): a new code; the previous one stops working. */
    async invite(actor: Actor, id: unknown): Promise<{ id: string; code: string }> {
      const ws = await manageable(actor, id);
      const code = newId();
      await repo.update(ws.id, { shareCode: code });
      return { id: ws.id, code };
    },

    /**
     * POST /api/worker/{code}: the actor joins as an Editor, or as the Manager of a workspace
     * that has no workers. Joining again changes nothing.
     */
    async enlist(actor: Actor, code: string): Promise<WorkspaceSummaryDto> {
      if (actor.isAgent) throw forbidden();
      const ws = code ? await repo.findByShareCode(code) : undefined;
      if (!ws) throw new DomainError('InvalidInvitation');
      const workers = await repo.workersOf(ws.id);
      if (!workers.some((w) => w.subjectId === actor.id)) {
        // The same user joining twice at once: the other request adds the row, this one nothing.
        await repo.addWorker({
          workspaceId: ws.id,
          subjectId: actor.id,
          subjectName: actor.name.slice(0, 64),
          permission: workers.length ? PERMISSION.editor : PERMISSION.manager,
        });
        // Collaborators on the editor see the newcomer in their list at once.
        publishTopo(actor, 'TOPO.UPDATED', await loadOrThrow(ws.id));
        publishToUsers([actor.id], actor, USER_TOPO_ACTIONS.added, ws);
      }
      return workspaceSummaryDto(ws);
    },

    /**
     * DELETE /api/workspace/{id}/worker/{subjectId} (ws.CanManage). Only an administrator may
     * remove the last manager (ActionForbidden otherwise). Removing a non-worker does nothing.
     */
    async removeWorker(actor: Actor, id: unknown, subjectId: string): Promise<void> {
      const ws = await manageable(actor, id);
      const workers = await repo.workersOf(ws.id);
      const member = workers.find((w) => w.subjectId === subjectId);
      if (!member) return;
      const managers = workers.filter(isManager).length;
      if (!actor.isAdmin && isManager(member) && managers === 1) {
        throw new DomainError('ActionForbidden');
      }
      await repo.removeWorker(ws.id, subjectId);
      publishTopo(actor, 'TOPO.UPDATED', await loadOrThrow(ws.id));
      publishToUsers([subjectId], actor, USER_TOPO_ACTIONS.removed, ws);
      listeners.revoke({ group: ws.id, subjectId });
    },
  };
}
