import {
  link,
  mkdir,
  open,
  readdir,
  readFile,
  rm,
  stat,
  statfs,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { realClock, type Clock } from '../clock';
import {
  checkImage,
  convertToQcow2,
  extractFirstVmdk,
  FORMAT_OF_EXTENSION,
  qemuImg,
  refused,
} from './diskImageCheck';
import { notFound } from './errors';
import { newToken } from './ids';
import { MIN_FREE_BYTES } from './images';
import { STAGING_PREFIX } from './staging';

// Disk images imported by administrators (issue 31) into the qemu driver's images folder, where
// templates name them in their detail's `Disks[].Path` (as the tiny stock template names
// `topoplay-tiny.qcow2`). A multi-gigabyte file comes in chunks, each written at the offset the
// upload has reached, so that an upload cut off resumes where it stopped. Its staging folder
// `{images}/.upload-disk-{token}/` holds what arrived (`data`) and what was declared
// (`meta.json`); once complete, it is checked (diskImageCheck.ts), converted to qcow2 beside it
// and linked into place, and the staging folder goes whatever the outcome.

/** The most a chunk may carry; the SPA sends CHUNK_BYTES (src/api/diskImages.ts). */
export const MAX_CHUNK_BYTES = 64 * 1024 * 1024;
/** An upload left without a chunk for this long is removed (it may resume until then). */
export const DISK_UPLOAD_TTL_MS = 24 * 3_600_000;
/** The largest virtual size an image may declare. */
export const MAX_VIRTUAL_BYTES = 2 * 1024 ** 4;
/** The formats the qemu driver runs, and so those listed. */
const LISTED = /\.(qcow2|raw|img)$/i;
const UPLOAD_PREFIX = `${STAGING_PREFIX}disk-`;
const NAME_RULE = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;

export interface DiskUpload {
  id: string;
  /** The name of the image it becomes (always .qcow2). */
  name: string;
  size: number;
  received: number;
}

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

interface UploadMeta {
  name: string;
  size: number;
  source: string;
}

/** The image an upload of this name becomes, or a refusal naming what is wrong with it. */
export function importedName(name: unknown): { name: string; source: string } {
  if (typeof name !== 'string' || !NAME_RULE.test(name) || name.includes('..')) {
    throw refused(
      `${JSON.stringify(String(name).slice(0, 120))} is not a safe file name: use letters, ` +
        "digits, '.', '-' and '_', starting with a letter or digit.",
    );
  }
  const dot = name.lastIndexOf('.');
  const ext = dot < 0 ? '' : name.slice(dot + 1).toLowerCase();
  if (!Object.hasOwn(FORMAT_OF_EXTENSION, ext)) {
    throw refused(`${name} is not a disk image this server imports: qcow2, raw, vmdk, vdi or ova.`);
  }
  return { name: `${name.slice(0, dot)}.qcow2`, source: name };
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

const bytes = (n: number) => `${n.toLocaleString('en-US')} bytes`;

export function createDiskImageStore(options: DiskImageStoreOptions) {
  const { imagesDir, maxBytes } = options;
  const minFree = options.minFreeBytes ?? MIN_FREE_BYTES;
  const maxVirtual = options.maxVirtualBytes ?? MAX_VIRTUAL_BYTES;
  const tool = { command: options.qemuImg };
  const clock = options.clock ?? realClock;
  const freeBytes =
    options.freeBytes ??
    (async (dir: string) => {
      const fs = await statfs(dir);
      return Number(fs.bavail) * Number(fs.bsize);
    });
  /** Uploads with a chunk or the completion under way in this process. */
  const busy = new Set<string>();

  const folderOf = (id: string) => join(imagesDir, `${STAGING_PREFIX}${id}`);
  const dataOf = (id: string) => join(folderOf(id), 'data');

  async function assertRoom(needed: number, what: string): Promise<void> {
    if ((await freeBytes(imagesDir)) - needed < minFree) {
      throw refused(
        `There is not enough free disk space on the server for ${what}: ${bytes(needed)} ` +
          `would leave less than the ${bytes(minFree)} it keeps free.`,
      );
    }
  }

  async function metaOf(id: unknown): Promise<{ id: string; meta: UploadMeta }> {
    if (typeof id !== 'string' || !/^disk-[0-9a-f]{32}$/.test(id)) throw notFound();
    try {
      const meta = JSON.parse(
        await readFile(join(folderOf(id), 'meta.json'), 'utf8'),
      ) as UploadMeta;
      return { id, meta };
    } catch {
      throw notFound();
    }
  }

  async function receivedOf(id: string): Promise<number> {
    return (await stat(dataOf(id)).catch(() => ({ size: 0 }))).size;
  }

  async function exclusively<T>(id: string, work: () => Promise<T>): Promise<T> {
    if (busy.has(id)) {
      throw refused('Another chunk of this upload is being written: wait for it to finish.');
    }
    busy.add(id);
    try {
      return await work();
    } finally {
      busy.delete(id);
    }
  }

  async function exists(path: string): Promise<boolean> {
    return stat(path).then(
      () => true,
      () => false,
    );
  }

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

  /** Removes uploads without a chunk for DISK_UPLOAD_TTL_MS; returns how many. */
  async function removeStale(staleMs = DISK_UPLOAD_TTL_MS): Promise<number> {
    let removed = 0;
    const entries = await readdir(imagesDir).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!entry.startsWith(UPLOAD_PREFIX)) continue;
      const id = entry.slice(STAGING_PREFIX.length);
      if (busy.has(id)) continue;
      const changed = await stat(join(imagesDir, entry, 'data'))
        .catch(() => stat(join(imagesDir, entry)))
        .catch(() => null);
      if (changed && clock.now() - changed.mtimeMs < staleMs) continue;
      await rm(join(imagesDir, entry), { recursive: true, force: true });
      removed++;
    }
    return removed;
  }

  const upload = async (id: string, meta: UploadMeta): Promise<DiskUpload> => ({
    id,
    name: meta.name,
    size: meta.size,
    received: await receivedOf(id),
  });

  return {
    /** POST /api/admin/diskimage: a new upload of `size` bytes that becomes the image `name`. */
    async start(request: { name?: unknown; size?: unknown }): Promise<DiskUpload> {
      const { name, source } = importedName(request.name);
      const size = request.size;
      if (typeof size !== 'number' || !Number.isInteger(size) || size <= 0) {
        throw refused('The upload must declare its size in bytes.');
      }
      if (size > maxBytes)
        throw refused(`The file is larger than the limit of ${bytes(maxBytes)}.`);
      await mkdir(imagesDir, { recursive: true });
      // Uploads given up long ago make room first.
      await removeStale();
      if (await exists(join(imagesDir, name))) {
        throw refused(`There is already an image named ${name}: delete it or rename the file.`);
      }
      // The upload and its converted copy are on the disk together for a while.
      await assertRoom(size * 2, 'this image and its converted copy');
      const id = `disk-${newToken()}`;
      await mkdir(folderOf(id));
      const meta: UploadMeta = { name, size, source };
      await writeFile(join(folderOf(id), 'meta.json'), JSON.stringify(meta));
      await writeFile(dataOf(id), '');
      return { id, name, size, received: 0 };
    },

    /** GET /api/admin/diskimage/{id}: how much has arrived, where the next chunk starts. */
    async status(id: unknown): Promise<DiskUpload> {
      const found = await metaOf(id);
      return upload(found.id, found.meta);
    },

    /**
     * PUT /api/admin/diskimage/{id}/chunk?offset=N: the bytes from N on. A chunk must start
     * where the upload has reached; what arrives before a failure stays, so a resumed upload
     * asks `status` and goes on from there.
     */
    async writeChunk(id: unknown, offset: number, body: Readable): Promise<DiskUpload> {
      const found = await metaOf(id);
      return exclusively(found.id, async () => {
        const { meta } = found;
        const received = await receivedOf(found.id);
        if (offset !== received) {
          throw refused(
            `The chunk starts at byte ${offset}, but the upload has ${received} bytes: ` +
              `send the next chunk from offset ${received}.`,
          );
        }
        const limit = Math.min(meta.size - offset, MAX_CHUNK_BYTES);
        let seen = 0;
        const counter = new Transform({
          transform(chunk: Buffer, _encoding, done) {
            seen += chunk.length;
            if (seen > limit) {
              return done(
                refused(
                  `The chunk is larger than ${bytes(limit)}: the upload declared ` +
                    `${bytes(meta.size)} and a chunk carries at most ${bytes(MAX_CHUNK_BYTES)}.`,
                ),
              );
            }
            done(null, chunk);
          },
        });
        const file = await open(dataOf(found.id), 'r+');
        await pipeline(body, counter, file.createWriteStream({ start: offset }));
        return upload(found.id, meta);
      });
    },

    /**
     * POST /api/admin/diskimage/{id}/complete: checks the whole upload, converts it to qcow2 and
     * puts it in the images folder. Refused or not, the upload is gone afterwards.
     */
    async complete(id: unknown): Promise<DiskImageDto> {
      const found = await metaOf(id);
      return exclusively(found.id, async () => {
        const { meta } = found;
        const folder = folderOf(found.id);
        try {
          const received = await receivedOf(found.id);
          if (received !== meta.size) {
            throw refused(
              `The upload has ${bytes(received)} of ${bytes(meta.size)}: send the rest first.`,
            );
          }
          const ext = meta.source.slice(meta.source.lastIndexOf('.') + 1).toLowerCase();
          const format = FORMAT_OF_EXTENSION[ext];
          if (!format) throw refused(`${meta.source} is not a disk image this server imports.`);
          let input = dataOf(found.id);
          if (ext === 'ova') {
            await assertRoom(meta.size, 'the disk in this OVA');
            const disk = join(folder, 'disk.vmdk');
            await extractFirstVmdk(input, disk, maxBytes);
            await rm(input, { force: true });
            input = disk;
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
        } finally {
          await rm(folder, { recursive: true, force: true });
        }
        return describe(meta.name, await usage());
      });
    },

    /** DELETE /api/admin/diskimage/{id}/upload: an upload given up. False when there is none. */
    async abandon(id: unknown): Promise<boolean> {
      const found = await metaOf(id).catch(() => null);
      if (!found) return false;
      if (busy.has(found.id)) throw refused('The upload is busy: try again when it is idle.');
      await rm(folderOf(found.id), { recursive: true, force: true });
      return true;
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
      const names = entries
        .filter((e) => e.isFile() && !e.name.startsWith('.') && LISTED.test(e.name))
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

    removeStale,
  };
}

export type DiskImageStore = ReturnType<typeof createDiskImageStore>;
