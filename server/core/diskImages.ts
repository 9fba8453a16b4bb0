import { link, readdir, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { realClock, type Clock } from '../clock';
import {
  checkImage,
  convertToQcow2,
  FORMAT_OF_EXTENSION,
  qemuImg,
  refused,
} from './diskImageCheck';
import { bytes, createDiskUploads, NAME_RULE, type DiskUpload } from './diskUploads';
import { MIN_FREE_BYTES } from './images';
import { extractFirstVmdk } from './ovaArchive';

export { DISK_UPLOAD_TTL_MS, importedName, MAX_CHUNK_BYTES, type DiskUpload } from './diskUploads';

// Disk images imported by administrators (issue 31) into the qemu driver's images folder, where
// templates name them in their detail's `Disks[].Path` (as the tiny stock template names
// `topoplay-tiny.qcow2`). A multi-gigabyte file comes in resumable chunks (diskUploads.ts); once
// complete, it is checked (diskImageCheck.ts; an OVA's disk is cut out first, ovaArchive.ts),
// converted to qcow2 beside it and linked into place, and its staging folder goes whatever the
// outcome. The list names the templates using each image, and an image in use stays.

/** The largest virtual size an image may declare. */
export const MAX_VIRTUAL_BYTES = 2 * 1024 ** 4;
/** The formats the qemu driver runs, and so those listed. */
const LISTED = /\.(qcow2|raw|img)$/i;

export interface DiskImageUser {
  id: string;
  name: string;
  workspaceName: string | null;
}

export interface DiskImageDto {
  name: string;
  /** Bytes on disk. */
  size: number;
  /** The disk's size as a guest sees it; null when qemu-img cannot tell. */
  virtualSize: number | null;
  /** Templates whose detail names it as a disk's Path or Source. */
  templates: DiskImageUser[];
}

/** Every template with its own detail (linked ones have none and deploy their parent's). */
export type TemplatesWithDetail = () => Promise<
  Array<{ id: string; name: string; workspaceName: string | null; detail: string | null }>
>;

export interface DiskImageStoreOptions {
  /** The qemu driver's images folder (QEMU_IMAGES_DIR). */
  imagesDir: string;
  /** The largest upload (UPLOAD_MAX_BYTES). */
  maxBytes: number;
  templates: TemplatesWithDetail;
  /** Free space to keep on the disk (MIN_FREE_BYTES). */
  minFreeBytes?: number;
  maxVirtualBytes?: number;
  qemuImg?: string;
  clock?: Clock;
  /** Free bytes of the folder's disk (statfs); tests give a smaller disk. */
  freeBytes?: (dir: string) => Promise<number>;
}

/** The disk paths a template detail names (Path and Source of each of its Disks). */
export function diskPathsOf(detail: string | null): string[] {
  if (!detail) return [];
  try {
    const parsed = JSON.parse(detail) as { Disks?: unknown; disks?: unknown };
    const disks = parsed.Disks ?? parsed.disks;
    if (!Array.isArray(disks)) return [];
    return disks.flatMap((d: Record<string, unknown>) =>
      [d.Path ?? d.path, d.Source ?? d.source].filter(
        (p): p is string => typeof p === 'string' && p !== '',
      ),
    );
  } catch {
    return [];
  }
}

export function createDiskImageStore(options: DiskImageStoreOptions) {
  const { imagesDir, maxBytes } = options;
  const minFree = options.minFreeBytes ?? MIN_FREE_BYTES;
  const maxVirtual = options.maxVirtualBytes ?? MAX_VIRTUAL_BYTES;
  const tool = { command: options.qemuImg };
  const freeBytes =
    options.freeBytes ??
    (async (dir: string) => {
      const fs = await statfs(dir);
      return Number(fs.bavail) * Number(fs.bsize);
    });

  async function assertRoom(needed: number, what: string): Promise<void> {
    if ((await freeBytes(imagesDir)) - needed < minFree) {
      throw refused(
        `There is not enough free disk space on the server for ${what}: ${bytes(needed)} ` +
          `would leave less than the ${bytes(minFree)} it keeps free.`,
      );
    }
  }

  const uploads = createDiskUploads({
    imagesDir,
    maxBytes,
    clock: options.clock ?? realClock,
    assertRoom,
  });

  async function describe(name: string, users: Map<string, DiskImageUser[]>) {
    const path = join(imagesDir, name);
    const info = await stat(path);
    let virtualSize: number | null = null;
    try {
      const format = /\.qcow2$/i.test(name) ? 'qcow2' : 'raw';
      // -U: an image a running machine has open is still described.
      const out = await qemuImg(['info', '-U', '-f', format, '--output=json', path], tool);
      virtualSize = (JSON.parse(out) as { 'virtual-size'?: number })['virtual-size'] ?? null;
    } catch {
      virtualSize = null;
    }
    return { name, size: info.size, virtualSize, templates: users.get(name) ?? [] };
  }

  /** The templates naming each image, by image name. */
  async function usage(): Promise<Map<string, DiskImageUser[]>> {
    const users = new Map<string, DiskImageUser[]>();
    for (const t of await options.templates()) {
      for (const path of new Set(diskPathsOf(t.detail))) {
        const list = users.get(path) ?? [];
        list.push({ id: t.id, name: t.name, workspaceName: t.workspaceName });
        users.set(path, list);
      }
    }
    return users;
  }

  return {
    /** POST /api/admin/diskimage: a new upload of `size` bytes that becomes the image `name`. */
    start: (request: { name?: unknown; size?: unknown }): Promise<DiskUpload> =>
      uploads.start(request),

    /** GET /api/admin/diskimage/{id}: how much has arrived, where the next chunk starts. */
    status: (id: unknown): Promise<DiskUpload> => uploads.status(id),

    /**
     * PUT /api/admin/diskimage/{id}/chunk?offset=N: the bytes from N on. A chunk must start
     * where the upload has reached; what arrives before a failure stays, so a resumed upload
     * asks `status` and goes on from there.
     */
    writeChunk: (id: unknown, offset: number, body: Readable): Promise<DiskUpload> =>
      uploads.writeChunk(id, offset, body),

    /** DELETE /api/admin/diskimage/{id}/upload: an upload given up. False when there is none. */
    abandon: (id: unknown): Promise<boolean> => uploads.abandon(id),

    /** Removes uploads without a chunk for DISK_UPLOAD_TTL_MS; returns how many. */
    removeStale: (staleMs?: number): Promise<number> => uploads.removeStale(staleMs),

    /**
     * POST /api/admin/diskimage/{id}/complete: checks the whole upload, converts it to qcow2 and
     * puts it in the images folder. Refused or not, the upload is gone afterwards.
     */
    async complete(id: unknown): Promise<DiskImageDto> {
      const meta = await uploads.finish(id, async ({ meta, folder, data, received }) => {
        if (received !== meta.size) {
          throw refused(
            `The upload has ${bytes(received)} of ${bytes(meta.size)}: send the rest first.`,
          );
        }
        const ext = meta.source.slice(meta.source.lastIndexOf('.') + 1).toLowerCase();
        const format = FORMAT_OF_EXTENSION[ext];
        if (!format) throw refused(`${meta.source} is not a disk image this server imports.`);
        let input = data;
        if (ext === 'ova') {
          await assertRoom(meta.size, 'the disk in this OVA');
          input = join(folder, 'disk.vmdk');
          await extractFirstVmdk(data, input, maxBytes);
          await rm(data, { force: true });
        }
        await checkImage(input, format, maxVirtual, tool);
        await assertRoom(meta.size, 'the converted image');
        const converted = join(folder, 'converted.qcow2');
        await convertToQcow2(input, format, converted, tool);
        if ((await freeBytes(imagesDir)) < minFree) {
          throw refused(`The converted image would leave less than ${bytes(minFree)} free.`);
        }
        // A link fails when the name is taken meanwhile, where a rename would replace it.
        await link(converted, join(imagesDir, meta.name)).catch((error: unknown) => {
          if ((error as NodeJS.ErrnoException).code === 'EEXIST') {
            throw refused(`There is already an image named ${meta.name}.`);
          }
          throw error;
        });
        return meta;
      });
      return describe(meta.name, await usage());
    },
    /** GET /api/admin/diskimages: the images the qemu driver can run, by name. */
    async list(): Promise<DiskImageDto[]> {
      let entries;
      try {
        entries = await readdir(imagesDir, { withFileTypes: true });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const users = await usage();
      // A link to an image kept elsewhere (another disk, `npm run images`' cache) runs like the
      // file itself, so it is listed like it.
      const isImage = async (e: (typeof entries)[number]) =>
        e.isFile() ||
        (e.isSymbolicLink() &&
          Boolean((await stat(join(imagesDir, e.name)).catch(() => null))?.isFile()));
      const candidates = entries.filter((e) => !e.name.startsWith('.') && LISTED.test(e.name));
      const kept = await Promise.all(candidates.map(isImage));
      const names = candidates
        .filter((_, i) => kept[i])
        .map((e) => e.name)
        .sort();
      return Promise.all(names.map((name) => describe(name, users)));
    },

    /**
     * DELETE /api/admin/diskimage/{name}: refused while a template names it; false when there
     * is no such image.
     */
    async remove(name: unknown): Promise<boolean> {
      if (typeof name !== 'string' || !NAME_RULE.test(name) || !LISTED.test(name)) return false;
      const path = join(imagesDir, name);
      if (!(await stat(path).catch(() => null))?.isFile()) return false;
      const users = (await usage()).get(name) ?? [];
      if (users.length > 0) {
        const names = users.map((u) =>
          u.workspaceName ? `${u.name} (${u.workspaceName})` : u.name,
        );
        throw refused(
          `${name} is in use by ${users.length === 1 ? 'the template' : 'the templates'} ` +
            `${names.join(', ')}: change their disks before deleting it.`,
        );
      }
      await rm(path);
      return true;
    },
  };
}

export type DiskImageStore = ReturnType<typeof createDiskImageStore>;
