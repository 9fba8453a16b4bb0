import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { sql } from 'kysely';
import {
  isUniqueViolation,
  migrate,
  openStore,
  withSearchPath,
  withStatementCache,
  type Store,
} from './db';
import { sharedSecret } from './secrets';

describe.each(testEngines())('store on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
  });
  afterAll(async () => {
    await store?.close();
    await database?.cleanup();
  });

  it('looks a row up by a key column exactly as the query builder reads it', async () => {
    const id = `u${Date.now().toString(36)}`;
    await store.db
      .insertInto('users')
      .values({
        id,
        name: 'Ada',
        scope: 'red blue',
        workspaceLimit: 3,
        gamespaceLimit: 2,
        gamespaceMaxMinutes: 0,
        gamespaceCleanupGraceMinutes: 5,
        role: 1,
        lastIdpAssignedRole: null,
        serviceAccountClientId: null,
        whenCreated: 1_700_000_000_000,
        registrar: 0,
      })
      .execute();
    const built = await store.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    const lookup = store.rowLookup('users', 'id');
    expect(await lookup(id)).toEqual(built);
    expect(await lookup('nobody')).toBeUndefined();

    // With a column of another table's row of the same key: null while there is none.
    const withAccount = store.rowLookup('users', 'id', {
      table: 'identityAccounts',
      column: 'disabled',
      as: 'accountDisabled',
    });
    expect(await withAccount(id)).toEqual({ ...built, accountDisabled: null });
    await store.db
      .insertInto('identityAccounts')
      .values({ id, username: id, name: 'Ada', passwordHash: 'x', whenCreated: 0, disabled: 1 })
      .execute();
    expect(await withAccount(id)).toEqual({ ...built, accountDisabled: 1 });
    expect(await withAccount('nobody')).toBeUndefined();
  });

  it('creates every table of the data model', async () => {
    const tables = (await store.db.introspection.getTables()).map((t) => t.name).sort();
    expect(tables).toEqual(
      expect.arrayContaining([
        'api_keys',
        'dispatches',
        'gamespace_favorites',
        'gamespaces',
        'identity_accounts',
        'identity_payloads',
        'key_values',
        'players',
        'template_favorites',
        'templates',
        'users',
        'workers',
        'workspace_favorites',
        'workspaces',
      ]),
    );
  });

  it('runs migrations again without changes', async () => {
    await expect(migrate(store.db, database.schema)).resolves.toBeUndefined();
  });

  it('returns millisecond times as numbers and flags as integers', async () => {
    const when = Date.UTC(2030, 0, 2, 3, 4, 5, 678);
    await store.db
      .insertInto('workspaces')
      .values({
        id: 'w1',
        name: 'Times',
        description: '',
        tags: '',
        author: '',
        audience: '',
        shareCode: '',
        templateScope: '',
        isPublished: 1,
        templateLimit: 3,
        hostAffinity: 0,
        useUplinkSwitch: 0,
        durationMinutes: 0,
        launchCount: 0,
        lastActivity: when,
        challenge: '',
        whenCreated: when,
      })
      .execute();
    const row = await store.db
      .selectFrom('workspaces')
      .selectAll()
      .where('id', '=', 'w1')
      .executeTakeFirstOrThrow();
    expect(row.whenCreated).toBe(when);
    expect(row.isPublished).toBe(1);
  });

  it('cascades workspace deletion to workers and templates but keeps gamespaces', async () => {
    await store.db
      .insertInto('workers')
      .values({ subjectId: 'u1', workspaceId: 'w1', subjectName: 'U', permission: 255 })
      .execute();
    await store.db
      .insertInto('templates')
      .values({
        id: 't1',
        name: 't',
        description: '',
        audience: '',
        iso: '',
        networks: '',
        guestinfo: '',
        isHidden: 0,
        isPublished: 0,
        isLinked: 0,
        detail: null,
        parentId: null,
        replicas: 0,
        variant: 0,
        workspaceId: 'w1',
        whenCreated: 0,
      })
      .execute();
    await store.db
      .insertInto('gamespaces')
      .values({
        id: 'g1',
        name: 'g',
        managerId: 'u1',
        managerName: 'U',
        graderKey: '',
        whenCreated: 0,
        startTime: 0,
        endTime: 0,
        expirationTime: 0,
        cleanupGraceMinutes: 0,
        cleaned: 0,
        allowReset: 0,
        challenge: '',
        workspaceId: 'w1',
        variant: 0,
        playerCount: 1,
      })
      .execute();
    await store.db.deleteFrom('workspaces').where('id', '=', 'w1').execute();
    expect(await store.db.selectFrom('workers').selectAll().execute()).toHaveLength(0);
    expect(await store.db.selectFrom('templates').selectAll().execute()).toHaveLength(0);
    const gs = await store.db
      .selectFrom('gamespaces')
      .selectAll()
      .where('id', '=', 'g1')
      .executeTakeFirstOrThrow();
    expect(gs.workspaceId).toBeNull();
  });

  it('reports unique violations the same way on both engines', async () => {
    const row = { id: 'f1', userId: 'u1', targetId: 'w9', whenCreated: 0 };
    await store.db.insertInto('workspaceFavorites').values(row).execute();
    const error = await store.db
      .insertInto('workspaceFavorites')
      .values({ ...row, id: 'f2' })
      .execute()
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isUniqueViolation(error)).toBe(true);
  });

  // Server options exist on PostgreSQL only.
  if (engine === 'postgres')
    it("keeps the URL's server options beside the schema's search path", async () => {
      const url = new URL(database.url);
      url.searchParams.set('options', '-c statement_timeout=4321');
      const other = await openStore({ url: url.toString(), schema: database.schema });
      try {
        const shown = await sql<{
          timeout: string;
          path: string;
        }>`select current_setting('statement_timeout') as timeout, current_setting('search_path') as path`.execute(
          other.db,
        );
        expect(shown.rows[0]).toEqual({ timeout: '4321ms', path: database.schema });
      } finally {
        await other.close();
      }
    });

  it('creates a shared secret once and returns the same value afterwards', async () => {
    const first = await sharedSecret(store.db, 'test.secret');
    const again = await Promise.all([
      sharedSecret(store.db, 'test.secret'),
      sharedSecret(store.db, 'test.secret'),
    ]);
    expect(again).toEqual([first, first]);
  });
});

describe('prepared statements kept by their SQL', () => {
  const sqlite = new SQLite(':memory:');
  sqlite.exec('create table t (n integer)');
  sqlite.exec('insert into t values (1), (2), (3)');
  afterAll(() => sqlite.close());

  it('prepares each SQL text once', () => {
    const cached = withStatementCache(sqlite);
    const first = cached.prepare('select n from t where n > ?');
    expect(cached.prepare('select n from t where n > ?')).toBe(first);
    expect(cached.prepare('select n from t where n < ?')).not.toBe(first);
  });

  it('hands out a fresh statement while the kept one is still iterating', () => {
    const cached = withStatementCache(sqlite);
    const text = 'select n from t order by n';
    const outer = cached.prepare(text) as unknown as SQLite.Statement<[], { n: number }>;
    const seen: number[] = [];
    for (const row of outer.iterate()) {
      const inner = cached.prepare(text) as unknown as SQLite.Statement<[], { n: number }>;
      expect(inner).not.toBe(outer);
      seen.push(row.n, inner.all().length);
    }
    expect(seen).toEqual([1, 3, 2, 3, 3, 3]);
    expect(cached.prepare(text)).toBe(outer);
  });

  it('keeps at most `size` statements, dropping the oldest', () => {
    const cached = withStatementCache(sqlite, 2);
    const a = cached.prepare('select 1');
    cached.prepare('select 2');
    cached.prepare('select 3');
    expect(cached.prepare('select 1')).not.toBe(a);
  });
});

describe('withSearchPath', () => {
  it("sends the URL's server options and the search path together", () => {
    expect(withSearchPath('postgres://h/db', 's1')).toEqual({
      connectionString: 'postgres://h/db',
      options: '-c search_path=s1',
    });
    expect(
      withSearchPath('postgres://h/db?options=-c%20synchronous_commit%3Doff&sslmode=disable', 's1'),
    ).toEqual({
      connectionString: 'postgres://h/db?sslmode=disable',
      options: '-c synchronous_commit=off -c search_path=s1',
    });
  });
});
