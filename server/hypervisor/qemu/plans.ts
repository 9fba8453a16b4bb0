// What the qemu driver makes of a spec before anything runs: a machine's record (its NICs on
// the tag's networks, its disks inside the images folder) and the plan its QEMU is launched by.

import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { fwCfgName } from '../guestFiles';
import { specName } from '../lifecycle';
import { isolatedNet, tagOf, type MachineSpec } from '../types';
import { bootFilesOf } from './disks';
import { inside, machineFiles, type QemuLayout } from './layout';
import { FW_CFG_NAME_MAX, type Acceleration, type LaunchPlan } from './processes';
import type { MachineRecord } from './records';

const withoutDatastore = (path: string): string => path.replace(/^\s*\[[^\]]*\]\s*/, '');

const randomMac = (): string =>
  `52:54:00:${[...randomBytes(3)].map((b) => b.toString(16).padStart(2, '0')).join(':')}`;

/**
 * A spec's disks inside the images folder. Paths in the reference's vSphere form
 * (`[datastore] folder/file.vmdk`, as templates made elsewhere and unlinked copies name them) lose
 * the datastore; what the file holds (qcow2 or raw) decides its format, not its extension.
 */
export function diskPathsOf(layout: QemuLayout, spec: MachineSpec) {
  return spec.disks.map((d) => {
    const path = withoutDatastore(d.path);
    const source = d.source ? withoutDatastore(d.source) : null;
    return { ...d, path, source, full: inside(layout.images, path, 'disk') };
  });
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
}

/** How to launch a machine's QEMU; writes the files its guest settings are read from. */
export async function launchPlanOf(
  record: MachineRecord,
  { layout, acceleration, log }: PlanContext,
): Promise<LaunchPlan> {
  const files = machineFiles(layout, record.id);
  const guestSettings: LaunchPlan['guestSettings'] = [];
  let i = 0;
  for (const setting of record.guestSettings) {
    const name = fwCfgName(setting.key);
    if (!/^[\w.-]+$/.test(setting.key) || Buffer.byteLength(name) > FW_CFG_NAME_MAX) {
      log?.warn({ key: setting.key }, 'guest setting skipped: its key cannot be a fw_cfg name');
      continue;
    }
    const file = files.guestSetting(i++);
    await writeFile(file, setting.value);
    guestSettings.push({ name, file });
  }
  const base = record.disks[0]?.base;
  return {
    id: record.id,
    hostname: record.spec.name.replace(/[^\w-]/g, '-').slice(0, 63) || 'machine',
    files,
    acceleration,
    sockets: Math.max(1, record.spec.cpu.sockets),
    coresPerSocket: Math.max(1, record.spec.cpu.coresPerSocket),
    memoryMiB: record.spec.memoryMiB,
    disks: record.disks.map((d) => ({
      overlay: files.overlay(d.index),
      controller: d.controller,
    })),
    nics: record.nics.map((n) => ({ index: n.index, mac: n.mac })),
    iso: record.iso ? inside(layout.isos, record.iso, 'ISO') : null,
    boot: base ? await bootFilesOf(base) : null,
    guestSettings,
  };
}
