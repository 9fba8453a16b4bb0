import type { Kysely } from 'kysely';

// Warm pools (server/core/pools): per workspace, how many gamespaces' machine sets an
// administrator wants kept deployed ahead of launches, the sets themselves, and scheduled
// launches that raise a pool's target for a while.
//
// A pooled set's row is its lifecycle (server/core/pools/pooledSet.ts): warming while its
// machines deploy, ready once they all exist, claimed by one launch, failed or drained. Every
// change of state is one conditional UPDATE on the state it leaves, so that of several server
// processes sharing the database exactly one makes it; above all a claim, which must never hand
// one set to two launches. `id` is the isolation tag the set's machines are deployed under.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('pools')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.primaryKey())
    // 0: no pool.
    .addColumn('size', 'integer', (c) => c.notNull().defaultTo(0))
    // Launches that found no ready set, since the pool was first set.
    .addColumn('misses', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('updated', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema
    .createTable('pool_sets')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('variant', 'integer', (c) => c.notNull().defaultTo(0))
    // What its machines were made from (the workspace's templates of the variant): a set made
    // from templates since changed is never claimed, and is drained.
    .addColumn('fingerprint', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('warming'))
    .addColumn('created', 'bigint', (c) => c.notNull().defaultTo(0))
    // When it last changed state: a set warming or drained for too long is stale.
    .addColumn('changed', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('claimed_at', 'bigint', (c) => c.notNull().defaultTo(0))
    // The gamespace that claimed it, '' until then.
    .addColumn('claimed_by', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .execute();
  // A claim looks for the oldest ready set of a workspace and variant.
  await db.schema
    .createIndex('pool_sets_claim')
    .on('pool_sets')
    .columns(['workspace_id', 'state', 'variant', 'created'])
    .execute();

  await db.schema
    .createTable('pool_schedules')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('count', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema
    .createIndex('pool_schedules_workspace')
    .on('pool_schedules')
    .columns(['workspace_id', 'at'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('pool_schedules').ifExists().execute();
  await db.schema.dropTable('pool_sets').ifExists().execute();
  await db.schema.dropTable('pools').ifExists().execute();
}
