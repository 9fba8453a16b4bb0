import { sql, type Kysely } from 'kysely';

// Help requests (server/core/helpRequests.ts): a player of a running gamespace raises a hand with
// a short message; observers of its workspace claim and answer it. A request is open until it is
// answered or cancelled; at most one of a gamespace's is open at a time, which the partial unique
// index holds even when two raises race. Optional text fields are '' and times 0 when absent.
// Rows go with their gamespace.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('help_requests')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('gamespace_id', 'varchar(64)', (c) => c.notNull())
    // The gamespace's workspace, kept on the row: the observers' queue is read per workspace.
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('gamespace_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('player_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('player_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('message', 'text', (c) => c.notNull())
    // 'open', 'answered' or 'cancelled'.
    .addColumn('status', 'varchar(16)', (c) => c.notNull())
    .addColumn('raised_at', 'bigint', (c) => c.notNull())
    .addColumn('claimed_by_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('claimed_by_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('claimed_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('answer', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('answered_by_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('answered_by_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('closed_at', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  // The queue of a workspace and of everyone's, open ones first, oldest first.
  await db.schema
    .createIndex('help_requests_workspace')
    .on('help_requests')
    .columns(['workspace_id', 'status', 'raised_at'])
    .execute();
  // A gamespace's requests, and the delete with the gamespace.
  await db.schema
    .createIndex('help_requests_gamespace')
    .on('help_requests')
    .columns(['gamespace_id', 'raised_at'])
    .execute();
  // One open request per gamespace.
  await db.schema
    .createIndex('help_requests_one_open')
    .on('help_requests')
    .column('gamespace_id')
    .unique()
    .where(sql<boolean>`status = 'open'`)
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('help_requests').ifExists().execute();
}
