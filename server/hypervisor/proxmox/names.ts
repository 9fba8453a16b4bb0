import { tagOf, untagged } from '../types';

// How Topoplay's things are named on a Proxmox VE cluster, so that ours are always told from
// everyone else's:
// - every machine and base image of ours carries the PVE tag `topoplay`, and machines also
//   their isolation tag (a GUID fits PVE's tag format);
// - a machine's PVE name is a DNS name made of ours (`web--{tag}`, as the reference writes it);
//   our exact name `web#{tag}` and the base image it was cloned from are in its description,
//   which PVE keeps as it is;
// - a vnet's alias is `{net}--{tag}` (PVE aliases cannot hold '#'); its id is a short one of
//   ours, since PVE allows eight characters.

/** The PVE tag of everything Topoplay made. */
export const OWN_TAG = 'topoplay';
/** The PVE tag of a base image a save replaced; it is removed once no clone uses it. */
export const RETIRED_TAG = 'topoplay-retired';
/** The snapshot a machine goes back to on revert: taken at deploy, replaced on save. */
export const SNAPSHOT = 'topoplay';

/** What a machine's description holds, on its line after MARKER. */
export interface MachineMeta {
  /** Our name, `{template}#{isolationTag}`. */
  name: string;
  /** The VMID of the base image it was cloned from. */
  source: number;
  /** Network of each NIC by index (`lan#{tag}`, a reserved net, or '' when not connected). */
  nets: string[];
  /** When its deploy began (epoch ms). */
  since?: number;
  /** Its deploy configured it: a machine without it is still being deployed, or was abandoned. */
  ready?: boolean;
}

const MARKER = 'topoplay-machine:';

export function describeMachine(meta: MachineMeta): string {
  return `Topoplay machine ${meta.name} (managed by Topoplay: do not edit)\n${MARKER}${JSON.stringify(meta)}`;
}

/** The meta of a description written by describeMachine; null for anything else. */
export function machineMetaOf(description: string | undefined): MachineMeta | null {
  if (!description) return null;
  // The last line with the marker: the first line holds the name, which may contain it too.
  const line = description
    .split('\n')
    .reverse()
    .find((l) => l.startsWith(MARKER));
  if (!line) return null;
  try {
    const meta = JSON.parse(line.slice(MARKER.length)) as unknown;
    if (!meta || typeof meta !== 'object') return null;
    const { name, source, nets, since, ready } = meta as Record<string, unknown>;
    if (typeof name !== 'string' || typeof source !== 'number' || !Array.isArray(nets)) return null;
    return {
      name,
      source,
      nets: nets.map((n) => (typeof n === 'string' ? n : '')),
      ...(typeof since === 'number' ? { since } : {}),
      ...(ready === true ? { ready } : {}),
    };
  } catch {
    return null;
  }
}

/** Text as a DNS label part: lower case letters, digits and single dashes. */
function dnsPart(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The PVE name of a machine: readable, a valid DNS name, unique with its tag. */
export function pveNameOf(name: string): string {
  const base = dnsPart(untagged(name)).slice(0, 40).replace(/-+$/, '') || 'vm';
  const tag = dnsPart(tagOf(name));
  return tag ? `${base}--${tag}` : base;
}

/** An isolation tag as a PVE tag (lower case; characters PVE refuses become '_'). */
export function pveTagOf(tag: string): string {
  const text = tag.toLowerCase().replace(/[^a-z0-9_+.-]/g, '_');
  return /^[a-z0-9_]/.test(text) ? text : `_${text}`;
}

/** PVE's tag list (`a;b`, also written with commas or spaces) as an array. */
export const tagList = (tags: string | undefined): string[] =>
  (tags ?? '').split(/[;, ]+/).filter(Boolean);

/** The vnet alias of an isolated net `lan#{tag}`. */
export const aliasOf = (net: string): string => `${untagged(net)}--${tagOf(net)}`;

/** The net of a vnet alias made by aliasOf, or null when the alias is not ours. */
export function netOfAlias(alias: string | undefined): string | null {
  if (!alias) return null;
  const at = alias.lastIndexOf('--');
  if (at <= 0 || at + 2 >= alias.length) return null;
  return `${alias.slice(0, at)}#${alias.slice(at + 2)}`;
}

/** The PVE volume of an ISO path `{tag}/x.iso` on a flat ISO storage (`{tag}__x.iso`). */
export function isoVolumeOf(storage: string, path: string): string {
  const slash = path.indexOf('/');
  const flat = slash < 0 ? path : `${path.slice(0, slash)}__${path.slice(slash + 1)}`;
  return `${storage}:iso/${flat}`;
}

/** The ISO path of a PVE volume `{storage}:iso/{tag}__x.iso`, or null when it is not one of ours. */
export function isoPathOf(volid: string): string | null {
  const match = /^[^:]+:iso\/(.+)$/.exec(volid);
  if (!match) return null;
  const file = match[1]!;
  const at = file.indexOf('__');
  if (at <= 0) return null;
  return `${file.slice(0, at)}/${file.slice(at + 2)}`;
}
