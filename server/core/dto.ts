// Wire formatting shared by every route (wire reference §0).

/** DateTimeOffset.MinValue: how the reference writes an unset date. */
export const UNSET_DATE = '0001-01-01T00:00:00+00:00';

/** Milliseconds since the epoch to an ISO-8601 string with an explicit offset; 0 is unset. */
export function isoDate(ms: number | null | undefined): string {
  if (!ms || ms <= 0) return UNSET_DATE;
  return new Date(ms).toISOString().replace('Z', '+00:00');
}

/** Parses a date the way clients send them; unset, empty or invalid dates become 0. */
export function parseDate(value: unknown): number {
  if (typeof value === 'number') return value > 0 ? value : 0;
  if (typeof value !== 'string' || !value || value.startsWith('0001-')) return 0;
  const ms = Date.parse(value);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * The reference's slug: letters and digits kept, any run of other characters becomes one '-',
 * lowercase, trailing '-' removed.
 */
export function slug(name: string | null | undefined): string {
  return (name ?? '')
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .toLowerCase()
    .replace(/-+$/, '');
}

/** "Tokens": lowercase both, split on space, comma and semicolon, any common non-empty token. */
export function hasAnyToken(a: string | null | undefined, b: string | null | undefined): boolean {
  const split = (s: string | null | undefined) =>
    (s ?? '')
      .toLowerCase()
      .split(/[\s,;]+/)
      .filter(Boolean);
  const right = new Set(split(b));
  return split(a).some((t) => right.has(t));
}

/** The scope every user has besides their own (the reference's Core.DefaultUserScope). */
export const DEFAULT_USER_SCOPE = 'everyone';

/**
 * Whether a workspace's audience reaches a user of `scope`: a token of their scope or
 * "everyone" (wire reference §6.6, HasValidUserScope in §1.2). The one rule for an observer's
 * reach too: the gamespaces they list, the challenges, machines and dispatches they see.
 */
export function audienceReaches(
  audience: string | null | undefined,
  scope: string | null | undefined,
): boolean {
  return hasAnyToken(audience, `${scope ?? ''} ${DEFAULT_USER_SCOPE}`);
}
