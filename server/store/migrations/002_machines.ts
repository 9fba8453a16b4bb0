import type { Kysely } from 'kysely';

// The sim hypervisor's machines and copied disks (wire reference §2.5, §4.11). They live in the
// database rather than in memory so that a restart loses no machine and no task, and so that
// several server processes sharing the database see the same machines.
//
// A machine's running task is four columns (id, name, start, duration) plus the power state it
// leaves behind: progress is computed from the clock when read, and finishing the task is one
// conditional UPDATE on its id, which only one process can win. `task_id` '' means no task.

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await db.schema
    .createTable('vms')
    .addColumn('id', 'varchar(32)', (c) => c.primaryKey())
    .addColumn('name', 'varchar(255)', (c) => c.notNull().unique())
    .addColumn('tag', 'varchar(64)', (c) => c.notNull().defaultTo(''))
    .addColumn('status', 'varchar(16)', (c) => c.notNull().defaultTo('deployed'))
    .addColumn('state', 'varchar(16)', (c) => c.notNull().defaultTo('off'))
    .addColumn('disk_path', 'text', (c) => c.notNull().defaultTo(''))
    // JSON: the net of each NIC in order ('' = disconnected).
    .addColumn('nics', 'text', (c) => c.notNull().defaultTo('[]'))
    .addColumn('iso', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('boot_delay', 'integer', (c) => c.notNull().defaultTo(0))
    // `key=value` lines.
    .addColumn('guest_settings', 'text', (c) => c.notNull().defaultTo(''))
    // JSON VmQuestion, '' when there is none.
    .addColumn('question', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('task_id', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('task_name', 'varchar(32)', (c) => c.notNull().defaultTo(''))
    .addColumn('task_started', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('task_duration', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('task_outcome', 'varchar(16)', (c) => c.notNull().defaultTo(''))
    .addColumn('when_created', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('vms_tag').on('vms').column('tag').execute();
  await db.schema.createIndex('vms_task').on('vms').column('task_id').execute();

  await db.schema
    .createTable('vm_disks')
    .addColumn('path', 'varchar(512)', (c) => c.primaryKey())
    .addColumn('started', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('duration', 'bigint', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Db): Promise<void> {
  await db.schema.dropTable('vm_disks').ifExists().execute();
  await db.schema.dropTable('vms').ifExists().execute();
}
