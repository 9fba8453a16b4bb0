import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openStore } from './db';

// A PostgreSQL database shared with others (another deployment's schema, or the parallel test
// suites' own schemas): a schema dropped while this server migrates must not fail the migration.
// Kysely's introspection lists the tables of every schema and calls functions on each name, so
// a schema dropped between its scan and those calls failed it with "schema … does not exist".

const url = process.env.TEST_DATABASE_URL;

describe.skipIf(!url)('migrations on PostgreSQL while other schemas come and go', () => {
  it('open and migrate while other schemas with tables are created and dropped', async () => {
    const churn = new pg.Client({ connectionString: url });
    await churn.connect();
    const tag = `churn_${Date.now().toString(36)}`;
    let running = true;
    let dropped = 0;
    const churning = (async () => {
      for (let i = 0; running; i++) {
        const schema = `${tag}_${i}`;
        await churn.query(
          `create schema "${schema}"; ` +
            Array.from(
              { length: 20 },
              (_, t) => `create table "${schema}".t${t} (id serial primary key, v text);`,
            ).join(' '),
        );
        await churn.query(`drop schema "${schema}" cascade`);
        dropped++;
      }
    })();
    const schemas: string[] = [];
    try {
      for (let i = 0; i < 15; i++) {
        const schema = `t_${tag}_${i}`;
        schemas.push(schema);
        const store = await openStore({ url: url!, schema });
        expect(await store.pendingMigrations()).toEqual([]);
        await store.close();
      }
    } finally {
      running = false;
      await churning;
      for (const schema of schemas) await churn.query(`drop schema if exists "${schema}" cascade`);
      await churn.end();
    }
    expect(dropped).toBeGreaterThan(0);
  }, 120_000);
});
