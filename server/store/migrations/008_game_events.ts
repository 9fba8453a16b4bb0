import type { Kysely } from 'kysely';

// A gamespace's event log (server/core/gameEvents.ts): deploys, console opens and closes, files
// put into machines, clipboard use, submissions with their score, extensions and the end. Rows
// are only ever added, read per gamespace in time order, and deleted with their gamespace.
// Optional text fields are '' when absent; `score` is null except on a submission.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('game_events')
    // Starts with the hex of `at` and a per-process counter, so that events of one process in
    // the same millisecond read back in the order they were recorded.
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('gamespace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('kind', 'varchar(32)', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('actor_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('machine_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('machine_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('detail', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('score', 'double precision')
    .execute();
  // Every read and the delete are by gamespace; reads in time order.
  await db.schema
    .createIndex('game_events_gamespace')
    .on('game_events')
    .columns(['gamespace_id', 'at', 'id'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('game_events').ifExists().execute();
}
