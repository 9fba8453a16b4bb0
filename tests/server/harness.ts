import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp, type App } from '../../server/app';
import type { Clock } from '../../server/clock';
import { loadConfig } from '../../server/config';
import { newApiKey, newId, sha256Hex } from '../../server/core/ids';
import { createTestDatabase, type TestDatabase } from './databases';
import { freePort } from './ports';

export { freePort };

export const SEED_PASSWORD = 'correct-horse-battery-staple';

export interface TestServer {
  url: string;
  app: App;
  dataDir: string;
  /** A user's API key (the row is written straight to the store, as an admin would create it). */
  apiKeyFor(username: string): Promise<string>;
  userId(username: string): Promise<string>;
  /**
   * Closes the app and builds a new one on the same data folder, database and port, as a
   * server process restarting does; `app` is the new one afterwards.
   */
  restart(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The real server on a free loopback port, with a fresh data folder and database. With a `clock`
 * (tests/server/manualClock.ts), the sim driver's tasks end when the test moves it on.
 */
export async function startTestServer(
  options: {
    engine?: 'sqlite' | 'postgres';
    env?: Record<string, string>;
    clock?: Clock;
    /** Where the server's log goes (at LOG_LEVEL, `warn` unless `env` sets it); unset: no log. */
    logDestination?: NodeJS.WritableStream;
  } = {},
): Promise<TestServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-test-'));
  const database: TestDatabase = await createTestDatabase(options.engine ?? 'sqlite');
  const url = `http://127.0.0.1:${port}`;
  const config = loadConfig({
    PORT: String(port),
    HOST: '127.0.0.1',
    TOPOPLAY_URL: url,
    TOPOPLAY_DATA: dataDir,
    TOPOPLAY_SPA: join(dataDir, 'no-spa'),
    TOPOPLAY_SEED_PASSWORD: SEED_PASSWORD,
    DATABASE_URL: database.engine === 'sqlite' ? database.url : database.url,
    ...(database.schema ? { DATABASE_SCHEMA: database.schema } : {}),
    LOG_LEVEL: 'warn',
    // Background runs would end and clean gamespaces under a test's feet; tests that want the
    // janitor run it on demand or pass JANITOR_ENABLED.
    JANITOR_ENABLED: 'false',
    // Suites sign in, connect and probe from 127.0.0.1 far more often than one client would;
    // the abuse-limit suites (tests/server/abuse) turn these limits on.
    RATE_LIMIT_ANONYMOUS: '0',
    RATE_LIMIT_CREDENTIALS: '0',
    ...options.env,
  });
  const { logDestination, clock } = options;
  const build = () =>
    buildApp(config, logDestination ? { logDestination, clock } : { logger: false, clock });
  let app = await build();
  await app.app.listen({ port, host: '127.0.0.1' });

  const userId = async (username: string) => {
    const account = await app.store.db
      .selectFrom('identityAccounts')
      .select('id')
      .where('username', '=', username)
      .executeTakeFirstOrThrow();
    return account.id;
  };

  return {
    url,
    get app() {
      return app;
    },
    dataDir,
    userId,
    async apiKeyFor(username) {
      const key = newApiKey();
      await app.store.db
        .insertInto('apiKeys')
        .values({
          id: newId(),
          userId: await userId(username),
          name: 'test',
          hash: sha256Hex(key),
          whenCreated: Date.now(),
        })
        .execute();
      return key;
    },
    async restart() {
      // Once this resolves the old server has closed every connection; a client's pooled
      // keep-alive socket reads that close at the next turn of the event loop, long before the
      // new server (its database opened and migrated) listens.
      await app.close();
      app = await build();
      await app.app.listen({ port, host: '127.0.0.1' });
    },
    async close() {
      await app.close();
      await database.cleanup();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
