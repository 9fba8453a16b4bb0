import { sql, type RawBuilder } from 'kysely';

// Substring matching as the reference's searches do it (lowercase, LIKE with the term's own
// wildcards escaped), written once for every repository that searches.

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** `lower(column)` contains `term` (already lowercase), on SQLite and PostgreSQL alike. */
export function contains(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${`%${escapeLike(term)}%`} escape '\\'`;
}

/** `lower(column)` starts with `term` (already lowercase). */
export function startsWith(column: string, term: string): RawBuilder<boolean> {
  return sql<boolean>`lower(${sql.ref(column)}) like ${`${escapeLike(term)}%`} escape '\\'`;
}
