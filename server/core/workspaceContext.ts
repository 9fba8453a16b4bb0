import {
  canCreateWorkspace,
  mayCreateWorkspaces,
  USER_TOPO_ACTIONS,
} from '../../src/domain/workspaceAccess';
import { realClock, type Clock } from '../clock';
import type { WorkspaceRepository } from '../store/repositories/workspaces';
import type { TemplateTable, WorkspaceTable } from '../store/schema';
import { forbidden, notFound } from './errors';
import { actorRef, silentPublisher, unknownArgument, type Publisher } from './fields';
import { NO_REVOKER, type ListenerRevoker } from './membership';
import { templateDto } from './templateViews';
import type { Actor } from './actor';
import { PERMISSION, workspaceDto, workspaceSummaryDto, type WorkspaceDto } from './workspaceViews';

// What every job of the workspace service shares: its dependencies, the rows it reads, the
// workspace it answers, authorization by the reference's predicates (ws.CanEdit, ws.CanManage,
// the workspace limit) and the TopoEvents it publishes.

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

/** What a workspace keeps beside its rows, in files and logs: its document, its images. */
export interface WorkspaceFiles {
  workspaceDeleted(workspaceId: string): Promise<void>;
}

export interface WorkspaceServiceOptions {
  publisher?: Publisher;
  machines?: WorkspaceMachines;
  /** Removed with a deleted workspace, in this order, after its machines (see `remove`). */
  files?: readonly WorkspaceFiles[];
  /** Workers removed and workspaces deleted stop receiving the workspace's hub events. */
  listeners?: ListenerRevoker;
  /** The folder of workspace documents (`{id}.md`), read for `doc` in the list. */
  docsDir?: string;
  /** The server's time: when workspaces are made, changed and their games ended. */
  clock?: Clock;
}

const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;

export function createWorkspaceContext(
  repo: WorkspaceRepository,
  options: WorkspaceServiceOptions,
) {
  const publisher = options.publisher ?? silentPublisher;

  async function find(id: unknown): Promise<WorkspaceTable | undefined> {
    const key = asId(id);
    return key ? repo.find(key) : undefined;
  }

  /** The workspace, or 400 ResourceNotFound naming the argument (before authorization). */
  async function existing(id: unknown, argument = 'id'): Promise<WorkspaceTable> {
    const ws = await find(id);
    if (!ws) throw unknownArgument(argument);
    return ws;
  }

  /** The workspace as the routes show it, with its workers and templates; null when gone. */
  async function load(id: string): Promise<WorkspaceDto | null> {
    const ws = await find(id);
    if (!ws) return null;
    const workers = await repo.workersOf(id);
    const rows = await repo.templatesWithParentNames(id);
    const templates = rows
      .map(({ parentName, ...t }) => templateDto(t, parentName, ws.name))
      .sort((a, b) => a.name.localeCompare(b.name, undefined, { sensitivity: 'base' }));
    return workspaceDto(ws, workers, templates);
  }

  async function loadOrThrow(id: string): Promise<WorkspaceDto> {
    const ws = await load(id);
    if (!ws) throw notFound();
    return ws;
  }

  async function permissionOf(actorId: string, workspaceId: string): Promise<number> {
    return (await repo.permissionOf(workspaceId, actorId)) ?? 0;
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
    if (!mayCreateWorkspaces(actor)) return false;
    return canCreateWorkspace(actor, await repo.countWorkedOnWith(actor.id, PERMISSION.manager));
  }

  /** The workspace or 400 ResourceNotFound, then ws.CanEdit or 403. */
  async function editable(actor: Actor, id: unknown): Promise<WorkspaceTable> {
    const ws = await existing(id);
    if (!(await canEdit(actor, ws.id))) throw forbidden();
    return ws;
  }

  /** The workspace or 400 ResourceNotFound, then ws.CanManage or 403. */
  async function manageable(actor: Actor, id: unknown): Promise<WorkspaceTable> {
    const ws = await existing(id);
    if (!(await canManage(actor, ws.id))) throw forbidden();
    return ws;
  }

  function publishTopo(actor: Actor, action: string, model: WorkspaceDto) {
    publisher.publish(model.id, 'TopoEvent', { action, actor: actorRef(actor), model });
  }

  /**
   * Tells each user on their own channel that their list of workspaces changed. Only the users
   * named get it, and each of them can reach the workspace (added) or could until now (deleted,
   * removed), so it shows them no more than the summary their list showed; a removed worker
   * gets only its id and name.
   */
  function publishToUsers(
    userIds: Iterable<string>,
    actor: Actor,
    action: (typeof USER_TOPO_ACTIONS)[keyof typeof USER_TOPO_ACTIONS],
    ws: WorkspaceTable,
  ) {
    const model =
      action === USER_TOPO_ACTIONS.removed ? { id: ws.id, name: ws.name } : workspaceSummaryDto(ws);
    for (const userId of new Set(userIds)) {
      publisher.publish(userId, 'TopoEvent', { action, actor: actorRef(actor), model });
    }
  }

  return {
    repo,
    publisher,
    machines: options.machines ?? NO_WORKSPACE_MACHINES,
    files: options.files ?? [],
    listeners: options.listeners ?? NO_REVOKER,
    docsDir: options.docsDir,
    clock: options.clock ?? realClock,
    find,
    existing,
    load,
    loadOrThrow,
    canEdit,
    canManage,
    canCreate,
    editable,
    manageable,
    publishTopo,
    publishToUsers,
  };
}

export type WorkspaceContext = ReturnType<typeof createWorkspaceContext>;
