import type { Kysely } from 'kysely';

// An administrator may disable a local account of the embedded identity provider: it can no
// longer sign in, and its refresh tokens stop working (the provider no longer finds it).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('identityAccounts')
    .addColumn('disabled', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('identityAccounts').dropColumn('disabled').execute();
}
