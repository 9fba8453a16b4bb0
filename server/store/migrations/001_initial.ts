import { sql, type Kysely } from 'kysely';

// The data model of the reference system (wire reference §6), plus the embedded identity
// provider's tables and a key/value table for server secrets. Times are bigint milliseconds.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('users')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('scope', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('workspace_limit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('gamespace_limit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('gamespace_max_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('gamespace_cleanup_grace_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('role', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_idp_assigned_role', 'integer')
    .addColumn('service_account_client_id', 'varchar(128)', (c) => c.unique())
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('user_id', 'varchar(64)', (c) =>
      c.notNull().references('users.id').onDelete('cascade'),
    )
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('api_keys_hash').on('api_keys').column('hash').execute();

  await db.schema
    .createTable('workspaces')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('tags', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('author', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('audience', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('share_code', 'varchar(40)', (c) => c.notNull().defaultTo(''))
    .addColumn('template_scope', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('is_published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('template_limit', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('host_affinity', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('use_uplink_switch', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('duration_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('launch_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_activity', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('challenge', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('workspaces_share_code')
    .on('workspaces')
    .column('share_code')
    .execute();

  await db.schema
    .createTable('templates')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('description', 'varchar(255)', (c) => c.notNull().defaultTo(''))
    .addColumn('audience', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('iso', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('networks', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('guestinfo', 'varchar(1024)', (c) => c.notNull().defaultTo(''))
    .addColumn('is_hidden', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_published', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('is_linked', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('detail', 'text')
    .addColumn('parent_id', 'varchar(36)', (c) => c.references('templates.id').onDelete('set null'))
    .addColumn('replicas', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('variant', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('workspace_id', 'varchar(36)', (c) =>
      c.references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('templates_workspace')
    .on('templates')
    .column('workspace_id')
    .execute();
  await db.schema.createIndex('templates_parent').on('templates').column('parent_id').execute();

  await db.schema
    .createTable('gamespaces')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('manager_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('manager_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('grader_key', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('start_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('end_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('expiration_time', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('cleanup_grace_minutes', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('cleaned', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('allow_reset', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('challenge', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('workspace_id', 'varchar(36)', (c) =>
      c.references('workspaces.id').onDelete('set null'),
    )
    .addColumn('variant', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('player_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('gamespaces_grader_key')
    .on('gamespaces')
    .column('grader_key')
    .execute();
  await db.schema
    .createIndex('gamespaces_workspace')
    .on('gamespaces')
    .column('workspace_id')
    .execute();

  await db.schema
    .createTable('workers')
    .addColumn('subject_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('workspace_id', 'varchar(36)', (c) =>
      c.notNull().references('workspaces.id').onDelete('cascade'),
    )
    .addColumn('subject_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('permission', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('workers_pk', ['subject_id', 'workspace_id'])
    .execute();

  await db.schema
    .createTable('players')
    .addColumn('subject_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('gamespace_id', 'varchar(36)', (c) =>
      c.notNull().references('gamespaces.id').onDelete('cascade'),
    )
    .addColumn('subject_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('permission', 'integer', (c) => c.notNull().defaultTo(0))
    .addPrimaryKeyConstraint('players_pk', ['subject_id', 'gamespace_id'])
    .execute();

  await db.schema
    .createTable('dispatches')
    .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
    .addColumn('reference_id', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('trigger', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('target_group', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('target_name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('result', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('error', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('when_updated', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('dispatches_target_group')
    .on('dispatches')
    .column('target_group')
    .execute();

  for (const table of ['workspace_favorites', 'gamespace_favorites', 'template_favorites']) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'varchar(36)', (c) => c.primaryKey())
      .addColumn('user_id', 'varchar(64)', (c) => c.notNull())
      .addColumn('target_id', 'varchar(36)', (c) => c.notNull())
      .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
      .addUniqueConstraint(`${table}_unique`, ['user_id', 'target_id'])
      .execute();
  }

  await db.schema
    .createTable('identity_accounts')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('username', 'varchar(64)', (c) => c.notNull().unique())
    .addColumn('name', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('password_hash', 'text', (c) => c.notNull())
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('identity_payloads')
    .addColumn('id', 'varchar(255)', (c) => c.notNull())
    .addColumn('model', 'varchar(64)', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('grant_id', 'varchar(255)')
    .addColumn('user_code', 'varchar(255)')
    .addColumn('uid', 'varchar(255)')
    .addColumn('expires_at', 'bigint')
    .addPrimaryKeyConstraint('identity_payloads_pk', ['id', 'model'])
    .execute();
  await db.schema
    .createIndex('identity_payloads_grant')
    .on('identity_payloads')
    .column('grant_id')
    .execute();
  await db.schema
    .createIndex('identity_payloads_uid')
    .on('identity_payloads')
    .column('uid')
    .execute();

  await db.schema
    .createTable('key_values')
    .addColumn('key', 'varchar(128)', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .execute();

  await sql`select 1`.execute(db);
}

export async function down(db: Db): Promise<void> {
  for (const table of [
    'key_values',
    'identity_payloads',
    'identity_accounts',
    'template_favorites',
    'gamespace_favorites',
    'workspace_favorites',
    'dispatches',
    'players',
    'workers',
    'gamespaces',
    'templates',
    'workspaces',
    'api_keys',
    'users',
  ]) {
    await db.schema.dropTable(table).ifExists().execute();
  }
}
