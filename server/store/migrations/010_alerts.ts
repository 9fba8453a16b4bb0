import type { Kysely } from 'kysely';

// Answer-sharing alerts (server/core/answerAlerts.ts): a submission of another gamespace's
// generated answer, or of a canary answer. Rows are only added, and read per workspace (or all,
// for administrators) newest first. They outlive their gamespaces: an alert is a record of what
// happened in a class, and names both sides in text.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(36)', (c) => c.notNull())
    .addColumn('kind', 'varchar(16)', (c) => c.notNull())
    // The submitting gamespace, and the one whose answer it was (null for a canary).
    .addColumn('gamespace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('other_gamespace_id', 'varchar(64)')
    .addColumn('section_index', 'integer', (c) => c.notNull())
    .addColumn('section_name', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('question_index', 'integer', (c) => c.notNull())
    .addColumn('question_text', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('submitter_names', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('owner_names', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('answer', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // Reads are per workspace, newest first.
  await db.schema
    .createIndex('alerts_workspace')
    .on('alerts')
    .columns(['workspace_id', 'at', 'id'])
    .execute();
  await db.schema.createIndex('alerts_at').on('alerts').columns(['at', 'id']).execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('alerts').ifExists().execute();
}
