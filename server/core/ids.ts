import { createHash, randomBytes, randomUUID } from 'node:crypto';

/** A GUID in the reference's "n" format: 32 lowercase hex characters, no dashes. */
export const newId = (): string => randomUUID().replace(/-/g, '');

/** The public ("stock") folder and key of the reference system. */
export const EMPTY_GUID = '00000000-0000-0000-0000-000000000000';

export const sha256Hex = (text: string): string =>
  createHash('sha256').update(text, 'utf8').digest('hex');

/** 32 hex characters from 16 random bytes: tickets and launch tokens. */
export const newToken = (): string => randomBytes(16).toString('hex');

/** An API key: 24 random bytes, base64 with '/' and '+' replaced by '_' (32 characters). */
export const newApiKey = (): string => randomBytes(24).toString('base64').replace(/[/+]/g, '_');

/** An id as a body or query gives it (of any type): a string of 1 to 64 characters, else null. */
export const asId = (value: unknown): string | null =>
  typeof value === 'string' && value.length > 0 && value.length <= 64 ? value : null;
