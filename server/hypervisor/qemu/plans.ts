// What the qemu driver makes of a spec before anything runs: a machine's record (its NICs on
// the tag's networks, its disks inside the images folder) and the plan its QEMU is launched by.

import { createHash, randomBytes } from 'node:crypto';
import { stat, writeFile } from 'node:fs/promises';
import { cloudHostname, cloudSettingsOf, networkConfig, userData } from '../cloudInit';
import { fwCfgName } from '../guestFiles';
import { specName } from '../lifecycle';
import { EMPTY_TAG, isolatedNet, tagOf, type MachineSpec } from '../types';
import { bootFilesOf, devicesOf } from './disks';
import { uefiFilesOf } from './firmware';
import { inside, machineFiles, type QemuLayout } from './layout';
import { FW_CFG_NAME_MAX, type Acceleration, type LaunchPlan } from './processes';
import type { MachineRecord } from './records';
import { writeSeed } from './seed';

const withoutDatastore = (path: string): string => path.replace(/^\s*\[[^\]]*\]\s*/, '');

const randomMac = (): string =>
  `52:54:00:${[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;

/**
 * A spec's disks inside the images folder. Paths in the reference's vSphere form
 * (`[datastore] folder/file.vmdk`, as templates made elsewhere and unlinked copies name them) lose
 * the datastore; what the file holds (qcow2 or raw) decides its format, not its extension. A disk
 * that names no path has no image (`full` null): each machine gets an empty disk of its size.
 */
export function diskPathsOf(layout: QemuLayout, spec: MachineSpec) {
  return spec.disks.map((d) => {
    const path = withoutDatastore(d.path).trim();
    const source = d.source ? withoutDatastore(d.source).trim() || null : null;
    return { ...d, path, source, full: path ? inside(layout.images, path, 'disk') : null };
  });
}

export type DiskPaths = ReturnType<typeof diskPathsOf>[number];

/**
 * Empty disks, for installing a system from an ISO. A disk with a size starts empty when it names
 * nothing to start from: no path at all (each machine's disk is empty; nothing can be saved), or
 * a path in a workspace's folder with no source (what unlinking a template whose disk has no
 * path gives): initializing the template makes that disk empty, and saving a machine writes the
 * installed system into it. A missing stock image (at the top of the images folder or in the zero
 * GUID's folder, as templates made elsewhere name theirs) is never taken for an empty disk: it is
 * an image this host lacks.
 */
export function startsEmpty(disk: Pick<DiskPaths, 'path' | 'source' | 'sizeGiB'>): boolean {
  if (disk.source || !(disk.sizeGiB > 0)) return false;
  if (!disk.path) return true;
  const folder = disk.path.replace(/\\/g, '/').split('/');
  return folder.length > 1 && folder[0] !== EMPTY_TAG;
}

/**
 * A new machine's record, made at `created`: its NICs on the tag's networks (reserved ones kept
 * when privileged).
 */
export function recordOf(
  id: string,
  spec: MachineSpec,
  privileged: boolean,
  disks: ReturnType<typeof diskPathsOf>,
  reserved: readonly string[],
  created: number,
): MachineRecord {
  const name = specName(spec);
  const tag = tagOf(name);
  return {
    id,
    name,
    tag,
    created,
    spec,
    privileged,
    nics: spec.nics.map((n) => ({
      index: n.index,
      network: isolatedNet(n.network, tag, privileged, reserved),
      mac:
        n.mac && /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i.test(n.mac) ? n.mac.toLowerCase() : randomMac(),
    })),
    disks: disks.map((d) => ({
      index: d.index,
      base: d.full,
      path: d.path,
      controller: d.controller,
      sizeGiB: d.sizeGiB,
    })),
    iso: spec.iso,
    bootDelaySeconds: spec.bootDelaySeconds,
    guestSettings: spec.guestSettings,
  };
}

export interface PlanContext {
  layout: QemuLayout;
  acceleration: Acceleration;
  log?: { warn(o: object, msg?: string): void };
  /** The xorriso command that makes cloud-init seeds; `xorriso` on the PATH by default. */
  xorriso?: string;
}

/**
 * The seed's instance-id: the machine's id and a digest of what the seed says and of when its
 * first disk was made, so that cloud-init runs again on a new machine, after its guest settings
 * changed and on a reverted disk, and only then.
 */
async function instanceIdOf(
  record: MachineRecord,
  files: ReturnType<typeof machineFiles>,
  content: string,
): Promise<string> {
  const first = record.disks[0];
  let made = '';
  if (first) {
    try {
      const overlay = await stat(files.overlay(first.index));
      made = `${overlay.birthtimeMs}:${overlay.ino}`;
    } catch {
      // No overlay yet: the digest of the content alone.
    }
  }
  const digest = createHash('sha256').update(`${content}\n${made}`).digest('hex').slice(0, 16);
  return `topoplay-${record.id}-${digest}`;
}

/** Writes the machine's cloud-init seed; null (and a warning) when it cannot be made. */
async function seedOf(
  record: MachineRecord,
  hostname: string,
  files: ReturnType<typeof machineFiles>,
  { log, xorriso }: PlanContext,
): Promise<string | null> {
  const machine = {
    hostname,
    instanceId: '',
    nics: record.nics,
    guestSettings: record.guestSettings,
  };
  const ignored = cloudSettingsOf(record.guestSettings).ignored;
  if (ignored.length > 0) log?.warn({ machine: record.id, ignored }, 'cloud-init settings ignored');
  machine.instanceId = await instanceIdOf(
    record,
    files,
    userData(machine) + networkConfig(machine),
  );
  try {
    return await writeSeed(files.dir, machine, xorriso);
  } catch (error) {
    // The machine still starts: its guest settings reach it through fw_cfg.
    log?.warn({ err: error, machine: record.id }, 'no cloud-init seed for this machine');
    return null;
  }
}

/** How to launch a machine's QEMU; writes the files its guest settings are read from. */
export async function launchPlanOf(
  record: MachineRecord,
  context: PlanContext,
  files: ReturnType<typeof machineFiles> = machineFiles(context.layout, record.id),
): Promise<LaunchPlan> {
  const { layout, acceleration, log } = context;
  const guestSettings: LaunchPlan['guestSettings'] = [];
  // QEMU refuses two fw_cfg files of one name: a key set again (a configuration change) keeps
  // its last value.
  const latest = new Map(record.guestSettings.map((s) => [s.key, s.value]));
  let i = 0;
  for (const [key, value] of latest) {
    const name = fwCfgName(key);
    if (!/^[\w.-]+$/.test(key) || Buffer.byteLength(name) > FW_CFG_NAME_MAX) {
      log?.warn({ key }, 'guest setting skipped: its key cannot be a fw_cfg name');
      continue;
    }
    const file = files.guestSetting(i++);
    await writeFile(file, value);
    guestSettings.push({ name, file });
  }
  const base = record.disks[0]?.base;
  const hostname = cloudHostname(record.spec.name);
  return {
    id: record.id,
    hostname,
    files,
    acceleration,
    sockets: Math.max(1, record.spec.cpu.sockets),
    coresPerSocket: Math.max(1, record.spec.cpu.coresPerSocket),
    memoryMiB: record.spec.memoryMiB,
    disks: record.disks.map((d) => ({
      overlay: files.overlay(d.index),
      controller: d.controller,
    })),
    nics: record.nics.map((n) => ({
      index: n.index,
      mac: n.mac,
      model: record.spec.nics.find((s) => s.index === n.index)?.adapter ?? null,
    })),
    iso: record.iso ? inside(layout.isos, record.iso, 'ISO') : null,
    boot: base ? await bootFilesOf(base) : null,
    devices: base ? await devicesOf(base) : [],
    uefi: record.spec.firmware === 'uefi' ? await uefiFilesOf(files.dir) : null,
    guestSettings,
    seed: await seedOf(record, hostname, files, context),
  };
}
