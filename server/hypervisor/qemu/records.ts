import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import type { GuestSetting, MachineSpec } from '../types';
import { machineFiles, type QemuLayout } from './layout';

// A machine's record: what it was deployed from and what changed since, kept as JSON in its own
// folder (written to a temporary file and renamed, so a crash never leaves half a record). The
// folder is the machine: the driver needs no database, and a restarted server finds every machine
// it had by reading the folders.

export interface NicRecord {
  index: number;
  /** `lan#{tag}`, a reserved net, or '' when disconnected. */
  network: string;
  mac: string;
}

export interface DiskRecord {
  index: number;
  /** The disk the overlay is linked to, absolute; null: the overlay is an empty disk of its own. */
  base: string | null;
  /** GB: the size of an empty disk of its own (records written before it have none). */
  sizeGiB?: number;
  /** The base as the spec names it, relative to the images folder. */
  path: string;
  controller: string | null;
}

export interface MachineRecord {
  id: string;
  /** `{template}#{tag}`. */
  name: string;
  tag: string;
  created: number;
  spec: MachineSpec;
  privileged: boolean;
  nics: NicRecord[];
  disks: DiskRecord[];
  /** ISO path relative to the ISO folder, or null. */
  iso: string | null;
  bootDelaySeconds: number;
  guestSettings: GuestSetting[];
  /**
   * The warm image (qemu/warm.ts) the disk overlays are based on, until the machine's first start
   * restores it from there; null or absent: it boots.
   */
  warm?: string | null;
  /** The warm image the machine was restored from at its first start, if it was. */
  restoredFrom?: string | null;
  /**
   * Why its first start boots where a warm image could have restored it (power.ts COLD_BOOT), said
   * as its task while it boots; null or absent: nothing to say.
   */
  coldBoot?: string | null;
}

export async function writeRecord(layout: QemuLayout, record: MachineRecord): Promise<void> {
  const files = machineFiles(layout, record.id);
  await mkdir(files.dir, { recursive: true });
  const temporary = `${files.record}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(record, null, 1)}\n`);
  await rename(temporary, files.record);
}

export async function readRecord(layout: QemuLayout, id: string): Promise<MachineRecord | null> {
  if (!/^[0-9a-f-]{36}$/.test(id)) return null;
  try {
    return JSON.parse(await readFile(machineFiles(layout, id).record, 'utf8')) as MachineRecord;
  } catch {
    return null;
  }
}

export async function readAllRecords(layout: QemuLayout): Promise<MachineRecord[]> {
  let ids: string[];
  try {
    ids = await readdir(layout.machines);
  } catch {
    return [];
  }
  const records = await Promise.all(ids.map((id) => readRecord(layout, id)));
  return records.filter((r): r is MachineRecord => r !== null);
}
