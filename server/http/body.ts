/**
 * JSON property names are case-insensitive on the way in: clients of the reference send
 * PascalCase ("ResourceId") as well as camelCase. Keys are normalized to camelCase.
 */
export function normalizeKeys<T>(value: T): T {
  if (Array.isArray(value)) return value.map(normalizeKeys) as T;
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    out[key.charAt(0).toLowerCase() + key.slice(1)] = normalizeKeys(v);
  }
  return out as T;
}
