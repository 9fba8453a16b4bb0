import type { Compilable, CompiledQuery, Kysely } from 'kysely';
import type SQLite from 'better-sqlite3';

// Reads made on every page load (a game state's players, templates and machines), compiled once.
// The query builder compiles each query anew (about 30 µs) and on SQLite hands it through a
// connection lock and a promise chain; a prepared read is built once per database with
// placeholders, and on SQLite runs its prepared statement directly, with the column names
// turned to camelCase as the CamelCasePlugin turns them. On PostgreSQL it runs the compiled
// query through Kysely (its plugins and pool) with the call's values.

const sqliteHandles = new WeakMap<object, SQLite.Database>();

/** Tells prepared reads that `db` runs on this SQLite connection (openStore does). */
export function registerSqlite(db: Kysely<unknown> | object, sqlite: SQLite.Database): void {
  sqliteHandles.set(db, sqlite);
}

/** Where a call's value goes in the compiled query. */
class Slot {
  constructor(readonly index: number) {}
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type Run<A extends unknown[], R> = (args: A) => Promise<R[]>;

/**
 * A read built by `build` from the database and the call's values, compiled once per database.
 * `build` must use each value as a value only (compared, not in names or in the shape of the
 * query): it is called once, with placeholders.
 */
export function preparedRead<D, A extends unknown[], R>(
  build: (db: Kysely<D>, ...args: A) => Compilable<R>,
): (db: Kysely<D>, ...args: A) => Promise<R[]> {
  const runs = new WeakMap<Kysely<D>, Run<A, R>>();
  const prepare = (db: Kysely<D>): Run<A, R> => {
    const slots = Array.from({ length: build.length - 1 }, (_, i) => new Slot(i));
    const compiled = build(db, ...(slots as unknown as A)).compile();
    if (compiled.query.kind !== 'SelectQueryNode') throw new Error('a prepared read must select');
    const values = (args: A) =>
      compiled.parameters.map((p) => (p instanceof Slot ? args[p.index] : p));
    const sqlite = sqliteHandles.get(db);
    if (!sqlite) {
      return async (args) =>
        (await db.executeQuery({ ...compiled, parameters: values(args) } as CompiledQuery<R>)).rows;
    }
    const statement = sqlite.prepare(compiled.sql);
    const names = new Map<string, string>();
    return async (args) => {
      const rows = statement.all(values(args)) as Array<Record<string, unknown>>;
      return rows.map((row) => {
        const result: Record<string, unknown> = {};
        for (const column in row) {
          let name = names.get(column);
          if (name === undefined) names.set(column, (name = camel(column)));
          result[name] = row[column];
        }
        return result as R;
      });
    };
  };
  return async (db, ...args) => {
    let run = runs.get(db);
    if (!run) runs.set(db, (run = prepare(db)));
    return run(args);
  };
}
