import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CamelCasePlugin,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  sql,
  type DatabaseIntrospector,
  type SchemaMetadata,
  type Selectable,
  type SqliteDatabase,
  type SqliteStatement,
  type TableMetadata,
} from 'kysely';
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  Migrator,
  type Migration,
  type MigrationProvider,
} from 'kysely/migration';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema';
import * as m001 from './migrations/001_initial';
import * as m002 from './migrations/002_machines';
import * as m003 from './migrations/003_documents';
import * as m004 from './migrations/004_play_indexes';
import * as m005 from './migrations/005_registrar';
import * as m006 from './migrations/006_account_disabled';
import * as m007 from './migrations/007_warm_pools';
import * as m008 from './migrations/008_game_events';
import * as m009 from './migrations/009_console_recordings';
import * as m010 from './migrations/010_alerts';
import * as m011 from './migrations/011_help_requests';
import { onPostgres, preparedRead, registerPostgres, registerSqlite } from './prepared';
import { WriteWatchPlugin, type WriteListener } from './writeWatch';

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_machines': m002,
  '003_documents': m003,
  '004_play_indexes': m004,
  '005_registrar': m005,
  '006_account_disabled': m006,
  '007_warm_pools': m007,
  '008_game_events': m008,
  '009_console_recordings': m009,
  '010_alerts': m010,
  '011_help_requests': m011,
};

class StaticMigrations implements MigrationProvider {
  async getMigrations(): Promise<Record<string, Migration>> {
    return migrations;
  }
}

export interface StoreOptions {
  /** A postgres:// URL, or a path to the SQLite file. */
  url: string;
  /** PostgreSQL schema to use (tests give each run its own). */
  schema?: string;
}

export interface Store {
  db: Db;
  dialect: Dialect;
  /**
   * One row by a key column, as `selectFrom(table).selectAll().where(key, '=', value)` reads it.
   * On SQLite it runs a prepared statement directly, without the query builder's compilation
   * and promise chain: for lookups made on every request (the caller's user row). With `join`,
   * one column of the row of another table with the same key comes along as `join.as` (null
   * when that table has no such row), in the same query.
   */
  rowLookup<T extends keyof Database & string, A extends string = never>(
    table: T,
    key: keyof Database[T] & string,
    join?: RowJoin<A>,
  ): (
    value: string,
  ) => Promise<(Selectable<Database[T]> & Partial<Record<A, unknown>>) | undefined>;
  /**
   * Calls `listener` with the table of every insert, update or delete made through `db`, as the
   * query starts and again once it has run (see writeWatch.ts); returns the function that stops.
   */
  watchWrites(listener: WriteListener): () => void;
  /** Migrations this build knows that the database has not applied; rejects when it is away. */
  pendingMigrations(): Promise<string[]>;
  /** The PostgreSQL pool's connections now; null on SQLite, which has one connection. */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

/** A column of another table's row with the same key, for `Store.rowLookup`. */
export interface RowJoin<A extends string> {
  table: keyof Database & string;
  column: string;
  as: A;
}

export interface PoolStats {
  /** Open connections, busy or idle. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
  max: number;
}

const snake = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const camel = (name: string) => name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export { onPostgres };

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

/** How many prepared SQLite statements are kept (one per distinct SQL text). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The SQLite connection as Kysely sees it, with prepared statements kept by their SQL text:
 * Kysely prepares every query anew, which costs more than running a lookup by primary key.
 * A statement still busy (iterating) is never handed out twice; the oldest is dropped when full.
 */
export function withStatementCache(
  sqlite: SQLite.Database,
  size = STATEMENT_CACHE_SIZE,
): SqliteDatabase {
  const statements = new Map<string, SQLite.Statement>();
  return {
    close: () => sqlite.close(),
    prepare(text: string): SqliteStatement {
      const cached = statements.get(text);
      if (cached && !cached.busy) return cached as unknown as SqliteStatement;
      const statement = sqlite.prepare(text);
      if (!cached) {
        if (statements.size >= size) statements.delete(statements.keys().next().value!);
        statements.set(text, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

// bigint (int8) columns hold millisecond times, well inside Number's exact range.
const INT8_OID = 20;

/**
 * Kysely's PostgreSQL introspector lists the tables of every schema in the database and calls
 * functions on each schema's name; a schema dropped meanwhile (another deployment's, or a
 * parallel test run's) fails that query with "schema … does not exist", and with it the
 * migration that asked. The migrator only asks which tables exist in our own schema: answered
 * from the catalog for `current_schema()` alone, with no function of another schema's name.
 */
class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    const base = super.createIntrospector(db);
    const getTables = async (
      options: { withInternalKyselyTables?: boolean } = {},
    ): Promise<TableMetadata[]> => {
      const { rows } = await sql<{ name: string; schema: string; kind: string }>`
        select c.relname as name, n.nspname as schema, c.relkind as kind
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace n on n.oid = c.relnamespace
        where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'f')`.execute(db);
      const internal = [DEFAULT_MIGRATION_TABLE, DEFAULT_MIGRATION_LOCK_TABLE];
      return rows
        .filter((row) => options.withInternalKyselyTables || !internal.includes(row.name))
        .map((row) => ({
          name: row.name,
          schema: row.schema,
          isView: row.kind === 'v',
          isForeign: row.kind === 'f',
          columns: [],
        }));
    };
    return {
      getSchemas: (): Promise<SchemaMetadata[]> => base.getSchemas(),
      getTables,
    };
  }
}

/**
 * The pool's connection settings for `url` with `schema` first on the search path. node-postgres
 * lets the URL's settings win over the configuration's, so the URL's own server options
 * (`?options=-c statement_timeout%3D5000`) would drop the search path, or a configured search
 * path the URL's options: they are taken out of the URL and sent together.
 */
export function withSearchPath(
  url: string,
  schema: string,
): { connectionString: string; options: string } {
  const parsed = new URL(url);
  const own = parsed.searchParams.get('options');
  parsed.searchParams.delete('options');
  return {
    connectionString: parsed.toString(),
    options: [own, `-c search_path=${schema}`].filter(Boolean).join(' '),
  };
}

export async function openStore(options: StoreOptions): Promise<Store> {
  // The write watch first: it tells the table names as the code writes them.
  const writes = new WriteWatchPlugin();
  const plugins = [writes, new CamelCasePlugin()];
  let raw: SQLite.Database | null = null;
  let pool: pg.Pool | null = null;
  let db: Db;
  let dialect: Dialect;
  if (isPostgresUrl(options.url)) {
    dialect = 'postgres';
    const schema = options.schema;
    pool = new pg.Pool({
      connectionString: options.url,
      max: 10,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
      ...(schema ? withSearchPath(options.url, schema) : {}),
    });
    if (schema) {
      const client = await pool.connect();
      try {
        await client.query(`create schema if not exists "${schema.replace(/"/g, '')}"`);
      } finally {
        client.release();
      }
    }
    db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool }), plugins });
    registerPostgres(db);
  } else {
    dialect = 'sqlite';
    if (options.url !== ':memory:') mkdirSync(dirname(options.url), { recursive: true });
    const sqlite = new SQLite(options.url);
    raw = sqlite;
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({
      dialect: new SqliteDialect({ database: withStatementCache(sqlite) }),
      plugins,
    });
    registerSqlite(db, sqlite);
  }
  await migrate(db, options.schema);
  const sqliteHandle = raw;
  const pgPool = pool;
  return {
    db,
    dialect,
    rowLookup(table, key, join) {
      if (!sqliteHandle) {
        // The names are checked by the signature; Kysely cannot follow them generically. A
        // prepared read: the lookups of requests arriving together go as one statement.
        const read = preparedRead((d: Db, value: string) =>
          join
            ? d
                .selectFrom(`${table} as t` as 'users as t')
                .leftJoin(
                  `${join.table} as j` as 'identityAccounts as j',
                  `j.${key}` as 'j.id',
                  `t.${key}` as 't.id',
                )
                .selectAll('t')
                .select(`j.${join.column} as ${join.as}` as 'j.disabled as joined')
                .where(`t.${key}` as 't.id', '=', value)
            : d
                .selectFrom(table as 'users')
                .selectAll()
                .where(key as 'id', '=', value),
        );
        return async (value) => (await read(db, value))[0] as never;
      }
      const k = snake(key);
      // The joined column as a scalar subquery: SQLite runs it in about 6 µs where the same
      // LEFT JOIN takes about 35 µs (both by primary key), on every request of a signed-in user.
      const statement = sqliteHandle.prepare(
        join
          ? `select t.*, (select j."${snake(join.column)}" from "${snake(join.table)}" j ` +
              `where j."${k}" = t."${k}") as "${snake(join.as)}" from "${snake(table)}" t ` +
              `where t."${k}" = ?`
          : `select * from "${snake(table)}" where "${k}" = ?`,
      );
      const names = new Map<string, string>();
      return async (value) => {
        const row = statement.get(value) as Record<string, unknown> | undefined;
        if (!row) return undefined;
        const result: Record<string, unknown> = {};
        for (const column in row) {
          let name = names.get(column);
          if (name === undefined) names.set(column, (name = camel(column)));
          result[name] = row[column];
        }
        return result as never;
      };
    },
    watchWrites: (listener) => writes.watch(listener),
    async pendingMigrations() {
      const table = sql.table(DEFAULT_MIGRATION_TABLE);
      const { rows } = await sql<{ name: string }>`select name from ${table}`.execute(db);
      const applied = new Set(rows.map((r) => r.name));
      return Object.keys(migrations).filter((name) => !applied.has(name));
    },
    poolStats: () =>
      pgPool && {
        total: pgPool.totalCount,
        idle: pgPool.idleCount,
        waiting: pgPool.waitingCount,
        max: pgPool.options.max ?? 10,
      },
    close: () => db.destroy(),
  };
}

export async function migrate(db: Db, schema?: string): Promise<void> {
  // With a schema, Kysely's bookkeeping tables live in it too; otherwise its lookup would find
  // another schema's tables in the same PostgreSQL database.
  const migrator = new Migrator({
    db,
    provider: new StaticMigrations(),
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(
      `database migration failed${failed ? ` at ${failed.migrationName}` : ''}: ${String(error)}`,
    );
  }
}

/** True when the error is a unique-constraint violation, on either engine. */
/**
 * A value the database cannot store: PostgreSQL's data exceptions (class 22: a NUL character in
 * text, a number out of range, text too long for its column), SQLite's too-big value. The request
 * carried it, so it is the caller's error, not the server's.
 */
export function isInvalidValue(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string') return false;
  return code === 'SQLITE_TOOBIG' || (code.length === 5 && code.startsWith('22'));
}

export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === '23505'
  );
}
