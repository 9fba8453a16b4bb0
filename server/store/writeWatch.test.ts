import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './db';
import { writtenTables } from './writeWatch';

describe('the write watch', () => {
  let store: Store;
  afterEach(() => store.close());

  it('tells every insert, update and delete by table, before and after it runs', async () => {
    store = await openStore({ url: ':memory:' });
    const heard: string[] = [];
    const stop = store.watchWrites((table) => heard.push(table));
    const db = store.db;
    const user = {
      id: 'u1',
      name: 'One',
      scope: '',
      workspaceLimit: 0,
      gamespaceLimit: 0,
      gamespaceMaxMinutes: 0,
      gamespaceCleanupGraceMinutes: 0,
      role: 0,
      lastIdpAssignedRole: null,
      serviceAccountClientId: null,
      whenCreated: Date.now(),
      registrar: 0,
    };
    await db.insertInto('users').values(user).execute();
    expect(heard).toEqual(['users', 'users']);
    heard.length = 0;
    await db.selectFrom('users').selectAll().execute();
    expect(heard).toEqual([]);
    await db.updateTable('users as u').set({ name: 'Uno' }).where('u.id', '=', 'u1').execute();
    expect(heard).toEqual(['users', 'users']);
    heard.length = 0;
    await db.transaction().execute(async (tx) => {
      await tx.deleteFrom('users').where('id', '=', 'u1').execute();
    });
    expect(heard).toEqual(['users', 'users']);
    stop();
    heard.length = 0;
    await db.insertInto('users').values(user).execute();
    expect(heard).toEqual([]);
  });

  it('tells the tables written in a WITH clause too', async () => {
    store = await openStore({ url: ':memory:' });
    // PostgreSQL stores a launch's gamespace and players in one such statement.
    const node = store.db
      .with('g', (q) => q.insertInto('gamespaces').values({ id: 'g1' } as never))
      .insertInto('players')
      .values({ gamespaceId: 'g1', subjectId: 'p1' } as never)
      .toOperationNode();
    expect(writtenTables(node)).toEqual(['gamespaces', 'players']);
  });
});
