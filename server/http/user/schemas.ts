import { INT32_MAX, searchProperties } from '../search';

// JSON schemas of the user routes (wire reference §1.7, §2.6). Bodies are read leniently (nulls
// accepted, unknown fields ignored) as the reference's JSON reader does.

const str = { type: 'string' } as const;
const nullableStr = { type: ['string', 'null'] } as const;
const int = { type: 'integer' } as const;
const bool = { type: 'boolean' } as const;
// A union of types, not anyOf: with type coercion, anyOf's null branch would turn 0 into null.
const limit = { type: ['integer', 'null'], minimum: 0, maximum: INT32_MAX } as const;

export { idParams } from '../schemas';

/** User (wire reference §2.6) and our own `isRegistrar`. */
export const userSchema = {
  type: 'object',
  properties: {
    id: str,
    name: str,
    scope: str,
    workspaceLimit: int,
    gamespaceLimit: int,
    gamespaceMaxMinutes: int,
    gamespaceCleanupGraceMinutes: int,
    appRole: str,
    lastIdpAssignedRole: nullableStr,
    role: str,
    serviceAccountClientId: nullableStr,
    whenCreated: str,
    isAdmin: bool,
    isObserver: bool,
    isCreator: bool,
    isBuilder: bool,
    // Ours: may register other people for a game (POST /api/gamespace with players[]).
    isRegistrar: bool,
  },
} as const;

/** ChangedUser (wire reference §2.6) and `isRegistrar`; without an id (or a new one) it adds. */
export const changedUserBody = {
  type: 'object',
  properties: {
    id: { type: ['string', 'null'], maxLength: 64 },
    name: { type: ['string', 'null'], maxLength: 64 },
    scope: { type: ['string', 'null'], maxLength: 1024 },
    workspaceLimit: limit,
    gamespaceLimit: limit,
    gamespaceMaxMinutes: limit,
    gamespaceCleanupGraceMinutes: limit,
    serviceAccountClientId: { type: ['string', 'null'], maxLength: 128 },
    // A role name in any case (`administrator`, `Disabled`) or the UserRole number, checked by
    // the user service (a union of string and integer is not a type Ajv's strict mode allows).
    role: { description: 'A role name or the UserRole number' },
    isRegistrar: { type: ['boolean', 'null'] },
  },
} as const;

/** UserSearch (wire reference §1.7): `filter` takes administrator, observer, creator, builder. */
export const userSearchQuery = {
  type: 'object',
  properties: {
    ...searchProperties,
    scope: str,
    isServiceAccount: bool,
  },
} as const;

export const keyIdParams = {
  type: 'object',
  required: ['keyId'],
  properties: { keyId: { type: 'string', maxLength: 64 } },
} as const;

/** ApiKey (wire reference §2.6): a key as listed, without its value. */
export const apiKeySchema = {
  type: 'object',
  properties: { id: str, name: str, whenCreated: str },
} as const;

/** ApiKeyResult: the new key's plain text, answered this once. */
export const apiKeyResultSchema = {
  type: 'object',
  properties: { value: str },
} as const;
