import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../server/app';
import { loadConfig } from '../../server/config';
import { openStore } from '../../server/store/db';
import { createTestDatabase, testEngines, type TestDatabase } from './databases';
import { SEED_PASSWORD } from './harness';

// Several replicas started at once on an empty database (a compose stack's first `up`): one of
// them seeds the first-run accounts, the others start without seeding and without an error.

describe.each(testEngines())('first start of two servers at once on %s', (engine) => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterAll(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });

  it('seeds once, and both servers start', async () => {
    const database: TestDatabase = await createTestDatabase(engine);
    cleanups.push(() => database.cleanup());
    const config = () => {
      const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-seed-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      return loadConfig({
        PORT: '5699',
        TOPOPLAY_DATA: dataDir,
        TOPOPLAY_SPA: join(dataDir, 'no-spa'),
        TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
        DATABASE_URL: database.url,
        ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
        JANITOR_ENABLED: 'false',
        LOG_LEVEL: 'warn',
      });
    };
    // Migrated first, as the replicas' shared database is by whichever starts first: the race
    // under test is the seeding, which follows.
    const store = await openStore({ url: database.url, schema: database.schema });
    await store.close();

    const apps = await Promise.all([
      buildApp(config(), { logger: false }),
      buildApp(config(), { logger: false }),
    ]);
    cleanups.push(() => Promise.all(apps.map((a) => a.close())).then(() => undefined));
    expect(apps.filter((a) => a.seeded !== null)).toHaveLength(1);
    const accounts = await apps[0]!.store.db
      .selectFrom('identityAccounts')
      .select('username')
      .orderBy('username')
      .execute();
    expect(accounts.map((a) => a.username)).toEqual(['admin', 'creator', 'observer', 'player']);
    expect(await apps[1]!.store.db.selectFrom('users').select('id').execute()).toHaveLength(4);
  });
});
