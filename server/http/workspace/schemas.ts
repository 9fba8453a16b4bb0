import { WORKSPACE_LIMITS } from '../../../src/domain/workspaceSettings';
import { searchProperties } from '../search';
import { templateSchema } from '../template/schemas';

// JSON schemas of the workspace routes' bodies, queries and DTOs (wire reference §2.1). The text
// limits are the SPA's settings form's too (src/domain/workspaceSettings.ts); the answers declare
// them. Bodies leave them to the workspace service, which answers a too-long text with the
// reference's message ("The field name must be at most 64 characters.") in the order of its
// checks (an unknown workspace or a caller who may not create is told so first).

const text = { type: ['string', 'null'] } as const;
/** A stored text of the workspace, at most `max` characters. */
const limited = <M extends number>(max: M) => ({ type: 'string', maxLength: max }) as const;

export { codeParams, idParams, joinCodeSchema } from '../schemas';

export const workerParams = {
  type: 'object',
  required: ['id', 'subjectId'],
  properties: {
    id: { type: 'string', maxLength: 64 },
    subjectId: { type: 'string', maxLength: 64 },
  },
} as const;

export const favoriteParams = {
  type: 'object',
  required: ['workspaceId'],
  properties: { workspaceId: { type: 'string', maxLength: 64 } },
} as const;

export const workspaceSearchQuery = {
  type: 'object',
  properties: {
    ...searchProperties,
    aud: { type: 'string' },
    // Accepted and ignored: the reference replaces it with the actor's scope.
    scope: { type: 'string' },
    // 0: no text; 1: the document above the cut line; more: the whole document.
    doc: { type: 'integer', minimum: 0 },
  },
} as const;

export const newWorkspaceBody = {
  type: 'object',
  properties: {
    name: text,
    description: text,
    tags: text,
    author: text,
    audience: text,
    challenge: {},
    document: {},
    templateScope: text,
    templateLimit: { type: ['integer', 'null'] },
  },
} as const;

export const changedWorkspaceBody = {
  type: 'object',
  properties: {
    id: text,
    name: text,
    description: text,
    tags: text,
    author: text,
    audience: text,
    durationMinutes: { type: ['integer', 'null'] },
    templateScope: text,
    templateLimit: { type: ['integer', 'null'] },
    // Ours: record its gamespaces' consoles; null: the server's default.
    recordConsoles: { type: ['boolean', 'null'] },
  },
} as const;

export const workerSchema = {
  type: 'object',
  properties: {
    workspaceId: { type: 'string' },
    subjectId: { type: 'string' },
    subjectName: { type: 'string' },
    permission: { type: 'string' },
    canManage: { type: 'boolean' },
    canEdit: { type: 'boolean' },
  },
} as const;

export const workspaceSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: limited(WORKSPACE_LIMITS.name),
    description: limited(WORKSPACE_LIMITS.description),
    tags: limited(WORKSPACE_LIMITS.tags),
    author: limited(WORKSPACE_LIMITS.author),
    audience: limited(WORKSPACE_LIMITS.audience),
    whenCreated: { type: 'string' },
    templateScope: limited(WORKSPACE_LIMITS.templateScope),
    templateLimit: { type: 'integer' },
    durationMinutes: { type: 'integer' },
    recordConsoles: { type: ['boolean', 'null'] },
    challenge: { type: 'string' },
    workers: { type: 'array', items: workerSchema },
    templates: { type: 'array', items: templateSchema },
    // GET workspace/{id} only: WorkspaceStats, which the spec's Workspace carries (§3).
    stats: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        activeGamespaceCount: { type: 'integer' },
        launchCount: { type: 'integer' },
        lastActivity: { type: 'string' },
      },
    },
  },
} as const;

export const workspaceSummarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: limited(WORKSPACE_LIMITS.name),
    slug: { type: 'string' },
    description: limited(WORKSPACE_LIMITS.description),
    tags: limited(WORKSPACE_LIMITS.tags),
    text: { type: ['string', 'null'] },
    audience: limited(WORKSPACE_LIMITS.audience),
    author: limited(WORKSPACE_LIMITS.author),
    durationMinutes: { type: 'integer' },
    whenCreated: { type: 'string' },
    lastActivity: { type: 'string' },
  },
} as const;

export const workspaceStatsSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    activeGamespaceCount: { type: 'integer' },
    launchCount: { type: 'integer' },
    lastActivity: { type: 'string' },
  },
} as const;
