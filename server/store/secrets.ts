import { randomBytes } from 'node:crypto';
import type { Db } from './db';

/**
 * A secret stored once in the database and shared by every server process: the first process
 * to need it creates it; a concurrent creator loses the insert race and reads the winner's value.
 */
export async function sharedSecret(
  db: Db,
  key: string,
  create = () => randomBytes(32).toString('base64'),
): Promise<string> {
  const existing = await db
    .selectFrom('keyValues')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirst();
  if (existing) return existing.value;
  await db
    .insertInto('keyValues')
    .values({ key, value: create() })
    .onConflict((oc) => oc.column('key').doNothing())
    .execute();
  const row = await db
    .selectFrom('keyValues')
    .select('value')
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
  return row.value;
}
