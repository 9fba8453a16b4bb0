import { createHash } from 'node:crypto';

// A VM's configuration as the PVE API simulator keeps it: PVE's flat key/value config file
// (`name`, `memory`, `net0: virtio=BC:24:11:..,bridge=vmbr0`, `scsi0: local-lvm:vm-100-disk-0,size=2G`),
// with values as strings as in /etc/pve/qemu-server/{vmid}.conf. These are pure readings and
// rewritings of such values.

export type VmConfig = Record<string, string>;

/** The storage our disks live on and the one holding ISO images. */
export const DISK_STORAGE = 'local-lvm';
export const ISO_STORAGE = 'local';

/** The host bridge every node has besides the SDN vnets. */
export const HOST_BRIDGE = 'vmbr0';

/** PVE's default MAC prefix (Proxmox's OUI). */
const MAC_PREFIX = 'BC:24:11';

/** Keys PVE's API returns as integers or booleans (0/1); every other value is a string. */
const NUMERIC_KEYS = new Set([
  'cores',
  'sockets',
  'vcpus',
  'balloon',
  'shares',
  'cpuunits',
  'migrate_speed',
  'template',
  'onboot',
  'acpi',
  'kvm',
  'numa',
  'tablet',
  'localtime',
  'protection',
  'freeze',
  'reboot',
  'autostart',
  'ciupgrade',
]);

/** The config digest PVE returns and accepts back to detect concurrent changes. */
export function configDigest(config: VmConfig): string {
  const text = Object.keys(config)
    .sort()
    .map((key) => `${key}: ${config[key]}`)
    .join('\n');
  return createHash('sha1').update(text).digest('hex');
}

/** The config as GET .../config returns it: numbers where PVE's schema has them, plus the digest. */
export function configReply(config: VmConfig): Record<string, string | number> {
  const reply: Record<string, string | number> = {};
  for (const [key, value] of Object.entries(config)) {
    reply[key] = NUMERIC_KEYS.has(key) && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  // PVE keeps a hash of the cloud-init password and never shows it.
  if (config.cipassword !== undefined) reply.cipassword = '**********';
  reply.digest = configDigest(config);
  return reply;
}

/** `a=1,b=2` (and a leading bare value) as ordered pairs; a bare value has the key ''. */
export function parsePropertyString(value: string): Array<[string, string]> {
  return value
    .split(',')
    .filter((part) => part !== '')
    .map((part) => {
      const at = part.indexOf('=');
      return at < 0 ? ['', part] : [part.slice(0, at), part.slice(at + 1)];
    });
}

const NIC_MODELS = new Set([
  'virtio',
  'e1000',
  'e1000e',
  'rtl8139',
  'vmxnet3',
  'i82551',
  'ne2k_pci',
]);

export interface Nic {
  model: string;
  mac: string | undefined;
  bridge: string | undefined;
  /** Every other option, as written. */
  rest: Array<[string, string]>;
}

export function parseNic(value: string): Nic {
  const nic: Nic = { model: 'virtio', mac: undefined, bridge: undefined, rest: [] };
  for (const [key, v] of parsePropertyString(value)) {
    if (key === '') nic.model = v;
    else if (NIC_MODELS.has(key)) {
      nic.model = key;
      nic.mac = v;
    } else if (key === 'model') nic.model = v;
    else if (key === 'macaddr') nic.mac = v;
    else if (key === 'bridge') nic.bridge = v;
    else nic.rest.push([key, v]);
  }
  return nic;
}

export function formatNic(nic: Nic): string {
  const parts = [`${nic.model}=${nic.mac ?? ''}`];
  if (nic.bridge !== undefined) parts.push(`bridge=${nic.bridge}`);
  for (const [key, v] of nic.rest) parts.push(`${key}=${v}`);
  return parts.join(',');
}

/** A MAC for a VM's NIC: fixed per vmid and index, so runs are repeatable. */
export function macFor(vmid: number, index: number): string {
  const hex = (n: number) => (n & 0xff).toString(16).toUpperCase().padStart(2, '0');
  return `${MAC_PREFIX}:${hex(vmid >> 8)}:${hex(vmid)}:${hex(index)}`;
}

export const isNicKey = (key: string): boolean => /^net\d+$/.test(key);

/** The bridges a config's NICs are plugged into, by NIC key. */
export function bridgesOf(config: VmConfig): Array<[string, string]> {
  return Object.entries(config)
    .filter(([key]) => isNicKey(key))
    .map(([key, value]) => [key, parseNic(value).bridge ?? HOST_BRIDGE]);
}

const DRIVE_KEY = /^(ide|sata|scsi|virtio|efidisk|tpmstate)\d+$/;

export const isDriveKey = (key: string): boolean => DRIVE_KEY.test(key);

/** A request for a new cloud-init drive: `{storage}:cloudinit`, as `qm set --ide2` takes it. */
export const cloudInitRequestOf = (value: string): string | undefined =>
  /^([a-z][a-z0-9._-]*[a-z0-9]):cloudinit(?:,|$)/i.exec(value)?.[1];

/** A cloud-init drive as PVE stores it: `{storage}:vm-{vmid}-cloudinit,media=cdrom`. */
export const isCloudInitDrive = (value: string): boolean =>
  /^[^:,]+:(?:\d+\/)?vm-\d+-cloudinit(?:\.\w+)?(?:,|$)/.test(value);

/** The volume of PVE's cloud-init drive for a VM on a storage. */
export const cloudInitVolume = (storage: string, vmid: number): string =>
  `${storage}:vm-${vmid}-cloudinit`;

/**
 * A request for a new disk, as `qm create --scsi0 local-lvm:4` takes it: `{storage}:{size in GiB}`
 * (an EFI disk's size is PVE's own, whatever number is given).
 */
export function newDiskRequestOf(value: string): { storage: string; sizeGiB: number } | undefined {
  const match = /^([a-z][a-z0-9._-]*[a-z0-9]):(\d+(?:\.\d+)?)(?:,|$)/i.exec(value);
  return match ? { storage: match[1]!, sizeGiB: Number(match[2]) } : undefined;
}

/**
 * The drive value of a new disk PVE allocates: the next free `vm-{vmid}-disk-{n}` volume on the
 * storage, with its size (an EFI vars disk of efitype 4m is 4 MiB, of 2m 528 KiB).
 */
export function allocatedDisk(config: VmConfig, key: string, value: string, vmid: number): string {
  const request = newDiskRequestOf(value)!;
  const taken = new Set(Object.values(config).map(volumeOf));
  let n = 0;
  while (taken.has(`${request.storage}:vm-${vmid}-disk-${n}`)) n++;
  const efi = key.startsWith('efidisk');
  const fourM = parsePropertyString(value).some(([k, v]) => k === 'efitype' && v === '4m');
  const size = efi ? (fourM ? '4M' : '528K') : `${request.sizeGiB}G`;
  return `${withVolume(value, `${request.storage}:vm-${vmid}-disk-${n}`)},size=${size}`;
}

/** The source of a new disk to import (`local-lvm:0,import-from=local:import/x.qcow2`). */
export const importSourceOf = (value: string): string | undefined =>
  newDiskRequestOf(value) === undefined
    ? undefined
    : parsePropertyString(value).find(([key]) => key === 'import-from')?.[1];

/**
 * The drive value of a disk PVE imported: the next free `vm-{vmid}-disk-{n}` volume on the
 * storage, of the source's size; `import-from` is not kept, as PVE drops it once it is done.
 */
export function importedDisk(config: VmConfig, value: string, vmid: number, bytes: number) {
  const options = parsePropertyString(value).filter(
    ([key]) => key !== '' && key !== 'import-from' && key !== 'size',
  );
  const allocated = allocatedDisk(config, 'scsi', volumeOf(value), vmid);
  return [volumeOf(allocated), ...options.map(([k, v]) => `${k}=${v}`), `size=${bytes}`].join(',');
}

/** The volume of a drive value: the part before the first comma. */
export const volumeOf = (value: string): string => value.split(',')[0] ?? '';

export const isCdrom = (value: string): boolean =>
  parsePropertyString(value).some(([key, v]) => key === 'media' && v === 'cdrom');

/** The disk drives (not CD-ROMs) of a config, sorted by key. */
export function disksOf(config: VmConfig): Array<[string, string]> {
  return Object.entries(config)
    .filter(([key, value]) => DRIVE_KEY.test(key) && !isCdrom(value))
    .sort(([a], [b]) => a.localeCompare(b));
}

/** A drive's size option (`size=2G`) in bytes; 0 when absent. */
export function diskBytes(value: string): number {
  const size = parsePropertyString(value).find(([key]) => key === 'size')?.[1];
  const match = size ? /^(\d+(?:\.\d+)?)([KMGT]?)$/.exec(size) : null;
  if (!match) return 0;
  const unit = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 }[match[2] ?? ''] ?? 1;
  return Math.round(Number(match[1]) * unit);
}

/** A drive value with its volume replaced and its options kept. */
export function withVolume(value: string, volume: string): string {
  const options = value.split(',').slice(1);
  return [volume, ...options].join(',');
}

/** The configured memory in MiB (`512` or `current=512,...`); PVE's default is 512. */
export function memoryMiB(config: VmConfig): number {
  const value = config.memory;
  if (!value) return 512;
  const pairs = parsePropertyString(value);
  const current = pairs.find(([key]) => key === '' || key === 'current')?.[1];
  return current && /^\d+$/.test(current) ? Number(current) : 512;
}

export const cpusOf = (config: VmConfig): number =>
  Number(config.cores ?? '1') * Number(config.sockets ?? '1');

/** Whether the guest agent is enabled (`agent: 1` or `agent: enabled=1,...`). */
export function agentEnabled(config: VmConfig): boolean {
  const value = config.agent;
  if (value === undefined) return false;
  const first = parsePropertyString(value).find(([key]) => key === '' || key === 'enabled');
  return first?.[1] === '1';
}

/** Tags as PVE stores them: separated by ';', without duplicates. */
export function normalizeTags(value: string): string {
  const tags = value.split(/[;, ]+/).filter((tag) => tag !== '');
  return [...new Set(tags)].join(';');
}

export const tagsOf = (config: VmConfig): string[] =>
  config.tags ? config.tags.split(';').filter((tag) => tag !== '') : [];
