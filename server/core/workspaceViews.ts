import type { WorkerTable, WorkspaceTable } from '../store/schema';
import { isoDate, slug } from './dto';
import type { TemplateDto } from './templateViews';

// Workspaces as the routes and the hub show them (wire reference §2.1): the whole workspace with
// its workers and templates, the summary lists show, and a worker's permission by name.

// Workspace permissions are flags: Editor = 1; Manager = 0xFF includes Editor.
export const PERMISSION = { none: 0, editor: 1, manager: 0xff } as const;

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

export function workspaceDto(w: WorkspaceTable, workers: WorkerTable[], templates: TemplateDto[]) {
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
    // Ours: whether its gamespaces' consoles are recorded; null: the server's default.
    recordConsoles:
      w.recordConsoles === null || w.recordConsoles === undefined ? null : w.recordConsoles === 1,
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
