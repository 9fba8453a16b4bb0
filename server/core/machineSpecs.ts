import { untagged, type CpuSpec, type MachineSpec } from '../hypervisor';
import { networkNames } from '../../src/domain/topology';
import type { TemplateTable, WorkspaceTable } from '../store/schema';
import {
  defaultDetail,
  isUefi,
  parseDetail,
  type VmKeyValue,
  type VmNet,
  type VmTemplate,
} from './templateDetail';
import { isoPathOf } from './vmViews';

// A template row becomes the complete VmTemplate of the wire (wire reference §4.5 step 4): the
// detail (inherited from the parent when linked), then what the author set on the template
// (name, ISO, networks, guest settings) and on its workspace (uplink switch, host affinity).
// Builder machines and gamespace launches share this, so both deploy the same machine. The
// driver gets it as a MachineSpec, its own normalized form (toMachineSpec).

export interface DeployableSource {
  template: Pick<
    TemplateTable,
    'id' | 'name' | 'iso' | 'networks' | 'guestinfo' | 'detail' | 'isLinked'
  >;
  /** The parent's detail text, for a linked template or one without a detail of its own. */
  parentDetail: string | null;
  /** The isolation tag: the workspace id, the gamespace id, or the zero GUID. */
  tag: string;
  /** The template's workspace; null for a stock template, which keeps its detail's flags. */
  workspace: Pick<WorkspaceTable, 'hostAffinity' | 'useUplinkSwitch'> | null;
}

// Network names as authors type them: one rule with the topology diagram's (src/domain).
export { networkNames };

/**
 * One NIC per network name, in order: existing NICs keep their settings with the new net, extra
 * ones are added with the first NIC's adapter type, surplus ones are dropped. No names: unchanged.
 */
export function withNetworks(eth: VmNet[], names: string[]): VmNet[] {
  if (names.length === 0) return eth;
  const type = eth[0]?.Type ?? null;
  return names.map((net, i) => {
    const existing = eth[i];
    if (existing) return { ...existing, Net: net };
    return { Id: i, Net: net, Key: null, Type: type, Mac: null, Ip: null, Vlan: 0 };
  });
}

/**
 * Guest settings from the template's `guestinfo`: `key=value` entries separated by ';' or line
 * breaks. Keys get the `guestinfo.` prefix the hypervisor expects; entries commented out with
 * '#', without '=' or without a key are skipped.
 */
export function guestSettings(guestinfo: string): VmKeyValue[] {
  const settings: VmKeyValue[] = [];
  for (const entry of guestinfo.split(/[;\r\n]+/)) {
    const eq = entry.indexOf('=');
    if (eq < 0) continue;
    const key = entry.slice(0, eq).trim();
    if (!key || key.startsWith('#')) continue;
    settings.push({
      Key: key.startsWith('guestinfo.') ? key : `guestinfo.${key}`,
      Value: entry.slice(eq + 1).trim(),
    });
  }
  return settings;
}

/** The detail a template deploys from: its own, or its parent's when linked or empty. */
function baseDetail(source: DeployableSource): VmTemplate {
  const { template, parentDetail } = source;
  const own = template.isLinked ? null : template.detail;
  const text = own?.trim() ? own : parentDetail?.trim() ? parentDetail : null;
  // A template whose parent is gone (and that has no detail) deploys the default machine, as
  // unlinking it would give it.
  return text ? parseDetail(text) : defaultDetail(template.name);
}

export function toDeployable(source: DeployableSource): VmTemplate {
  const { template, tag, workspace } = source;
  const detail = baseDetail(source);
  const hostAffinity = workspace ? !!workspace.hostAffinity : detail.HostAffinity;
  return {
    ...detail,
    Id: template.id,
    Name: template.name,
    IsolationTag: tag,
    Iso: template.iso,
    Eth: withNetworks(detail.Eth, networkNames(template.networks)),
    GuestSettings: [...(detail.GuestSettings ?? []), ...guestSettings(template.guestinfo)],
    UseUplinkSwitch: workspace ? !!workspace.useUplinkSwitch : detail.UseUplinkSwitch,
    HostAffinity: hostAffinity,
    // Machines kept together on one host are started together once all of them exist.
    AutoStart: workspace?.hostAffinity ? false : detail.AutoStart,
  };
}

/** Memory of a template that names none (Ram 0 or less): what a small Linux guest needs. */
export const DEFAULT_MEMORY_MIB = 512;

/** "{sockets}x{coresPerSocket}" (a bare number is that many sockets); one core when unreadable. */
export function cpuOf(cpu: string | null): CpuSpec {
  const match = /^\s*(\d+)\s*(?:x\s*(\d+))?\s*$/i.exec(cpu ?? '');
  const sockets = Number(match?.[1] ?? 1);
  const cores = Number(match?.[2] ?? 1);
  return { sockets: Math.max(1, sockets), coresPerSocket: Math.max(1, cores) };
}

/** A complete VmTemplate as the driver's machine spec. */
export function toMachineSpec(template: VmTemplate): MachineSpec {
  const iso = template.Iso ? isoPathOf(template.Iso) : '';
  return {
    templateId: template.Id ?? '',
    name: untagged(template.Name ?? ''),
    isolationTag: template.IsolationTag ?? '',
    cpu: cpuOf(template.Cpu),
    memoryMiB: template.Ram > 0 ? template.Ram * 1024 : DEFAULT_MEMORY_MIB,
    guestOs: template.Guest || null,
    disks: template.Disks.map((d, index) => ({
      index,
      path: d.Path ?? '',
      source: d.Source || null,
      controller: d.Controller || null,
      sizeGiB: d.Size,
    })),
    nics: template.Eth.map((e, index) => ({
      index,
      network: e.Net ?? '',
      adapter: e.Type || null,
      mac: e.Mac || null,
    })),
    guestSettings: (template.GuestSettings ?? [])
      .filter((s) => s.Key)
      .map((s) => ({ key: s.Key ?? '', value: s.Value ?? '' })),
    iso: iso || null,
    bootDelaySeconds: template.Delay,
    autoStart: template.AutoStart,
    hostAffinity: template.HostAffinity,
    useUplink: template.UseUplinkSwitch,
    baseImage: template.Template || null,
    baseImageSource: template.ParentTemplate || null,
    ...(isUefi(template) ? { firmware: 'uefi' as const } : {}),
  };
}
