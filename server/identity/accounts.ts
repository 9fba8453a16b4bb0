import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { availableParallelism } from 'node:os';
import type { Kysely } from 'kysely';
import { AccountError, type AccountDirectory } from '../core/accountDirectory';
import { isUniqueViolation } from '../store/db';
import type { Database } from '../store/schema';

// Local accounts of the embedded identity provider. `id` is the subject (`sub`) of every token
// the provider issues, so it never changes; usernames are what people type and are stored
// trimmed and lower-cased so that 'Alice' and 'alice ' are the same account.

/** scrypt cost: N = 2^15 with r = 8 needs 32 MiB and takes tens of milliseconds. */
const SCRYPT_N = 32_768;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

export interface Account {
  id: string;
  name: string;
  username: string;
}

// Refusals are the domain's AccountError (server/core/accountDirectory.ts), re-exported here.
export { AccountError };

/** libuv's thread pool, which runs every crypto.scrypt: UV_THREADPOOL_SIZE, 4 by default. */
function threadPoolSize(): number {
  const size = Number(process.env.UV_THREADPOOL_SIZE);
  return Number.isInteger(size) && size > 0 ? size : 4;
}

/**
 * Derivations run at once; the others wait their turn here, first come first served. Each one
 * holds 32 MiB and a pool thread for its whole run, and more of them than there are cores only
 * share the cores: unbounded, a crowd signing in would take every pool thread, and the token
 * endpoint's signatures (WebCrypto runs in the same pool) would wait behind whole derivations.
 * One more than the cores keeps them all busy while the event loop hands the next turn out.
 */
const MAX_DERIVATIONS = Math.max(1, Math.min(availableParallelism() + 1, threadPoolSize() - 1));
let derivations = 0;
const turns: Array<() => void> = [];

async function derive(
  password: string,
  salt: Buffer,
  n: number,
  r: number,
  p: number,
  length: number,
): Promise<Buffer> {
  if (derivations < MAX_DERIVATIONS) derivations++;
  else await new Promise<void>((resolve) => turns.push(resolve));
  try {
    // maxmem must exceed 128 * N * r, or Node refuses the parameters above.
    const options: ScryptOptions = { N: n, r, p, maxmem: 256 * n * r + 1024 * 1024 };
    return await new Promise<Buffer>((resolve, reject) => {
      scrypt(password.normalize('NFC'), salt, length, options, (error, key) =>
        error ? reject(error) : resolve(key),
      );
    });
  } finally {
    // The turn passes to the next waiting derivation, or the slot is freed.
    const next = turns.shift();
    if (next) next();
    else derivations--;
  }
}

/** Hashes a password as `scrypt$N$r$p$salt$hash` (salt and hash in base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const hash = await derive(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_LENGTH);
  return [
    'scrypt',
    SCRYPT_N,
    SCRYPT_R,
    SCRYPT_P,
    salt.toString('base64url'),
    hash.toString('base64url'),
  ].join('$');
}

/** Compares a password with a stored hash in constant time; a malformed hash never matches. */
async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const params = [Number(n), Number(r), Number(p)] as const;
  if (!params.every((v) => Number.isSafeInteger(v) && v > 0) || expected.length === 0) return false;
  const actual = await derive(password, Buffer.from(salt, 'base64url'), ...params, expected.length);
  return timingSafeEqual(actual, expected);
}

// Hashed once, lazily: verifying an unknown username costs as much as a wrong password, so the
// response time does not reveal which usernames exist.
let decoyHash: Promise<string> | undefined;

/** A random password of 24 URL-safe characters, for seeding the first account. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

function normalizeUsername(username: string): string {
  return username.trim().toLowerCase();
}

export async function createAccount(
  db: Kysely<Database>,
  input: {
    username: string;
    name: string;
    password: string;
    id?: string;
    /** hashPassword(password), made already: accounts made together with one password. */
    passwordHash?: string;
  },
): Promise<{ id: string }> {
  const username = normalizeUsername(input.username);
  const id = input.id ?? randomBytes(16).toString('hex');
  if (!username || !input.password || !id) throw new AccountError('InvalidAccount');
  const passwordHash = input.passwordHash ?? (await hashPassword(input.password));
  try {
    await db
      .insertInto('identityAccounts')
      .values({
        id,
        username,
        name: input.name.trim() || username,
        passwordHash,
        whenCreated: Date.now(),
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw new AccountError('AccountExists');
    throw error;
  }
  return { id };
}

export async function setPassword(
  db: Kysely<Database>,
  username: string,
  password: string,
): Promise<void> {
  if (!password) throw new AccountError('InvalidAccount');
  const passwordHash = await hashPassword(password);
  const result = await db
    .updateTable('identityAccounts')
    .set({ passwordHash })
    .where('username', '=', normalizeUsername(username))
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new AccountError('AccountNotFound');
}

export async function verifyCredentials(
  db: Kysely<Database>,
  username: string,
  password: string,
): Promise<Account | null> {
  const row = await db
    .selectFrom('identityAccounts')
    .select(['id', 'name', 'username', 'passwordHash', 'disabled'])
    .where('username', '=', normalizeUsername(username))
    .executeTakeFirst();
  if (!row) {
    decoyHash ??= hashPassword(generatePassword());
    await passwordMatches(password, await decoyHash);
    return null;
  }
  // A disabled account is checked like any other, so the time taken tells nothing either.
  if (!(await passwordMatches(password, row.passwordHash)) || row.disabled) return null;
  return { id: row.id, name: row.name, username: row.username };
}

/** An enabled account by its subject: the provider's view (tokens, refresh, userinfo). */
export async function findAccount(db: Kysely<Database>, id: string): Promise<Account | undefined> {
  return db
    .selectFrom('identityAccounts')
    .select(['id', 'name', 'username'])
    .where('id', '=', id)
    .where('disabled', '=', 0)
    .executeTakeFirst();
}

/** What an administrator sees of a user's local account; `username` null when it has none. */
export async function accountStatus(
  db: Kysely<Database>,
  id: string,
): Promise<{ username: string | null; disabled: boolean }> {
  const row = await db
    .selectFrom('identityAccounts')
    .select(['username', 'disabled'])
    .where('id', '=', id)
    .executeTakeFirst();
  return { username: row?.username ?? null, disabled: !!row?.disabled };
}

/** Sets the password of the account `id` (its subject, not its username). */
export async function setPasswordById(
  db: Kysely<Database>,
  id: string,
  password: string,
): Promise<void> {
  if (!password) throw new AccountError('InvalidAccount');
  const passwordHash = await hashPassword(password);
  const result = await db
    .updateTable('identityAccounts')
    .set({ passwordHash })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new AccountError('AccountNotFound');
}

export async function setDisabled(
  db: Kysely<Database>,
  id: string,
  disabled: boolean,
): Promise<void> {
  const result = await db
    .updateTable('identityAccounts')
    .set({ disabled: disabled ? 1 : 0 })
    .where('id', '=', id)
    .executeTakeFirst();
  if (Number(result.numUpdatedRows) === 0) throw new AccountError('AccountNotFound');
}

/** The local accounts as the domain reaches them (server/core/accountDirectory.ts). */
export function accountDirectory(db: Kysely<Database>): AccountDirectory {
  return {
    status: (id) => accountStatus(db, id),
    verify: (username, password) => verifyCredentials(db, username, password),
    create: async (account) => {
      await createAccount(db, account);
    },
    setPassword: (id, password) => setPasswordById(db, id, password),
    setDisabled: (id, disabled) => setDisabled(db, id, disabled),
  };
}
