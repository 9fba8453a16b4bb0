import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

// The store's suites run on SQLite always and on PostgreSQL when TEST_DATABASE_URL is set (CI
// sets it). Each PostgreSQL run gets its own schema, dropped afterwards.

export interface TestDatabase {
  engine: 'sqlite' | 'postgres';
  url: string;
  schema?: string;
  cleanup(): Promise<void>;
}

/**
 * TEST_DATABASE_URL with `synchronous_commit` off: a commit returns without waiting for its WAL
 * to reach the disk (9 ms a commit against 1.3 ms here while npm test runs). What a test sees
 * is the same: a committed row is visible to every connection at once, and only a crash of
 * PostgreSQL itself, which no test causes, could lose the last commits. Options the URL has
 * already are kept.
 */
export function testDatabaseUrl(): string | undefined {
  const given = process.env.TEST_DATABASE_URL;
  if (!given) return undefined;
  const url = new URL(given);
  const own = url.searchParams.get('options');
  url.searchParams.set('options', [own, '-c synchronous_commit=off'].filter(Boolean).join(' '));
  return url.toString();
}

export function testEngines(): Array<'sqlite' | 'postgres'> {
  return process.env.TEST_DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export async function createTestDatabase(engine: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'topoplay-db-'));
    return {
      engine,
      url: join(dir, 'test.db'),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = testDatabaseUrl();
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  return {
    engine,
    url,
    schema,
    async cleanup() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
