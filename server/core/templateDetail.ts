import { DomainError } from './errors';
import { invalid } from './fields';
import { EMPTY_GUID } from './ids';

// A template's detail (wire reference §2.4): the VmTemplate the hypervisor deploys, stored as
// PascalCase JSON text, written indented with every property and read case-insensitively (as
// System.Text.Json does in the reference).

export interface VmNet {
  Id: number;
  Net: string | null;
  Key: string | null;
  Type: string | null;
  Mac: string | null;
  Ip: string | null;
  Vlan: number;
}

export interface VmDisk {
  Id: number;
  Path: string | null;
  Source: string | null;
  Controller: string | null;
  /** GB. */
  Size: number;
  Status: number;
}

export interface VmKeyValue {
  Key: string | null;
  Value: string | null;
}

export interface VmTemplate {
  Id: string | null;
  Name: string | null;
  TopoId: string | null;
  /** "{sockets}x{cores}". */
  Cpu: string | null;
  Guest: string | null;
  Source: string | null;
  Iso: string | null;
  Floppy: string | null;
  Version: string | null;
  IsolationTag: string | null;
  HostAffinity: boolean;
  UseUplinkSwitch: boolean;
  /** GB. */
  Ram: number;
  VideoRam: number;
  Adapters: number;
  Delay: number;
  AutoStart: boolean;
  /** Proxmox: the template VM to clone from. */
  Template: string | null;
  ParentTemplate: string | null;
  Eth: VmNet[];
  Disks: VmDisk[];
  GuestSettings: VmKeyValue[] | null;
  /**
   * Ours, beside the reference's fields: "uefi" boots the machine with UEFI firmware, anything
   * else (or none) with a BIOS. Written only when set, so other details keep the reference's
   * shape. The reference's own way, a guest setting `firmware` = `efi`, means UEFI too.
   */
  Firmware?: string;
}

/** The largest detail accepted (the reference stores 4096 characters; this leaves room). */
export const DETAIL_MAX = 65_536;

type Loose = Record<string, unknown>;

function lowerKeys(value: unknown): Loose {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k.toLowerCase(), v]));
}

const str = (v: unknown): string | null =>
  typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : null;

const int = (v: unknown, fallback = 0): number => {
  const n = typeof v === 'string' && v.trim() !== '' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? Math.trunc(n) : fallback;
};

const bool = (v: unknown, fallback: boolean): boolean =>
  typeof v === 'boolean' ? v : v === 'true' ? true : v === 'false' ? false : fallback;

const list = <T>(v: unknown, item: (x: Loose) => T): T[] =>
  Array.isArray(v) ? v.map((x) => item(lowerKeys(x))) : [];

const vmNet = (o: Loose): VmNet => ({
  Id: int(o.id),
  Net: str(o.net),
  Key: str(o.key),
  Type: str(o.type),
  Mac: str(o.mac),
  Ip: str(o.ip),
  Vlan: int(o.vlan),
});

const vmDisk = (o: Loose): VmDisk => ({
  Id: int(o.id),
  Path: str(o.path),
  Source: str(o.source),
  Controller: str(o.controller),
  Size: int(o.size),
  Status: int(o.status),
});

const vmKeyValue = (o: Loose): VmKeyValue => ({ Key: str(o.key), Value: str(o.value) });

/** Any object to a complete VmTemplate, property names matched case-insensitively. */
export function toVmTemplate(value: unknown): VmTemplate {
  const o = lowerKeys(value);
  return {
    Id: str(o.id),
    Name: str(o.name),
    TopoId: str(o.topoid),
    Cpu: str(o.cpu),
    Guest: str(o.guest),
    Source: str(o.source),
    Iso: str(o.iso),
    Floppy: str(o.floppy),
    Version: str(o.version),
    IsolationTag: str(o.isolationtag),
    HostAffinity: bool(o.hostaffinity, false),
    UseUplinkSwitch: bool(o.useuplinkswitch, false),
    Ram: int(o.ram),
    VideoRam: int(o.videoram),
    Adapters: int(o.adapters),
    Delay: int(o.delay),
    AutoStart: bool(o.autostart, true),
    Template: str(o.template),
    ParentTemplate: str(o.parenttemplate),
    Eth: list(o.eth, vmNet),
    Disks: list(o.disks, vmDisk),
    GuestSettings: Array.isArray(o.guestsettings) ? list(o.guestsettings, vmKeyValue) : null,
    ...(str(o.firmware) ? { Firmware: str(o.firmware)! } : {}),
  };
}

/** Whether a template boots with UEFI: its Firmware, or the reference's `firmware=efi` setting. */
export function isUefi(vm: Pick<VmTemplate, 'Firmware' | 'GuestSettings'>): boolean {
  if (vm.Firmware) return /^u?efi$/i.test(vm.Firmware.trim());
  return (vm.GuestSettings ?? []).some(
    (s) => s.Key?.trim().toLowerCase() === 'firmware' && /^u?efi$/i.test(s.Value?.trim() ?? ''),
  );
}

export function parseDetail(text: string): VmTemplate {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('detail', 'is not VmTemplate JSON');
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid('detail', 'is not VmTemplate JSON');
  }
  return toVmTemplate(value);
}

export const serializeDetail = (vm: VmTemplate): string => JSON.stringify(vm, null, 2);

/** The reference's disk name for a new template: non-word characters become '-', lowercase. */
export function diskName(name: string): string {
  const slugged = name
    .replace(/[^\p{L}\p{N}_]/gu, '-')
    .replaceAll('--', '-')
    .replace(/^-+|-+$/g, '')
    .toLowerCase();
  return slugged || 'placeholder';
}

/** The detail of a template created without one (wire reference §2.4). */
export function defaultDetail(name: string): VmTemplate {
  return toVmTemplate({
    Ram: 4,
    VideoRam: 0,
    Cpu: '1x2',
    Adapters: 1,
    Eth: [{ Net: 'lan', Type: 'e1000' }],
    Disks: [
      {
        Path: `[ds] ${EMPTY_GUID}/${diskName(name)}.vmdk`,
        Source: '',
        Controller: 'lsilogic',
        Size: 10,
      },
    ],
  });
}

/** Detail text as stored: the given JSON normalized, or the default detail when empty. */
export function normalizeDetail(text: string | null | undefined, name: string): string {
  return serializeDetail(text && text.trim() ? parseDetail(text) : defaultDetail(name));
}

/**
 * Gives a template its own disks in its workspace's folder: every disk not already there gets
 * `source` = its old path and `path` = `[ds] {workspaceId}/{templateId}_{i}.vmdk`. The hypervisor
 * copies `source` to `path` when the template is initialized. For Proxmox, the template VM
 * becomes the parent and the template id the new template VM; a template whose disks are empty
 * (a size, no path) gets a template VM of its own too, made with empty disks.
 */
export function localizeDiskPaths(
  vm: VmTemplate,
  workspaceId: string,
  templateId: string,
): VmTemplate {
  if (!workspaceId || !templateId) throw new DomainError('InvalidOperation');
  const folder = `[ds] ${workspaceId}/${templateId}`;
  const disks = vm.Disks.map((disk, i) =>
    disk.Path?.startsWith(folder)
      ? disk
      : { ...disk, Source: disk.Path, Path: `${folder}_${i}.vmdk` },
  );
  // Empty disks (a size, no path) have no VM template to copy: the template's own starts empty.
  const empty =
    vm.Disks.length > 0 &&
    vm.Disks.every((d) => !d.Path?.replace(/^\s*\[[^\]]*\]/, '').trim() && d.Size > 0);
  const proxmox = vm.Template
    ? { ParentTemplate: vm.Template, Template: templateId }
    : empty
      ? { ParentTemplate: null, Template: templateId }
      : {};
  return { ...vm, ...proxmox, Disks: disks };
}
