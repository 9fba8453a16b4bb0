import type { Kysely } from 'kysely';

// The co-editing log of workspace documents. Each row is one Yjs update (format v1, base64) of
// the document's Y.Doc; the document is the merge of all its rows, in any order, so several
// server processes may append at once without coordinating. The markdown file stays the saved
// copy that players and the workspace list read; this log is what editors converge on.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('document_updates')
    // A random id, or `seed:{workspaceId}` for the row built from the markdown file: inserting
    // that row when it exists already does nothing, so only one seed wins a race.
    .addColumn('id', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('update', 'text', (c) => c.notNull())
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('document_updates_workspace')
    .on('document_updates')
    .column('workspace_id')
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('document_updates').ifExists().execute();
}
