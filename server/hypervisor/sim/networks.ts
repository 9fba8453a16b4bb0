import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DomainError } from '../../core/errors';
import { EMPTY_GUID } from '../../core/ids';
import { untagged } from '../driver';

// Network isolation and the option lists of a machine (wire reference §4.1, §4.9, §4.11).

/** Nets a privileged (builder) deploy may attach untouched, shared by every lab. */
export const DEFAULT_RESERVED_NETS = ['bridge-net'];

/** The value of a `net` change that disconnects a NIC. */
const DISCONNECT = '_none_';

/**
 * The net a NIC gets on a machine of `tag`: `X#tag`, so that every gamespace has private copies
 * of `lan`, `wan`, ...; a reserved net stays shared only for privileged deploys. A net already
 * tagged (a template copied from another lab) is re-tagged.
 */
export function isolatedNet(
  net: string | null,
  tag: string,
  privileged: boolean,
  reserved: readonly string[],
): string {
  if (!net) return '';
  if (privileged && reserved.includes(net)) return net;
  return `${untagged(net)}#${tag}`;
}

/** `netName[:index]` of a `net`/`eth` change; the index defaults to 0 and a label is ignored. */
export function parseNetChange(value: string): { net: string; index: number } {
  const colon = value.lastIndexOf(':');
  const suffix = colon < 0 ? '' : value.slice(colon + 1);
  const hasIndex = /^\d+$/.test(suffix);
  const name = (colon < 0 ? value : value.slice(0, colon)).trim();
  return {
    net: name === DISCONNECT ? '' : name,
    index: hasIndex ? Number(suffix) : 0,
  };
}

/** The NICs after setting one; an index past the machine's NICs is refused. */
export function withNet(nics: readonly string[], index: number, net: string): string[] {
  if (index >= nics.length) throw new DomainError('InvalidOperation', `no NIC ${index}`);
  return nics.map((n, i) => (i === index ? net : n));
}

/** Reserved nets plus the tag's own nets, sorted, without duplicates. */
export function netOptions(reserved: readonly string[], nets: readonly string[], tag: string) {
  const own = nets.filter((n) => n.includes(`#${tag}`));
  return [...new Set([...reserved, ...own])].sort();
}

async function isoFilesIn(root: string, folder: string): Promise<string[]> {
  try {
    const entries = await readdir(join(root, folder), { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.iso'))
      .map((e) => `${folder}/${e.name}`);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
}

/** ISO files of the tag's folder and the public folder, as paths relative to `{dataDir}/isos`. */
export async function isoOptions(dataDir: string, tag: string): Promise<string[]> {
  const root = join(dataDir, 'isos');
  // A tag is an id; anything else (a path) must not reach the file system.
  const own = /^[\w-]+$/.test(tag) && tag !== EMPTY_GUID;
  const folders = own ? [tag, EMPTY_GUID] : [EMPTY_GUID];
  const lists = await Promise.all(folders.map((f) => isoFilesIn(root, f)));
  return lists.flat().sort();
}
