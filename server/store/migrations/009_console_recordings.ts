import type { Kysely } from 'kysely';

// Console recordings (server/console/recordings.ts): one row per recorded console session, its
// stream a gzip file under the data folder (`file`, relative to the recordings folder), and each
// workspace's choice of recording its gamespaces' consoles (null: the server's default,
// RECORD_CONSOLES).

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema.alterTable('workspaces').addColumn('record_consoles', 'integer').execute();

  await db.schema
    .createTable('console_recordings')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('gamespace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('machine_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('machine_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('user_name', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    // 0 while the session is open.
    .addColumn('ended_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_ms', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('truncated', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('file', 'varchar(255)', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('console_recordings_gamespace')
    .on('console_recordings')
    .columns(['gamespace_id', 'started_at'])
    .execute();
  await db.schema
    .createIndex('console_recordings_started')
    .on('console_recordings')
    .columns(['started_at'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('console_recordings').ifExists().execute();
  await db.schema.alterTable('workspaces').dropColumn('record_consoles').execute();
}
