import { sql } from 'kysely';
import { isoDate } from '../../core/dto';
import type { Db } from '../../store/db';
import type { VmTable } from '../../store/schema';
import {
  untagged,
  type HypervisorType,
  type Vm,
  type VmOperationType,
  type VmPowerState,
  type VmQuestion,
  type VmStatus,
} from '../driver';
import { progressOf } from './tasks';

// The sim driver's access to its `vms` rows, and their Vm DTO (wire reference §2.5).

export type VmRow = VmTable;

/**
 * Simulated machines behave like the QEMU-based hypervisors they stand in for, which the
 * reference calls `proxmox`: machines without snapshots to go back to.
 */
export const HYPERVISOR_TYPE: HypervisorType = 'proxmox';
/**
 * What the SPA offers for a simulated machine. Revert is left out as for proxmox (the product
 * spec offers it on vSphere only), though the driver still carries out a revert that an API
 * client asks for, as the reference's mock hypervisor does.
 */
export const OPERATIONS: readonly VmOperationType[] = ['start', 'stop', 'save', 'delete', 'reset'];
export const HOST = 'sim';

/** A row by machine id or by `name#tag`. */
export async function rowByIdOrName(db: Db, id: string): Promise<VmRow | undefined> {
  return db
    .selectFrom('vms')
    .selectAll()
    .where((eb) => eb.or([eb('id', '=', id), eb('name', '=', id)]))
    .executeTakeFirst();
}

export async function rowById(db: Db, id: string): Promise<VmRow | undefined> {
  return db.selectFrom('vms').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function rowByName(db: Db, name: string): Promise<VmRow | undefined> {
  return db.selectFrom('vms').selectAll().where('name', '=', name).executeTakeFirst();
}

export async function rowsOfTag(db: Db, tag: string): Promise<VmRow[]> {
  return db.selectFrom('vms').selectAll().where('tag', '=', tag).execute();
}

export async function rowsWithTask(db: Db): Promise<VmRow[]> {
  return db.selectFrom('vms').selectAll().where('taskId', '!=', '').execute();
}

/** How many machines are running, every tag. */
export async function countRunning(db: Db): Promise<number> {
  const row = await db
    .selectFrom('vms')
    .select((eb) => eb.fn.countAll().as('count'))
    .where('state', '=', 'running')
    .executeTakeFirstOrThrow();
  return Number(row.count);
}

/** Resolves once the machines' table has answered a query (the cheapest there is). */
export async function probe(db: Db): Promise<void> {
  await db.selectFrom('vms').select('id').limit(1).execute();
}

const likeEscape = (term: string): string => term.replace(/[!%_]/g, (c) => `!${c}`);

/**
 * Rows whose id or name contains the term, case-sensitively and ordered by name. LIKE narrows
 * the rows on both engines but ignores case on SQLite, so the exact match is made here.
 */
export async function rowsMatching(db: Db, term: string): Promise<VmRow[]> {
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
  return rows
    .filter((r) => r.id.includes(term) || r.name.includes(term))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export async function insertRow(db: Db, row: VmRow): Promise<void> {
  await db.insertInto('vms').values(row).execute();
}

export async function updateRow(db: Db, id: string, patch: Partial<VmRow>): Promise<void> {
  await db.updateTable('vms').set(patch).where('id', '=', id).execute();
}

export async function deleteRow(db: Db, id: string): Promise<void> {
  await db.deleteFrom('vms').where('id', '=', id).execute();
}

export const NO_TASK = {
  taskId: '',
  taskName: '',
  taskStarted: 0,
  taskDuration: 0,
  taskOutcome: '',
} as const satisfies Partial<VmRow>;

/**
 * Ends a task by applying its outcome. Keyed on the task id, so of several processes (or a timer
 * and a read racing in one process) exactly one changes the row: that one gets the row as the
 * task left it (a read afterwards may already see the next operation), the others undefined.
 */
export async function finishTask(db: Db, id: string, taskId: string): Promise<VmRow | undefined> {
  return db
    .updateTable('vms')
    .set((eb) => ({ ...NO_TASK, state: eb.ref('taskOutcome') }))
    .where('id', '=', id)
    .where('taskId', '=', taskId)
    .returningAll()
    .executeTakeFirst();
}

export const nicsOf = (row: Pick<VmRow, 'nics'>): string[] => JSON.parse(row.nics) as string[];

function questionOf(row: VmRow): VmQuestion | null {
  return row.question ? (JSON.parse(row.question) as VmQuestion) : null;
}

export function toVm(row: VmRow, now: number): Vm {
  const status = row.status as VmStatus;
  const state = row.state as VmPowerState;
  return {
    id: row.id,
    name: row.name,
    host: HOST,
    path: `[sim] ${row.tag}/${untagged(row.name)}`,
    reference: '',
    diskPath: row.diskPath,
    stats: `${status} | ${state}`,
    status,
    groupName: '',
    tags: null,
    state,
    question: questionOf(row),
    task: row.taskId
      ? {
          id: row.taskId,
          name: row.taskName,
          progress: progressOf(row.taskStarted, row.taskDuration, now),
          whenCreated: isoDate(row.taskStarted),
        }
      : null,
    hypervisorType: HYPERVISOR_TYPE,
    isTemplate: false,
    operations: [...OPERATIONS],
    nics: nicsOf(row).map((network, index) => ({ index, network })),
  };
}
