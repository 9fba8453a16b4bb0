import { join } from 'node:path';
import { isoFilesOf } from '../isos';
import { DriverError } from '../types';

export { netOptions } from '../types';

// Network choices, NIC changes and the ISO list of a sim machine (wire reference §4.1, §4.9,
// §4.11). The isolation of nets (`isolatedNet`) is every driver's and lives in ../types.

/** Nets a privileged (builder) deploy may attach untouched, shared by every lab. */
export const DEFAULT_RESERVED_NETS = ['bridge-net'];

/** The NICs after setting one; an index past the machine's NICs is refused. */
export function withNet(nics: readonly string[], index: number, net: string): string[] {
  if (index >= nics.length) throw new DriverError('invalid-request', `no NIC ${index}`);
  return nics.map((n, i) => (i === index ? net : n));
}

/** ISO files of the tag's folder and the public folder, as paths relative to `{dataDir}/isos`. */
export const isoOptions = (dataDir: string, tag: string): Promise<string[]> =>
  isoFilesOf(join(dataDir, 'isos'), tag);
