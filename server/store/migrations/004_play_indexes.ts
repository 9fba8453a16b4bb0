import type { Kysely } from 'kysely';

// Indexes the play page's reads need once there are many gamespaces: a gamespace's players
// (the primary key starts with the subject, so it does not serve a lookup by gamespace).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema.createIndex('players_gamespace').on('players').column('gamespace_id').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('players_gamespace').ifExists().execute();
}
