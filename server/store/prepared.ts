import type { Compilable, CompiledQuery, Kysely, SelectQueryNode } from 'kysely';
import type SQLite from 'better-sqlite3';
import { createBatcher, type Outcome } from './batch';

// Reads made on every page load (a game state's players, templates and machines), compiled once.
// The query builder compiles each query anew (about 30 µs) and on SQLite hands it through a
// connection lock and a promise chain; a prepared read is built once per database with
// placeholders, and on SQLite runs its prepared statement directly, with the column names
// turned to camelCase as the CamelCasePlugin turns them. On PostgreSQL it runs the compiled
// query through Kysely (its plugins and pool) with the call's values, and the calls that arrive
// together (batch.ts) as one statement: each call's values become a row of arrays unnested, and
// the read runs for each row as a LATERAL subquery, its rows tagged with the call they answer.

const sqliteHandles = new WeakMap<object, SQLite.Database>();
const postgresDbs = new WeakSet<object>();

/** Tells prepared reads that `db` runs on this SQLite connection (openStore does). */
export function registerSqlite(db: Kysely<unknown> | object, sqlite: SQLite.Database): void {
  sqliteHandles.set(db, sqlite);
}

/** Tells prepared reads (and onPostgres) that `db` is a PostgreSQL pool's (openStore does). */
export function registerPostgres(db: Kysely<unknown> | object): void {
  postgresDbs.add(db);
}

/**
 * True for a database openStore opened on PostgreSQL (not for a transaction of it): for the
 * writes that take one statement there (each statement outside a transaction is a commit) and a
 * transaction on SQLite, and for the calls batched into one statement.
 */
export const onPostgres = (db: object): boolean => postgresDbs.has(db);

/** Where a call's value goes in the compiled query. */
class Slot {
  constructor(readonly index: number) {}
}

const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

type Run<A extends unknown[], R> = (args: A) => Promise<R[]>;

/** The column that tells which call of a batch a row answers (no table has one so named). */
const BATCH_INDEX = 'batchindex';

/** The array type that carries one value of every call of a batch; null when they mix kinds. */
function arrayType(values: unknown[]): string | null {
  const present = values.filter((v) => v !== null && v !== undefined);
  if (present.every((v) => typeof v === 'string')) return 'text[]';
  if (present.every((v) => typeof v === 'boolean')) return 'bool[]';
  if (present.every((v) => typeof v === 'number')) {
    return present.every((v) => Number.isSafeInteger(v)) ? 'int8[]' : 'float8[]';
  }
  return null;
}

/**
 * The batched form of a compiled read on PostgreSQL: its SQL run LATERAL for each row of the
 * calls' values, `$n` of a call's value becoming that row's column. A read ordered but not
 * limited gets OFFSET 0, which keeps PostgreSQL from merging it into the join (and dropping its
 * order): each call's rows then come together, in the read's own order.
 */
function batchedQuery(compiled: CompiledQuery, slots: number) {
  const node = compiled.query as SelectQueryNode;
  const constants: unknown[] = [];
  const text = compiled.sql.replace(/\$(\d+)/g, (_, n: string) => {
    const parameter = compiled.parameters[Number(n) - 1];
    if (parameter instanceof Slot) return `v."a${parameter.index}"`;
    constants.push(parameter);
    return `$${slots + 1 + constants.length}`;
  });
  const inner = node.orderBy && !node.limit && !node.offset ? `${text} offset 0` : text;
  const columns = Array.from({ length: slots }, (_, i) => `"a${i}"`);
  return (types: string[]) => ({
    sql:
      `select v."${BATCH_INDEX}", q.* from unnest($1::int4[], ` +
      `${types.map((t, i) => `$${i + 2}::${t}`).join(', ')}) ` +
      `as v("${BATCH_INDEX}", ${columns.join(', ')}) cross join lateral (${inner}) as q`,
    constants,
  });
}

/**
 * A read built by `build` from the database and the call's values, compiled once per database.
 * `build` must use each value as a value only (compared, not in names or in the shape of the
 * query): it is called once, with placeholders. Its SQL has no `$` but its parameters' (no
 * literal of raw SQL holding one): the batched form renumbers them.
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
      const single = async (args: A) =>
        (await db.executeQuery({ ...compiled, parameters: values(args) } as CompiledQuery<R>)).rows;
      // A read without values answers every call alike: nothing to batch.
      return postgresDbs.has(db) && slots.length > 0
        ? batchedReads(db, compiled, slots.length, single)
        : single;
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

/**
 * Calls of one read on PostgreSQL, batched (batch.ts): the distinct values of the calls that
 * arrive together in one statement. Each call gets rows of its own (calls with equal values get
 * copies), as `single` would answer them.
 */
function batchedReads<D, A extends unknown[], R>(
  db: Kysely<D>,
  compiled: CompiledQuery,
  slots: number,
  single: Run<A, R>,
): Run<A, R> {
  const batched = batchedQuery(compiled, slots);
  const run = async (calls: A[]): Promise<Array<Outcome<R[]>>> => {
    const keys = calls.map((args) => JSON.stringify(args));
    const distinct = [...new Map(keys.map((key, i) => [key, calls[i]!])).entries()];
    const types = Array.from({ length: slots }, (_, s) =>
      arrayType(distinct.map(([, args]) => args[s])),
    );
    if (types.some((t) => t === null)) {
      return Promise.all(
        calls.map((args) =>
          single(args).then(
            (value) => ({ value }),
            (error) => ({ error }),
          ),
        ),
      );
    }
    const { sql, constants } = batched(types as string[]);
    const parameters = [
      distinct.map((_, i) => i),
      ...Array.from({ length: slots }, (_, s) => distinct.map(([, args]) => args[s])),
      ...constants,
    ];
    const { rows } = await db.executeQuery<Record<string, unknown>>({
      ...compiled,
      sql,
      parameters,
    } as CompiledQuery<Record<string, unknown>>);
    const answers = distinct.map((): R[] => []);
    for (const row of rows) {
      const { [BATCH_INDEX]: index, ...rest } = row;
      answers[Number(index)]!.push(rest as R);
    }
    const byKey = new Map(distinct.map(([key], i) => [key, answers[i]!]));
    const given = new Set<string>();
    return keys.map((key) => {
      const answer = byKey.get(key)!;
      if (!given.has(key)) {
        given.add(key);
        return { value: answer };
      }
      return { value: answer.map((row) => ({ ...row })) };
    });
  };
  const call = createBatcher(run, single);
  return (args) => call(args);
}
