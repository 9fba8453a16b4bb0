import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, testEngines, type TestDatabase } from '../../tests/server/databases';
import { openStore, type Store } from '../store/db';
import {
  AccountError,
  createAccount,
  generatePassword,
  hashPassword,
  setPassword,
  verifyCredentials,
} from './accounts';

// crypto.scrypt as it is, counting the derivations under way in libuv's pool.
const pool = vi.hoisted(() => ({ running: 0, most: 0 }));
vi.mock('node:crypto', async (importOriginal) => {
  const crypto = await importOriginal<typeof import('node:crypto')>();
  type Done = (error: Error | null, key: Buffer) => void;
  const scrypt = (...args: unknown[]) => {
    const done = args.pop() as Done;
    pool.most = Math.max(pool.most, ++pool.running);
    (crypto.scrypt as (...a: unknown[]) => void)(...args, (error: Error | null, key: Buffer) => {
      pool.running--;
      done(error, key);
    });
  };
  return { ...crypto, default: { ...crypto, scrypt }, scrypt };
});

describe('password hashing', () => {
  it('writes a self-describing scrypt hash with a random 16-byte salt', async () => {
    const hash = await hashPassword('s3cret!');
    const [scheme, n, r, p, salt, key] = hash.split('$');
    expect(scheme).toBe('scrypt');
    expect(Number(n)).toBeGreaterThanOrEqual(16_384);
    expect(Number(r)).toBeGreaterThan(0);
    expect(Number(p)).toBeGreaterThan(0);
    expect(Buffer.from(salt!, 'base64url')).toHaveLength(16);
    expect(Buffer.from(key!, 'base64url').length).toBeGreaterThanOrEqual(32);
    expect(hash).not.toContain('s3cret!');
  });

  it('salts every hash, so the same password never hashes the same twice', async () => {
    expect(await hashPassword('same')).not.toBe(await hashPassword('same'));
  });

  it('derives one key more at once than there are cores, leaving a pool thread free', async () => {
    // UV_THREADPOOL_SIZE is not set here: libuv's pool has its 4 threads.
    const bound = Math.max(1, Math.min(availableParallelism() + 1, 4 - 1));
    pool.most = 0;
    const hashes = await Promise.all(
      Array.from({ length: 2 * bound + 2 }, () => hashPassword('pw')),
    );
    expect(pool.most).toBe(bound);
    expect(pool.running).toBe(0);
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it('generates long URL-safe passwords that differ every time', () => {
    const passwords = new Set(Array.from({ length: 50 }, generatePassword));
    expect(passwords.size).toBe(50);
    for (const password of passwords) {
      expect(password.length).toBeGreaterThanOrEqual(20);
      expect(password).toMatch(/^[A-Za-z0-9_-]+$/);
    }
  });
});

describe.each(testEngines())('accounts on %s', (engine) => {
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

  it('verifies the right password and returns the account', async () => {
    const { id } = await createAccount(store.db, {
      username: 'carol',
      name: 'Carol C.',
      password: 'pässword 1',
    });
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    expect(await verifyCredentials(store.db, 'carol', 'pässword 1')).toEqual({
      id,
      name: 'Carol C.',
      username: 'carol',
    });
  });

  it('refuses a wrong password, an unknown username and an empty password', async () => {
    await createAccount(store.db, { username: 'dave', name: 'Dave', password: 'right' });
    expect(await verifyCredentials(store.db, 'dave', 'wrong')).toBeNull();
    expect(await verifyCredentials(store.db, 'dave', '')).toBeNull();
    expect(await verifyCredentials(store.db, 'nobody', 'right')).toBeNull();
  });

  it('treats usernames without regard to case or surrounding spaces', async () => {
    await createAccount(store.db, { username: '  Erin ', name: 'Erin', password: 'pw' });
    expect((await verifyCredentials(store.db, 'ERIN', 'pw'))?.username).toBe('erin');
  });

  it('keeps the given subject id', async () => {
    const id = 'a'.repeat(32);
    expect(
      await createAccount(store.db, { id, username: 'frank', name: 'F', password: 'pw' }),
    ).toEqual({ id });
    expect((await verifyCredentials(store.db, 'frank', 'pw'))?.id).toBe(id);
  });

  it('refuses a second account with the same username', async () => {
    await createAccount(store.db, { username: 'grace', name: 'Grace', password: 'pw' });
    await expect(
      createAccount(store.db, { username: 'Grace', name: 'Other', password: 'pw2' }),
    ).rejects.toThrow(new AccountError('AccountExists'));
  });

  it('changes a password: the new one works and the old one no longer does', async () => {
    await createAccount(store.db, { username: 'heidi', name: 'Heidi', password: 'old' });
    await setPassword(store.db, 'heidi', 'new');
    expect(await verifyCredentials(store.db, 'heidi', 'old')).toBeNull();
    expect((await verifyCredentials(store.db, 'heidi', 'new'))?.username).toBe('heidi');
    await expect(setPassword(store.db, 'nobody', 'x')).rejects.toThrow('AccountNotFound');
  });

  it('never matches a stored hash it cannot read', async () => {
    await store.db
      .insertInto('identityAccounts')
      .values({
        id: 'b'.repeat(32),
        username: 'ivan',
        name: 'Ivan',
        passwordHash: 'md5$abc',
        whenCreated: 0,
      })
      .execute();
    expect(await verifyCredentials(store.db, 'ivan', 'abc')).toBeNull();
  });
});
