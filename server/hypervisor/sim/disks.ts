import type { VmDisk, VmTemplate } from '../../core/templates';
import type { Db } from '../../store/db';
import { progressOf } from './tasks';

// Template disks (wire reference §4.11 CreateDisks/VerifyDisks/DeleteDisks). A base disk (no
// Source) and a blank disk exist already; any other disk is a copy of its Source, present only
// once createDisks has copied it. A copy is a `vm_disks` row: its progress comes from the clock.

export const MISSING = -1;

export interface DiskState {
  /** -1 missing, 0..99 copying, 100 present. */
  progress: number;
  /** When the copy started (0 when there is no copy). */
  started: number;
}

const pathOf = (disk: VmDisk): string => disk.Path ?? '';

/** A disk that needs no copy. */
export const isBuiltIn = (disk: VmDisk): boolean => !disk.Source || pathOf(disk).includes('blank-');

export async function diskStates(db: Db, template: VmTemplate, now: number): Promise<DiskState[]> {
  const copied = template.Disks.filter((d) => !isBuiltIn(d)).map(pathOf);
  const rows = copied.length
    ? await db.selectFrom('vmDisks').selectAll().where('path', 'in', copied).execute()
    : [];
  const byPath = new Map(rows.map((r) => [r.path, r]));
  return template.Disks.map((disk) => {
    if (isBuiltIn(disk)) return { progress: 100, started: 0 };
    const row = byPath.get(pathOf(disk));
    if (!row) return { progress: MISSING, started: 0 };
    return { progress: progressOf(row.started, row.duration, now), started: row.started };
  });
}

/**
 * Starts copying every missing disk; the copies run one after another, each `perDisk` long. A
 * copy another process started at the same time is kept (the path is the key). Returns how many
 * copies it started.
 */
export async function startCopies(
  db: Db,
  template: VmTemplate,
  perDisk: number,
  now: number,
): Promise<number> {
  const states = await diskStates(db, template, now);
  const missing = template.Disks.filter((_, i) => states[i]?.progress === MISSING).map(pathOf);
  const rows = [...new Set(missing)].map((path, i) => ({
    path,
    started: now + i * perDisk,
    duration: perDisk,
  }));
  if (!rows.length) return 0;
  await db
    .insertInto('vmDisks')
    .values(rows)
    .onConflict((oc) => oc.column('path').doNothing())
    .execute();
  return rows.length;
}

/**
 * Removes the template's copied disks. Only paths containing its isolation tag are its own:
 * a linked template's disks are the stock template's and stay.
 */
export async function removeCopies(db: Db, template: VmTemplate): Promise<void> {
  const tag = template.IsolationTag;
  if (!tag) return;
  const own = template.Disks.map(pathOf).filter((p) => p.includes(tag));
  if (!own.length) return;
  await db.deleteFrom('vmDisks').where('path', 'in', own).execute();
}
