import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  cloudHostname,
  cloudSettingsOf,
  networkConfig,
  userData,
  type CloudInitMachine,
  type CloudSettings,
} from '../cloudInit';
import type { MachineSpec } from '../types';

// Cloud-init on a Proxmox cluster: a deploy gives each machine PVE's cloud-init drive (PVE writes
// the NoCloud seed onto it when the machine starts) with what the `cloud.*` guest settings ask for
// as PVE's own options (ciuser, cipassword, sshkeys, ipconfigN, nameserver). When the admin gives
// a snippets storage (PROXMOX_SNIPPETS_STORAGE, mounted on this server at PROXMOX_SNIPPETS_DIR:
// PVE's API cannot upload snippets), the machine's user-data and network-config are ours instead
// (../cloudInit.ts, the qemu driver's too), through `cicustom`: they also write every guest
// setting as a file in the guest. Without snippets, guest settings go as they always did (the
// guest agent, or fw_cfg with root's password).

/** A storage with `snippets` content, and its folder as this server sees it. */
export interface ProxmoxSnippets {
  storage: string;
  /** The storage's path here (its `snippets/` subfolder is where PVE looks). */
  dir: string;
}

/** Drive slots a cloud-init drive may take, in order: ide2 is the ISO drive's. */
const SLOTS = ['ide3', 'ide1', 'ide0', 'sata0', 'sata1', 'sata2', 'sata3', 'sata4', 'sata5'];

const isCloudInitDrive = (value: unknown): boolean =>
  typeof value === 'string' && /^[^,:]+:(?:[^,]*\/)?(?:vm-\d+-)?cloudinit(?:[.,]|$)/.test(value);

/**
 * Where the machine's cloud-init drive goes, given its cloned config: a drive the base image had
 * is kept, unless it sits in ide2, which is the ISO's (then it moves: `remove` it, `add` the new
 * one). `add` null and nothing kept: no slot is free.
 */
export function cloudInitSlot(config: Record<string, unknown>): {
  keep: string | null;
  add: string | null;
  remove: string[];
} {
  const existing = Object.keys(config).filter(
    (key) => /^(ide|sata|scsi|virtio)\d+$/.test(key) && isCloudInitDrive(config[key]),
  );
  const keep = existing.find((key) => key !== 'ide2') ?? null;
  if (keep) return { keep, add: null, remove: [] };
  const add = SLOTS.find((slot) => config[slot] === undefined) ?? null;
  return { keep: null, add, remove: existing };
}

/**
 * PVE's cloud-init options for what the `cloud.*` settings ask; no package upgrade at boot. The
 * settings that could not be used, in `ignored`.
 */
export function cloudInitOptions(spec: MachineSpec): {
  options: Record<string, string | number>;
  ignored: CloudSettings['ignored'];
} {
  const cloud = cloudSettingsOf(spec.guestSettings);
  // A lab network has no way out: an upgrade at first boot would only wait for its timeouts.
  const options: Record<string, string | number> = { ciupgrade: 0 };
  if (cloud.user) options.ciuser = cloud.user;
  if (cloud.password !== null) options.cipassword = cloud.password;
  // PVE takes the keys URL-encoded (its `urlencoded` format: %20 for a space, never '+').
  if (cloud.sshKeys.length > 0) options.sshkeys = encodeURIComponent(cloud.sshKeys.join('\n'));
  if (cloud.nameservers.length > 0) options.nameserver = cloud.nameservers.join(' ');
  for (const nic of spec.nics) {
    const address = cloud.addresses.get(nic.index);
    if (address?.kind === 'static') {
      const v6 = address.address.includes(':');
      const [ip, gw] = v6 ? ['ip6', 'gw6'] : ['ip', 'gw'];
      options[`ipconfig${nic.index}`] =
        `${ip}=${address.address}${address.gateway ? `,${gw}=${address.gateway}` : ''}`;
    } else if (address?.kind === 'dhcp') {
      options[`ipconfig${nic.index}`] = 'ip=dhcp';
    }
    // `none` has no PVE form older clusters take: the NIC keeps PVE's default (DHCP).
  }
  return { options, ignored: cloud.ignored };
}

const snippetNames = (vmid: number) => ({
  user: `topoplay-${vmid}-user.yaml`,
  network: `topoplay-${vmid}-network.yaml`,
});

/** Writes the machine's user-data and network-config as snippets; the `cicustom` value. */
export async function writeSnippets(
  snippets: ProxmoxSnippets,
  vmid: number,
  spec: MachineSpec,
  macs: ReadonlyMap<number, string>,
): Promise<string> {
  const machine: CloudInitMachine = {
    hostname: cloudHostname(spec.name),
    // PVE writes the meta-data (and its instance-id) itself.
    instanceId: '',
    nics: spec.nics
      .filter((n) => macs.has(n.index))
      .map((n) => ({ index: n.index, mac: macs.get(n.index)! })),
    guestSettings: spec.guestSettings,
  };
  const folder = join(snippets.dir, 'snippets');
  await mkdir(folder, { recursive: true });
  const names = snippetNames(vmid);
  const texts = { user: userData(machine), network: networkConfig(machine) };
  for (const kind of ['user', 'network'] as const) {
    const file = join(folder, names[kind]);
    await writeFile(`${file}.tmp`, texts[kind]);
    await rename(`${file}.tmp`, file);
  }
  return `user=${snippets.storage}:snippets/${names.user},network=${snippets.storage}:snippets/${names.network}`;
}

/** Removes a machine's snippets, if it had any. */
export async function removeSnippets(snippets: ProxmoxSnippets, vmid: number): Promise<void> {
  const names = snippetNames(vmid);
  for (const name of [names.user, names.network]) {
    await rm(join(snippets.dir, 'snippets', name), { force: true });
  }
}

/** The MACs of a config's NICs, by index (PVE fills in a MAC for a NIC given none). */
export function macsOf(config: Record<string, unknown>): Map<number, string> {
  const macs = new Map<number, string>();
  for (const [key, value] of Object.entries(config)) {
    const index = /^net(\d+)$/.exec(key)?.[1];
    const mac =
      typeof value === 'string' ? /=([0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){5})/.exec(value) : null;
    if (index !== undefined && mac?.[1]) macs.set(Number(index), mac[1].toLowerCase());
  }
  return macs;
}
