import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { openStore, type Store } from '../store/db';
import { KyselyAdapter, removeExpiredPayloads } from './adapter';

describe.each(testEngines())('oidc-provider storage on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
  });
  afterAll(async () => {
    vi.useRealTimers();
    await store?.close();
    await database?.cleanup();
  });

  it('stores, replaces and finds a payload by id, uid and user code', async () => {
    const sessions = new KyselyAdapter(store.db, 'Session');
    await sessions.upsert('s1', { uid: 'u1', accountId: 'a' }, 60);
    await sessions.upsert('s1', { uid: 'u1', accountId: 'b' }, 60);
    expect(await sessions.find('s1')).toEqual({ uid: 'u1', accountId: 'b' });
    expect(await sessions.findByUid('u1')).toEqual({ uid: 'u1', accountId: 'b' });
    const devices = new KyselyAdapter(store.db, 'DeviceCode');
    await devices.upsert('d1', { userCode: 'ABCD-EFGH' });
    expect(await devices.findByUserCode('ABCD-EFGH')).toEqual({ userCode: 'ABCD-EFGH' });
  });

  it('keeps models apart under the same id', async () => {
    await new KyselyAdapter(store.db, 'AccessToken').upsert('same', { kind: 'AccessToken' }, 60);
    await new KyselyAdapter(store.db, 'RefreshToken').upsert('same', { kind: 'RefreshToken' }, 60);
    expect(await new KyselyAdapter(store.db, 'AccessToken').find('same')).toEqual({
      kind: 'AccessToken',
    });
    await new KyselyAdapter(store.db, 'AccessToken').destroy('same');
    expect(await new KyselyAdapter(store.db, 'AccessToken').find('same')).toBeUndefined();
    expect(await new KyselyAdapter(store.db, 'RefreshToken').find('same')).toBeDefined();
  });

  it('marks a payload consumed', async () => {
    const codes = new KyselyAdapter(store.db, 'AuthorizationCode');
    await codes.upsert('c1', { grantId: 'g0' }, 60);
    await codes.consume('c1');
    expect((await codes.find('c1'))?.consumed).toEqual(expect.any(Number));
  });

  it('revokes everything of one grant, and only that', async () => {
    const tokens = new KyselyAdapter(store.db, 'RefreshToken');
    await tokens.upsert('r1', { grantId: 'g1' }, 60);
    await tokens.upsert('r2', { grantId: 'g1' }, 60);
    await tokens.upsert('r3', { grantId: 'g2' }, 60);
    await tokens.revokeByGrantId('g1');
    expect(await tokens.find('r1')).toBeUndefined();
    expect(await tokens.find('r2')).toBeUndefined();
    expect(await tokens.find('r3')).toEqual({ grantId: 'g2' });
  });

  it('keeps at most maxRows of its model, dropping those that expire first', async () => {
    const capped = new KyselyAdapter(store.db, 'CappedModel', { maxRows: 20 });
    const other = new KyselyAdapter(store.db, 'OtherModel');
    // It expires before every capped row, but not while the 200 writes run (under load they
    // took over a second, when this lived 1 s).
    await other.upsert('kept', { uid: 'kept' }, 30);
    for (let i = 0; i < 200; i++) await capped.upsert(`c${i}`, { uid: `c${i}` }, 60 + i);
    const rows = await store.db
      .selectFrom('identityPayloads')
      .select('id')
      .where('model', '=', 'CappedModel')
      .execute();
    // A trim runs every maxRows / 10 writes: never more than that many over.
    expect(rows.length).toBeGreaterThanOrEqual(20);
    expect(rows.length).toBeLessThanOrEqual(22);
    expect(await capped.find('c199')).toEqual({ uid: 'c199' });
    expect(await capped.find('c0')).toBeUndefined();
    expect(await other.find('kept')).toEqual({ uid: 'kept' });
  });

  it('no longer finds an expired payload, and sweeps it away', async () => {
    const interactions = new KyselyAdapter(store.db, 'Interaction');
    await interactions.upsert('i1', { uid: 'i1' }, 1);
    await interactions.upsert('i2', { uid: 'i2' });
    expect(await interactions.find('i1')).toBeDefined();
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 2_000 });
    expect(await interactions.find('i1')).toBeUndefined();
    expect(await interactions.findByUid('i1')).toBeUndefined();
    expect(await removeExpiredPayloads(store.db)).toBeGreaterThanOrEqual(1);
    vi.useRealTimers();
    expect(await interactions.find('i2')).toEqual({ uid: 'i2' });
  });
});
