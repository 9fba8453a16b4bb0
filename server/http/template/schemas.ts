import { MAX_REPLICAS, ONE_PER_PLAYER, TEMPLATE_LIMITS } from '../../../src/domain/templateFields';
import { searchProperties } from '../search';

// JSON schemas of the template routes' bodies and DTOs (wire reference §2.4). Bodies accept
// null for every optional field, as the reference's clients send it. The limits are the SPA's
// template editor's too (src/domain/templateFields.ts); the answers declare them. Bodies leave
// them to the template services, so that every route answers a too-long text with the same
// message ("The field name must be at most 64 characters.") in the order of its checks (an
// unknown template is told so first).

const text = { type: ['string', 'null'] } as const;
const nullableString = { type: ['string', 'null'] } as const;
/** A stored text of the template, at most `max` characters. */
const limited = <M extends number>(max: M) => ({ type: 'string', maxLength: max }) as const;

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
    name: limited(TEMPLATE_LIMITS.name),
    description: limited(TEMPLATE_LIMITS.description),
    audience: limited(TEMPLATE_LIMITS.audience),
    networks: limited(TEMPLATE_LIMITS.networks),
    iso: limited(TEMPLATE_LIMITS.iso),
    guestinfo: limited(TEMPLATE_LIMITS.guestinfo),
    isHidden: { type: 'boolean' },
    isLinked: { type: 'boolean' },
    parentId: nullableString,
    parentName: nullableString,
    replicas: { type: 'integer', minimum: ONE_PER_PLAYER, maximum: MAX_REPLICAS },
    variant: { type: 'integer', minimum: 0 },
    workspaceId: nullableString,
    workspaceName: nullableString,
  },
} as const;

export const templateSummarySchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: limited(TEMPLATE_LIMITS.name),
    description: limited(TEMPLATE_LIMITS.description),
    audience: limited(TEMPLATE_LIMITS.audience),
    workspaceId: nullableString,
    workspaceName: nullableString,
    parentId: nullableString,
    parentName: nullableString,
    isLinked: { type: 'boolean' },
    isPublished: { type: 'boolean' },
    whenCreated: { type: 'string' },
    // Ours, not the wire's (TopoMojo clients ignore it): present only when the hypervisor
    // cannot run the template, saying why.
    unavailable: { type: 'string' },
  },
} as const;

const templateDetailProperties = {
  id: { type: 'string' },
  name: limited(TEMPLATE_LIMITS.name),
  description: limited(TEMPLATE_LIMITS.description),
  audience: limited(TEMPLATE_LIMITS.audience),
  networks: limited(TEMPLATE_LIMITS.networks),
  guestinfo: limited(TEMPLATE_LIMITS.guestinfo),
  // Not bounded: the stored detail is the given one rewritten indented with every property.
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
