import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { openStore, type Db, type Store } from './db';
import { preparedRead } from './prepared';
import type { UserTable } from './schema';

const user = (id: string, name: string, role: number): UserTable => ({
  id,
  name,
  scope: '',
  workspaceLimit: 0,
  gamespaceLimit: 0,
  gamespaceMaxMinutes: 0,
  gamespaceCleanupGraceMinutes: 0,
  role,
  lastIdpAssignedRole: null,
  serviceAccountClientId: null,
  whenCreated: 0,
  registrar: 0,
});

describe.each(testEngines())('prepared reads on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;
  afterEach(async () => {
    await store.close();
    await database.cleanup();
  });

  const open = async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
  };

  it('answers as the query builder does, with each call’s values', async () => {
    await open();
    const db = store.db;
    const read = preparedRead((d: Db, role: number, name: string) =>
      d
        .selectFrom('users')
        .select(['name', 'role', 'serviceAccountClientId'])
        .where('role', '=', role)
        .where('name', '!=', name)
        .orderBy('name'),
    );
    expect(await read(db, 1, 'x')).toEqual([]);
    await db
      .insertInto('users')
      .values([user('u1', 'alpha', 1), user('u2', 'beta', 1), user('u3', 'gamma', 2)])
      .execute();
    const built = await db
      .selectFrom('users')
      .select(['name', 'role', 'serviceAccountClientId'])
      .where('role', '=', 1)
      .where('name', '!=', 'x')
      .orderBy('name')
      .execute();
    expect(built).toEqual([
      { name: 'alpha', role: 1, serviceAccountClientId: null },
      { name: 'beta', role: 1, serviceAccountClientId: null },
    ]);
    expect(await read(db, 1, 'x')).toEqual(built);
    expect(await read(db, 1, 'alpha')).toEqual([
      { name: 'beta', role: 1, serviceAccountClientId: null },
    ]);
    expect(await read(db, 2, '')).toEqual([
      { name: 'gamma', role: 2, serviceAccountClientId: null },
    ]);
  });

  it('answers calls made together as each would be answered alone, on PostgreSQL in one statement', async () => {
    await open();
    const db = store.db;
    await db
      .insertInto('users')
      .values([
        user('u1', 'delta', 1),
        user('u2', 'alpha', 1),
        user('u3', 'gamma', 2),
        user('u4', 'beta', 1),
      ])
      .execute();
    const read = preparedRead((d: Db, role: number, name: string) =>
      d
        .selectFrom('users')
        .select(['id', 'name'])
        .where('role', '=', role)
        .where('name', '!=', name)
        .where('gamespaceLimit', '=', 0)
        .orderBy('name', 'desc'),
    );
    const calls: Array<[number, string]> = [
      [1, 'x'],
      [2, ''],
      [1, 'beta'],
      [3, ''],
      [1, 'x'],
    ];
    const alone = [];
    for (const [role, name] of calls) alone.push(await read(db, role, name));
    expect(alone[0]).toEqual([
      { id: 'u1', name: 'delta' },
      { id: 'u4', name: 'beta' },
      { id: 'u2', name: 'alpha' },
    ]);
    const statements = vi.spyOn(db, 'executeQuery');
    const together = await Promise.all(calls.map(([role, name]) => read(db, role, name)));
    expect(together).toEqual(alone);
    // Calls with the same values get rows of their own.
    expect(together[4]).not.toBe(together[0]);
    expect(together[4]![0]).not.toBe(together[0]![0]);
    if (engine === 'postgres') expect(statements).toHaveBeenCalledTimes(1);
  });

  it('fails only the call whose value the database refuses', async () => {
    await open();
    const db = store.db;
    await db
      .insertInto('users')
      .values([user('u1', 'alpha', 1)])
      .execute();
    const read = preparedRead((d: Db, id: string) =>
      d.selectFrom('users').select('name').where('id', '=', id),
    );
    const results = await Promise.allSettled([read(db, 'u1'), read(db, 'u\u0000'), read(db, 'u2')]);
    expect(results[0]).toEqual({ status: 'fulfilled', value: [{ name: 'alpha' }] });
    expect(results[2]).toEqual({ status: 'fulfilled', value: [] });
    if (engine === 'postgres') expect(results[1]!.status).toBe('rejected');
  });

  it('reads only', async () => {
    await open();
    const write = preparedRead(
      (d: Db, id: string) => d.deleteFrom('users').where('id', '=', id) as never,
    );
    await expect(write(store.db, 't1')).rejects.toThrow('a prepared read must select');
  });
});
