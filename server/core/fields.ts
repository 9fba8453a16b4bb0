import { ValidationFailed } from './errors';

// What the authoring services share: argument validation with the reference's messages, search
// paging, and the port through which they publish hub events.

/** The most rows a search returns; `take=0` means this many, more is MaximumTakeExceeded. */
export const MAX_TAKE = 1000;

export interface Paging {
  skip: number;
  take: number;
}

/** The largest skip: the reference binds it to a 32-bit integer. */
export const MAX_SKIP = 2_147_483_647;

export function paging(query: { skip?: number; take?: number }): Paging {
  const take = query.take ?? 0;
  if (take > MAX_TAKE) throw new ValidationFailed('take', 'MaximumTakeExceeded');
  const skip = query.skip ?? 0;
  // The route schemas bound skip too, but a query value of hundreds of digits is coerced to
  // Infinity, which Ajv's `maximum` lets through; no database takes it as an offset.
  if (!(skip <= MAX_SKIP)) throw new ValidationFailed('skip', `'skip' must be <= ${MAX_SKIP}`);
  return { skip: Math.max(0, skip), take: take > 0 ? take : MAX_TAKE };
}

/** The search term as the reference compares it: lowercase, trimmed; '' matches everything. */
export const normalizeTerm = (term: string | undefined): string =>
  (term ?? '').trim().toLowerCase();

export const missing = (field: string) =>
  new ValidationFailed(field, `Missing value for required property '${field}'`);

export const invalid = (field: string, why?: string) =>
  new ValidationFailed(field, `InvalidPropertyValue '${field}'${why ? ` ${why}` : ''}`);

/** An optional text field: absent or null is '', longer than `max` is a 400. */
export function optionalText(value: unknown, max: number, field: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw invalid(field, 'must be a string');
  if (value.length > max)
    throw new ValidationFailed(field, `The field ${field} must be at most ${max} characters.`);
  return value;
}

/** A required name: trimmed, not empty, at most `max` characters. */
export function requiredText(value: unknown, max: number, field = 'name'): string {
  if (value === undefined || value === null) throw missing(field);
  const text = optionalText(value, max, field).trim();
  if (!text) throw missing(field);
  return text;
}

/** An optional integer within bounds; absent or null is `fallback`. */
export function integer(
  value: unknown,
  field: string,
  bounds: { min?: number; max?: number; fallback?: number } = {},
): number {
  if (value === undefined || value === null) return bounds.fallback ?? 0;
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw invalid(field, 'must be an integer');
  if (bounds.min !== undefined && n < bounds.min) throw invalid(field, `must be >= ${bounds.min}`);
  if (bounds.max !== undefined && n > bounds.max) throw invalid(field, `must be <= ${bounds.max}`);
  return n;
}

/** An optional flag stored as 0/1; absent or null is 0. */
export function flag(value: unknown, field: string): 0 | 1 {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value === 'true' || value === 1) return 1;
  if (value === 'false' || value === 0) return 0;
  throw invalid(field, 'must be a boolean');
}

/** An argument that names something which does not exist: 400 before authorization. */
export const unknownArgument = (argument: string) =>
  new ValidationFailed(argument, 'ResourceNotFound');

/** The hub events the authoring services publish (wire reference §3). */
export type AuthoringEvent = 'TopoEvent' | 'TemplateEvent' | 'GameEvent';

export interface EventPayload {
  action: string;
  actor: { id: string; name: string };
  model: unknown;
}

/**
 * How services publish: app.ts builds one from the hub (`hub.toGroup(group).send(...)`); unit
 * tests pass a recorder.
 */
export interface Publisher {
  publish(group: string, event: AuthoringEvent, payload: EventPayload): void;
}

export const silentPublisher: Publisher = { publish() {} };

export const actorRef = (actor: { id: string; name: string }) => ({
  id: actor.id,
  name: actor.name,
});
