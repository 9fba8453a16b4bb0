import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../clock';
import { DriverError, type DiskSpec, type MachineSpec } from '../types';
import type { PveClient } from './client';
import type { Inventory } from './inventory';
import { createStorageNodes } from './storageNodes';

// Disk images imported by an administrator (the Disk Images panel puts them in this server's
// images folder, QEMU_IMAGES_DIR) as the disks of machines on the cluster. A template that names
// no VM template to clone (no `Template`) and whose disk names such an image, as the qemu driver
// reads it (its `Path`, or its `Source` once a workspace's copy was unlinked from it: a plain
// `web.qcow2`), gets new VMs whose disk PVE imports from the image (`scsi0:
// {storage}:0,import-from={image storage}:import/web.qcow2`, PVE 8). The image reaches the
// cluster when the template is initialized: it is uploaded with content `import` to the image
// storage (PROXMOX_IMAGE_STORAGE; on every allowed node unless it is shared, as ISOs are) from
// the images folder, with its progress, or by the first deploy that needs it. A deploy whose
// image is neither on its node's storage nor in the images folder is refused, naming the image.

/**
 * A file name PVE takes as a disk image to import (pve-storage's SAFE_CHAR_CLASS_RE and
 * UPLOAD_IMPORT_EXT_RE_1, less `ova`, whose disks are cut out when it is imported here).
 */
const IMPORTABLE = /^[A-Za-z0-9][A-Za-z0-9._+=-]*\.(?:qcow2|raw|vmdk)$/;

/** The imported image a disk starts from: its source, or else its path; null for none. */
export function imageOfDisk(disk: Pick<DiskSpec, 'path' | 'source'>): string | null {
  for (const candidate of [disk.source, disk.path]) {
    const name = candidate?.trim();
    if (name && IMPORTABLE.test(name)) return name;
  }
  return null;
}

/** The images a spec's disks start from, each once. */
export const imagesOf = (spec: MachineSpec): string[] => [
  ...new Set(spec.disks.map(imageOfDisk).filter((name): name is string => name !== null)),
];

/**
 * Whether the spec's machines are new VMs whose disks are imported images (and empty disks of a
 * size for the others) rather than linked clones: no VM template is named.
 */
export const startsFromImages = (spec: MachineSpec): boolean =>
  !spec.baseImage &&
  imagesOf(spec).length > 0 &&
  spec.disks.every((d) => imageOfDisk(d) !== null || d.sizeGiB > 0);

/** The PVE volume of an image on a storage with `import` content. */
export const importVolumeOf = (storage: string, name: string): string =>
  `${storage}:import/${name}`;

export interface ImportedImagesOptions {
  api: Pick<PveClient, 'get' | 'upload' | 'waitTask'>;
  inventory: Pick<Inventory, 'nodes'>;
  /** The storage with `import` content the images are uploaded to. */
  storage: string;
  /** Nodes machines may run on; empty: every online node. */
  nodes: readonly string[];
  /** This server's images folder; null: images are put on the cluster by hand only. */
  imagesDir: string | null;
  clock: Clock;
  log?: { warn(o: object, msg?: string): void };
}

interface Upload {
  progress: number;
  started: number;
  /** Settles when the upload has ended, however it ended. */
  done: Promise<void>;
}

export function createImportedImages(options: ImportedImagesOptions) {
  const { api, storage, imagesDir } = options;
  const placement = createStorageNodes(options);
  /** Uploads under way, by image name. */
  const uploads = new Map<string, Upload>();

  const volumesOn = async (node: string): Promise<Set<string>> =>
    new Set(
      (
        await api.get<Array<{ volid: string }>>(`/nodes/${node}/storage/${storage}/content`, {
          content: 'import',
        })
      ).map((c) => c.volid),
    );

  /** The spec's images missing from the storage, with the nodes that lack each. */
  async function missing(spec: MachineSpec): Promise<Map<string, string[]>> {
    const names = imagesOf(spec);
    const lacking = new Map<string, string[]>();
    for (const node of await placement.copiesOn(storage)) {
      const there = await volumesOn(node);
      for (const name of names) {
        if (there.has(importVolumeOf(storage, name))) continue;
        lacking.set(name, [...(lacking.get(name) ?? []), node]);
      }
    }
    return lacking;
  }

  /** The spec's images not on `node`'s storage. */
  async function absentOn(spec: MachineSpec, node: string): Promise<string[]> {
    const there = await volumesOn(node);
    return imagesOf(spec).filter((name) => !there.has(importVolumeOf(storage, name)));
  }

  /** The image's file in this server's images folder, when it is there. */
  async function localFile(name: string): Promise<string | null> {
    if (!imagesDir) return null;
    const path = join(imagesDir, name);
    return (await stat(path).catch(() => null))?.isFile() ? path : null;
  }

  const nowhere = (name: string): string =>
    `The disk image ${name} is not on the Proxmox storage ${storage} (content import)` +
    (imagesDir
      ? " nor in this server's images folder: an administrator imports it in the Disk Images " +
        'panel (Admin · Templates).'
      : ': an administrator uploads it there (docs/drivers.md).');

  /** Uploads a file as the image `name` to the nodes given (or every one that needs it). */
  async function storeImage(
    name: string,
    file: string,
    nodes?: string[],
    onProgress: (percent: number) => void = () => undefined,
  ): Promise<void> {
    if (!IMPORTABLE.test(name)) {
      throw new DriverError('invalid-request', `${name} is not a disk image name PVE imports`);
    }
    const targets = nodes ?? (await placement.copiesOn(storage));
    let done = 0;
    for (const node of targets) {
      const upid = await api.upload<string>(
        `/nodes/${node}/storage/${storage}/upload`,
        { content: 'import' },
        { field: 'filename', name, path: file },
      );
      await api.waitTask(upid);
      onProgress(Math.round((++done * 100) / targets.length));
    }
  }

  /** 100 when every image is on the storage; the least upload progress; -1 when one lacks. */
  async function progress(spec: MachineSpec): Promise<number> {
    const lacking = await missing(spec);
    if (lacking.size === 0) return 100;
    let least = 100;
    for (const name of lacking.keys()) {
      const upload = uploads.get(name);
      if (!upload) return -1;
      least = Math.min(least, upload.progress);
    }
    return Math.min(least, 99);
  }

  /** Starts uploading the images the storage lacks from the images folder; the progress. */
  async function create(spec: MachineSpec): Promise<number> {
    for (const [name, nodes] of await missing(spec)) {
      if (uploads.has(name)) continue;
      const file = await localFile(name);
      if (!file) throw new DriverError('invalid-state', nowhere(name));
      // Another call may have started it meanwhile.
      if (uploads.has(name)) continue;
      const upload: Upload = {
        progress: 0,
        started: options.clock.now(),
        done: Promise.resolve(),
      };
      uploads.set(name, upload);
      upload.done = storeImage(name, file, nodes, (p) => (upload.progress = Math.min(99, p)))
        .catch((error: unknown) => {
          options.log?.warn({ err: error, name }, 'proxmox: uploading a disk image failed');
        })
        .finally(() => uploads.delete(name));
    }
    return progress(spec);
  }

  return {
    storeImage,
    progress,

    /** When the upload of one of the spec's images started, while it runs. */
    uploadOf: (spec: MachineSpec): number | null =>
      imagesOf(spec)
        .map((name) => uploads.get(name)?.started)
        .find((started) => started !== undefined) ?? null,

    /** Available when each image is on the storage, on its way there, or can be uploaded. */
    async availability(
      spec: MachineSpec,
    ): Promise<{ available: true } | { available: false; reason: string }> {
      for (const name of (await missing(spec)).keys()) {
        if (!uploads.has(name) && !(await localFile(name))) {
          return { available: false, reason: nowhere(name) };
        }
      }
      return { available: true };
    },

    create,

    /**
     * Refuses a deploy on `node` when one of the spec's images is not on its storage there and
     * cannot get there either: it is not being uploaded, and not in the images folder.
     */
    async assertOn(spec: MachineSpec, node: string): Promise<void> {
      for (const name of await absentOn(spec, node)) {
        if (uploads.has(name) || (await localFile(name))) continue;
        throw new DriverError('invalid-state', nowhere(name));
      }
    },

    /**
     * Waits until the spec's images are on `node`'s storage, uploading those that are not from
     * the images folder first (a deploy before the template was initialized).
     */
    async awaitOn(spec: MachineSpec, node: string): Promise<void> {
      if ((await absentOn(spec, node)).length === 0) return;
      await create(spec);
      await Promise.all(imagesOf(spec).map((name) => uploads.get(name)?.done));
      const absent = (await absentOn(spec, node))[0];
      if (absent === undefined) return;
      throw new DriverError(
        'unavailable',
        `The disk image ${absent} could not be uploaded to the Proxmox storage ${storage} of ` +
          `node ${node} (the server's log says why).`,
      );
    },
  };
}

export type ImportedImages = ReturnType<typeof createImportedImages>;
