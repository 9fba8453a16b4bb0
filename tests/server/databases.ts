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
  const url = process.env.TEST_DATABASE_URL;
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
