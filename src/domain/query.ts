/**
 * Query strings as the reference client builds them (spec §5): empty or falsy values are left
 * out, and an array repeats its key once per (truthy) item. Shared with the server, so no DOM
 * APIs (`URLSearchParams` would also encode spaces as '+', which the reference does not).
 */

/** A value counts as empty when it is falsy (NaN and 0 included) or an array with no items. */
function isPresent(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function encodeValue(value: unknown): string {
  return encodeURIComponent(value instanceof Date ? value.toISOString() : String(value));
}

/** `{ term: 'a b', f: ['x', '', 'y'], skip: 0 }` -> `'?term=a%20b&f=x&f=y'`; `''` when nothing is left. */
export function toQueryString(params: Record<string, unknown>): string {
  const pairs: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    if (!isPresent(value)) continue;
    const items: readonly unknown[] = Array.isArray(value) ? value : [value];
    for (const item of items) {
      if (isPresent(item)) pairs.push(`${encodeURIComponent(key)}=${encodeValue(item)}`);
    }
  }
  return pairs.length > 0 ? `?${pairs.join('&')}` : '';
}

/** `path` with the query string of `params` appended, after any query `path` already has. */
export function withQuery(path: string, params: Record<string, unknown>): string {
  const query = toQueryString(params);
  if (query === '') return path;
  return path.includes('?') ? `${path}&${query.slice(1)}` : `${path}${query}`;
}
