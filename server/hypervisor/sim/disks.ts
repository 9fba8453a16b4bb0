import type { DiskSpec, MachineSpec } from '../types';
import type { SimMachineStore } from './port';
import { progressOf } from './tasks';

// Template disks (wire reference §4.11 CreateDisks/VerifyDisks/DeleteDisks). A base disk (no
// source) and a blank disk exist already; any other disk is a copy of its source, present only
// once createDisks has copied it. A copy is kept through the port: its progress comes from the
// clock.

export const MISSING = -1;

export interface DiskState {
  /** -1 missing, 0..99 copying, 100 present. */
  progress: number;
  /** When the copy started (0 when there is no copy). */
  started: number;
}

/** A disk that needs no copy. */
export const isBuiltIn = (disk: DiskSpec): boolean => !disk.source || disk.path.includes('blank-');

export async function diskStates(
  store: SimMachineStore,
  spec: MachineSpec,
  now: number,
): Promise<DiskState[]> {
  return (await diskStatesOf(store, [spec], now))[0]!;
}

/** The disks of several specs, each spec's in order, from one read of the copies. */
export async function diskStatesOf(
  store: SimMachineStore,
  specs: readonly MachineSpec[],
  now: number,
): Promise<DiskState[][]> {
  const copied = specs.flatMap((spec) =>
    spec.disks.filter((d) => !isBuiltIn(d)).map((d) => d.path),
  );
  const rows = await store.diskCopies([...new Set(copied)]);
  const byPath = new Map(rows.map((r) => [r.path, r]));
  return specs.map((spec) =>
    spec.disks.map((disk) => {
      if (isBuiltIn(disk)) return { progress: 100, started: 0 };
      const row = byPath.get(disk.path);
      if (!row) return { progress: MISSING, started: 0 };
      return { progress: progressOf(row.started, row.duration, now), started: row.started };
    }),
  );
}

/**
 * Starts copying every missing disk; the copies run one after another, each `perDisk` long. A
 * copy another process started at the same time is kept (the path is the key). Returns how many
 * copies it started.
 */
export async function startCopies(
  store: SimMachineStore,
  spec: MachineSpec,
  perDisk: number,
  now: number,
): Promise<number> {
  const states = await diskStates(store, spec, now);
  const missing = spec.disks.filter((_, i) => states[i]?.progress === MISSING).map((d) => d.path);
  const copies = [...new Set(missing)].map((path, i) => ({
    path,
    started: now + i * perDisk,
    duration: perDisk,
  }));
  await store.addDiskCopies(copies);
  return copies.length;
}

/**
 * Removes the spec's copied disks. Only paths containing its isolation tag are its own: a linked
 * template's disks are the stock template's and stay.
 */
export async function removeCopies(store: SimMachineStore, spec: MachineSpec): Promise<void> {
  const tag = spec.isolationTag;
  if (!tag) return;
  await store.removeDiskCopies(spec.disks.map((d) => d.path).filter((p) => p.includes(tag)));
}
