import type { Kysely } from 'kysely';

// Who may register other people for a game (POST /api/gamespace with `players[]` naming someone
// else): administrators, and accounts an administrator allowed to, such as the service accounts
// whose API keys Gameboard and the Moodle plugin use. Everyone else registers only themselves.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .alterTable('users')
    .addColumn('registrar', 'integer', (col) => col.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.alterTable('users').dropColumn('registrar').execute();
}
