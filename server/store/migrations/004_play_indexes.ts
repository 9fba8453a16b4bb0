import type { Kysely } from 'kysely';

// Indexes that play needs once there are many gamespaces: a gamespace's players (the primary key
// starts with the subject, so it does not serve a lookup by gamespace), and the gamespaces a
// user manages (every launch looks for the player's active one and counts the running ones).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema.createIndex('players_gamespace').on('players').column('gamespace_id').execute();
  await db.schema.createIndex('gamespaces_manager').on('gamespaces').column('manager_id').execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropIndex('gamespaces_manager').ifExists().execute();
  await db.schema.dropIndex('players_gamespace').ifExists().execute();
}
