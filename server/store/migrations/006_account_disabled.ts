import type { Kysely } from 'kysely';

// An administrator may disable a local account of the embedded identity provider: it can no
// longer sign in, its refresh tokens stop working (the provider no longer finds it), and the
// tokens, tickets and cookies it already holds are refused from then on (the authenticator reads
// the flag with the user's row).

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
