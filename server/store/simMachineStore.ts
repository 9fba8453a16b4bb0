import { sql } from 'kysely';
import type { SimDiskCopy, SimMachineRow, SimMachineStore } from '../hypervisor/sim/port';
import { NO_TASK } from '../hypervisor/sim/port';
import { createBatcher } from './batch';
import { onPostgres, type Db } from './db';
import { preparedRead } from './prepared';

// The sim driver's machines and disk copies in the `vms` and `vm_disks` tables, on SQLite and
// PostgreSQL alike: the store side of the port the driver declares (hypervisor/sim/port.ts).

const likeEscape = (term: string): string => term.replace(/[!%_]/g, (c) => `!${c}`);

const byName = (a: SimMachineRow, b: SimMachineRow) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** Read on every game state built of an active gamespace. */
const ofTag = preparedRead((db: Db, tag: string) =>
  db.selectFrom('vms').selectAll().where('tag', '=', tag),
);

/** Inserts machines unless one of the name exists: the names it added. */
async function insertNew(db: Db, rows: readonly SimMachineRow[]): Promise<Set<string>> {
  const added = await db
    .insertInto('vms')
    .values([...rows])
    .onConflict((oc) => oc.column('name').doNothing())
    .returning('name')
    .execute();
  return new Set(added.map((r) => r.name));
}

/**
 * The deploy batches that arrive together, in one statement on PostgreSQL (batch.ts), each told
 * the names it added. Two batches naming one machine cannot both be told: then each runs alone.
 */
function createInserts(db: Db) {
  return createBatcher<readonly SimMachineRow[], Set<string>>(
    async (batches) => {
      const owner = new Map<string, number>();
      batches.forEach((rows, i) => {
        for (const { name } of rows) {
          if ((owner.get(name) ?? i) !== i) throw new Error(`machine ${name} twice in a batch`);
          owner.set(name, i);
        }
      });
      const added = await insertNew(db, batches.flat());
      return batches.map((rows) => ({
        value: new Set(rows.filter((r) => added.has(r.name)).map((r) => r.name)),
      }));
    },
    (rows) => insertNew(db, rows),
  );
}

export function createSimMachineStore(db: Db): SimMachineStore {
  const inserts = onPostgres(db)
    ? createInserts(db)
    : (rows: readonly SimMachineRow[]) => insertNew(db, rows);
  return {
    byIdOrName: (id) =>
      db
        .selectFrom('vms')
        .selectAll()
        .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', id)]))
        .executeTakeFirst(),

    byId: (id) => db.selectFrom('vms').selectAll().where('id', '=', id).executeTakeFirst(),

    byName: (name) => db.selectFrom('vms').selectAll().where('name', '=', name).executeTakeFirst(),

    ofTag: (tag) => ofTag(db, tag),

    withTask: () => db.selectFrom('vms').selectAll().where('taskId', '!=', '').execute(),

    // LIKE narrows the rows on both engines but ignores case on SQLite, so the exact match is
    // made here.
    async matching(term) {
      const pattern = `%${likeEscape(term)}%`;
      const rows = await db
        .selectFrom('vms')
        .selectAll()
        .where((eb) =>
          eb.or([
            sql<boolean>`${eb.ref('id')} like ${pattern} escape '!'`,
            sql<boolean>`${eb.ref('name')} like ${pattern} escape '!'`,
          ]),
        )
        .execute();
      return rows.filter((r) => r.id.includes(term) || r.name.includes(term)).sort(byName);
    },

    async countRunning() {
      const row = await db
        .selectFrom('vms')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('state', '=', 'running')
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    async probe() {
      await db.selectFrom('vms').select('id').limit(1).execute();
    },

    // One statement for a whole deploy batch, and on PostgreSQL for the batches arriving
    // together: each statement outside a transaction is a commit, and its wait for the WAL flush.
    async insert(rows) {
      if (!rows.length) return new Set();
      return inserts(rows);
    },

    async update(id, patch) {
      await db.updateTable('vms').set(patch).where('id', '=', id).execute();
    },

    async remove(id) {
      await db.deleteFrom('vms').where('id', '=', id).execute();
    },

    finishTask: (id, taskId) =>
      db
        .updateTable('vms')
        .set((eb) => ({ ...NO_TASK, state: eb.ref('taskOutcome') }))
        .where('id', '=', id)
        .where('taskId', '=', taskId)
        .returningAll()
        .executeTakeFirst(),

    async diskCopies(paths) {
      if (!paths.length) return [];
      return db
        .selectFrom('vmDisks')
        .selectAll()
        .where('path', 'in', [...paths])
        .execute();
    },

    async addDiskCopies(copies: readonly SimDiskCopy[]) {
      if (!copies.length) return;
      await db
        .insertInto('vmDisks')
        .values([...copies])
        .onConflict((oc) => oc.column('path').doNothing())
        .execute();
    },

    async removeDiskCopies(paths) {
      if (!paths.length) return;
      await db
        .deleteFrom('vmDisks')
        .where('path', 'in', [...paths])
        .execute();
    },
  };
}
