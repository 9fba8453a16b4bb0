// JSON schemas of the template routes' bodies and DTOs (wire reference §2.4). Bodies accept
// null for every optional field, as the reference's clients send it; the services apply the
// length limits so that every route answers them with the same messages.

import { searchProperties } from '../search';

const text = { type: ['string', 'null'] } as const;
const nullableString = { type: ['string', 'null'] } as const;

export { idParams } from '../schemas';

export const templateSearchQuery = {
  type: 'object',
  properties: {
    ...searchProperties,
    // Parsed and unused, as in the reference.
    aud: { type: 'string' },
    sib: { type: 'string' },
    pid: { type: 'string', maxLength: 64 },
  },
} as const;

export const siblingsQuery = {
  type: 'object',
  properties: { pub: { type: 'boolean' } },
} as const;

export const changedTemplateBody = {
  type: 'object',
  properties: {
    id: text,
    name: text,
    description: text,
    networks: text,
    iso: text,
    isHidden: { type: ['boolean', 'null'] },
    guestinfo: text,
    replicas: { type: ['integer', 'null'] },
    variant: { type: ['integer', 'null'] },
  },
} as const;

export const templateLinkBody = {
  type: 'object',
  properties: { templateId: text, workspaceId: text },
} as const;

export const templateReLinkBody = {
  type: 'object',
  properties: { templateId: text, parentId: text, workspaceId: text },
} as const;

export const templateDetailBody = {
  type: 'object',
  properties: {
    id: text,
    name: text,
    description: text,
    audience: text,
    networks: text,
    guestinfo: text,
    detail: text,
    isPublished: { type: ['boolean', 'null'] },
    isLinked: { type: ['boolean', 'null'] },
    parent: {},
  },
} as const;

export const templateCloneBody = {
  type: 'object',
  properties: { id: text, name: text },
} as const;

export const templateSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    audience: { type: 'string' },
    networks: { type: 'string' },
    iso: { type: 'string' },
    guestinfo: { type: 'string' },
    isHidden: { type: 'boolean' },
    isLinked: { type: 'boolean' },
    parentId: nullableString,
    parentName: nullableString,
    replicas: { type: 'integer' },
    variant: { type: 'integer' },
    workspaceId: nullableString,
    workspaceName: nullableString,
  },
} as const;

export const templateSummarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    audience: { type: 'string' },
    workspaceId: nullableString,
    workspaceName: nullableString,
    parentId: nullableString,
    parentName: nullableString,
    isLinked: { type: 'boolean' },
    isPublished: { type: 'boolean' },
    whenCreated: { type: 'string' },
  },
} as const;

const templateDetailProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  audience: { type: 'string' },
  networks: { type: 'string' },
  guestinfo: { type: 'string' },
  detail: nullableString,
  isPublished: { type: 'boolean' },
  isLinked: { type: 'boolean' },
} as const;

/** TemplateDetail; `parent` is one level deep (its own `parent` is always null). */
export const templateDetailSchema = {
  type: 'object',
  properties: {
    ...templateDetailProperties,
    parent: {
      type: ['object', 'null'],
      properties: { ...templateDetailProperties, parent: { type: 'null' } },
    },
  },
} as const;
