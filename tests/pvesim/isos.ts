import { createHash } from 'node:crypto';

// The ISO images on storage 'local' of the PVE API SIMULATOR's nodes (tests only). PVE's 'local'
// is a directory on each node's own disk (a `dir` storage, not shared), so every node has its own
// set: a seeded image is on every node, an uploaded one only on the node it was uploaded to, and
// a delete removes it from one node. Tests read sizes and hashes to check what a driver uploaded.

export interface IsoFile {
  /** `local:iso/name.iso` */
  volid: string;
  size: number;
  /** Hex SHA-256 of the content. */
  sha256: string;
  /** When it was written, in seconds since the epoch (PVE's `ctime`). */
  ctime: number;
}

export interface IsoShelves {
  /** The node's images, sorted by volid; [] for a node the cluster does not have. */
  list(node: string): IsoFile[];
  get(node: string, volid: string): IsoFile | undefined;
  /** Writes an image on one node, replacing one of the same volid (PVE's upload overwrites). */
  put(node: string, file: IsoFile): void;
  /** False when the node had no such image. */
  remove(node: string, volid: string): boolean;
  /** Puts a seeded image on every node. */
  seed(volid: string): void;
}

/** A seeded image stands for 4 MiB of zeros: it has the size and hash of such a file. */
export const SEEDED_ISO_BYTES = 4 * 1024 * 1024;

// Hashing 4 MiB takes a few milliseconds: done once, when the first image is seeded.
let seededSha256: string | undefined;
const zerosSha256 = (): string =>
  (seededSha256 ??= createHash('sha256').update(Buffer.alloc(SEEDED_ISO_BYTES)).digest('hex'));

const nowSeconds = (): number => Math.floor(Date.now() / 1000);

export function createIsoShelves(nodes: string[], seeded: string[]): IsoShelves {
  const shelves = new Map(nodes.map((node) => [node, new Map<string, IsoFile>()]));

  const seed = (volid: string) => {
    const file = { volid, size: SEEDED_ISO_BYTES, sha256: zerosSha256(), ctime: nowSeconds() };
    for (const shelf of shelves.values()) shelf.set(volid, { ...file });
  };
  for (const volid of seeded) seed(volid);

  return {
    list: (node) =>
      [...(shelves.get(node)?.values() ?? [])]
        .map((file) => ({ ...file }))
        // Code-unit order, as a plain sort of the names.
        .sort((a, b) => (a.volid < b.volid ? -1 : a.volid > b.volid ? 1 : 0)),
    get: (node, volid) => {
      const file = shelves.get(node)?.get(volid);
      return file ? { ...file } : undefined;
    },
    put: (node, file) => void shelves.get(node)?.set(file.volid, { ...file }),
    remove: (node, volid) => shelves.get(node)?.delete(volid) ?? false,
    seed,
  };
}
