import { searchProperties } from '../search';
import { templateSchema } from '../template/schemas';

// JSON schemas of the workspace routes' bodies, queries and DTOs (wire reference §2.1).

const text = { type: ['string', 'null'] } as const;

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
    name: { type: 'string' },
    description: { type: 'string' },
    tags: { type: 'string' },
    author: { type: 'string' },
    audience: { type: 'string' },
    whenCreated: { type: 'string' },
    templateScope: { type: 'string' },
    templateLimit: { type: 'integer' },
    durationMinutes: { type: 'integer' },
    challenge: { type: 'string' },
    workers: { type: 'array', items: workerSchema },
    templates: { type: 'array', items: templateSchema },
  },
} as const;

export const workspaceSummarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    slug: { type: 'string' },
    description: { type: 'string' },
    tags: { type: 'string' },
    text: { type: ['string', 'null'] },
    audience: { type: 'string' },
    author: { type: 'string' },
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
