// JSON schemas of the dispatch routes (wire reference §1.5, §2.6). Bodies are read leniently
// (nulls accepted, unknown fields ignored), answers write every field, nulls included.

import { searchProperties } from '../search';

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
/** The columns' width (varchar(64)). */
const shortText = { type: ['string', 'null'], maxLength: 64 } as const;

/** Dispatch: a command for a gamespace's agents and, once answered, a host's answer. */
export const dispatchSchema = {
  type: 'object',
  properties: {
    id: str,
    referenceId: str,
    trigger: str,
    targetGroup: str,
    targetName: nullableStr,
    result: nullableStr,
    error: nullableStr,
    whenUpdated: str,
    whenCreated: str,
  },
} as const;

/** NewDispatch: targetGroup is the gamespace; no targetName means every listening agent. */
export const newDispatchBody = {
  type: 'object',
  required: ['trigger'],
  properties: {
    referenceId: shortText,
    trigger: { type: ['string', 'null'], maxLength: 4096 },
    targetGroup: shortText,
    targetName: shortText,
  },
} as const;

/** ChangedDispatch: an agent's answer (whenUpdated, if sent, is the server's to set). */
export const changedDispatchBody = {
  type: 'object',
  required: ['id'],
  properties: {
    id: { type: 'string', maxLength: 64 },
    result: nullableStr,
    error: nullableStr,
    targetName: shortText,
    whenUpdated: nullableStr,
  },
} as const;

/** DispatchSearch: `gs` the gamespace, `since` a date, `filter=pending`, skip and take. */
export const dispatchSearchQuery = {
  type: 'object',
  properties: {
    ...searchProperties,
    gs: { type: 'string', maxLength: 64 },
    since: { type: 'string', maxLength: 64 },
  },
} as const;

/** Ours: `gs`, the gamespace whose agents are asked about. */
export const agentsQuery = {
  type: 'object',
  properties: { gs: { type: 'string', maxLength: 64 } },
} as const;

/** Ours: a machine of the gamespace (or a host an agent named) and the agents listening on it. */
export const agentPresenceSchema = {
  type: 'object',
  required: ['name', 'isMachine', 'agents'],
  properties: {
    name: nullableStr,
    isMachine: { type: 'boolean' },
    agents: { type: 'integer' },
  },
} as const;
