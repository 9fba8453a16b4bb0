import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import {
  CamelCasePlugin,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  type Migration,
  type MigrationProvider,
} from 'kysely';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Database } from './schema';
import * as m001 from './migrations/001_initial';
import * as m002 from './migrations/002_machines';
import * as m003 from './migrations/003_documents';

export type Db = Kysely<Database>;
export type Dialect = 'sqlite' | 'postgres';

const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_machines': m002,
  '003_documents': m003,
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
  close(): Promise<void>;
}

export function isPostgresUrl(url: string): boolean {
  return /^postgres(ql)?:\/\//i.test(url);
}

// bigint (int8) columns hold millisecond times, well inside Number's exact range.
const INT8_OID = 20;

export async function openStore(options: StoreOptions): Promise<Store> {
  const plugins = [new CamelCasePlugin()];
  let db: Db;
  let dialect: Dialect;
  if (isPostgresUrl(options.url)) {
    dialect = 'postgres';
    const schema = options.schema;
    const pool = new pg.Pool({
      connectionString: options.url,
      max: 10,
      types: {
        getTypeParser: ((oid: number, format?: string) =>
          oid === INT8_OID
            ? (v: string) => Number(v)
            : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
      },
      ...(schema ? { options: `-c search_path=${schema}` } : {}),
    });
    if (schema) {
      const client = await pool.connect();
      try {
        await client.query(`create schema if not exists "${schema.replace(/"/g, '')}"`);
      } finally {
        client.release();
      }
    }
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }), plugins });
  } else {
    dialect = 'sqlite';
    if (options.url !== ':memory:') mkdirSync(dirname(options.url), { recursive: true });
    const sqlite = new SQLite(options.url);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }), plugins });
  }
  await migrate(db, options.schema);
  return { db, dialect, close: () => db.destroy() };
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
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === '23505'
  );
}
