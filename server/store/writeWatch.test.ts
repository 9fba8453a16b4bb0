import { afterEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from './db';

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
});
