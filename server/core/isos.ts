import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, open, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { realClock, type Clock } from '../clock';
import type { HypervisorDriver } from '../hypervisor';
import type { Repositories } from '../store/repositories';
import type { Cache } from './cache';
import { DomainError, forbidden, notFound } from './errors';
import { isActive } from './gamespaces';
import { EMPTY_GUID } from './ids';
import type { Actor } from './actor';
import { STAGING_PREFIX } from './staging';

// The ISO store (wire reference §1.6 "ISO upload protocol", §4.9): `{dataDir}/isos/{folder}/x.iso`
// where the folder is a workspace id or the public zero GUID. Templates name an ISO by its path
// relative to that root ("{folder}/{file}"), which is what the hypervisor drivers mount.

/** The volume label of a file wrapped into an ISO image (as the reference labels it). */
export const WRAPPED_VOLUME_LABEL = 'UploadedFile';

/** The ISO 9660 signature and where it sits: the first volume descriptor, at sector 16, byte 1. */
export const ISO_SIGNATURE = 'CD001';
export const ISO_SIGNATURE_OFFSET = 32_769;

export const XORRISO_MISSING = 'Wrapping a file into an ISO image needs xorriso on the server.';

/** How long an upload's progress stays readable after its last change. */
export const PROGRESS_TTL_MS = 60_000;

const PROGRESS_PREFIX = 'isoprogress:';
const NAME_MAX = 100;
const KEY_MAX = 256;

export interface IsoOptionsDto {
  iso: string[];
  net: null;
}

export interface IsoUsageReport {
  templates: Array<{ id: string; name: string; workspaceName: string | null }>;
  activeGamespaces: Array<{ id: string; name: string }>;
}

/** The URL-encoded metadata of an upload; each non-file section replaces it. */
export interface UploadMeta {
  size: number | null;
  groupKey: string;
  name: string;
  monitorKey: string;
}

export interface IsoStoreOptions {
  dataDir: string;
  cache: Cache;
  /** The largest upload accepted, declared or streamed (UPLOAD_MAX_BYTES). */
  maxBytes: number;
  /** Free space an upload must leave on the disk (UPLOAD_FREE_MARGIN_BYTES). */
  freeMarginBytes: number;
  /** The xorriso command (XORRISO); when it cannot run, only real ISO images are accepted. */
  xorriso: string;
  /** Whether the actor may edit the workspace (ws.CanEdit; admins always may). */
  canEdit(actor: Actor, workspaceId: string): Promise<boolean>;
  workspaceExists(workspaceId: string): Promise<boolean>;
  /**
   * The hypervisor's own ISO storage, when its machines do not read this folder (a Proxmox
   * cluster): a stored upload is copied there before it counts as uploaded, and removed there
   * before it is removed here.
   */
  mirror?: Pick<HypervisorDriver, 'storeIso' | 'removeIso'>;
  /** The server's time: which gamespaces using an ISO are still active. */
  clock?: Clock;
}

/** Metadata section text (`size=N&group-key=WSID&name=..&monitor-key=..`) as upload metadata. */
export function parseUploadMeta(text: string): UploadMeta {
  const params = new URLSearchParams(text);
  const size = Number.parseInt(params.get('size') ?? '', 10);
  return {
    size: Number.isFinite(size) && size >= 0 ? size : null,
    groupKey: (params.get('group-key') ?? '').trim(),
    name: params.get('name') ?? '',
    monitorKey: params.get('monitor-key') ?? '',
  };
}

/**
 * A file name safe to join to a folder: the last path segment, spaces removed (as the reference
 * does), only letters, digits, '-', '_' and '.', and no leading dots (no '..', no hidden files).
 */
export function sanitizeFileName(name: string): string {
  const base = name.split(/[/\\]/).pop() ?? '';
  const clean = base
    .replace(/\s+/g, '')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .replace(/^\.+/, '')
    .slice(-NAME_MAX);
  return clean === '' ? 'upload' : clean;
}

/** The name an upload is stored under: ISO images keep theirs, wrapped files get '.iso' added. */
export function storedIsoName(fileName: string): string {
  return /\.iso$/i.test(fileName) ? fileName : `${fileName}.iso`;
}

/** A folder key is a workspace id or the zero GUID: anything else never reaches the disk. */
const isFolderKey = (key: string) => /^[A-Za-z0-9-]{1,64}$/.test(key);

/** A relative ISO path `{folder}/{file}` split, or null when it is not exactly that. */
export function splitIsoPath(path: string): { folder: string; file: string } | null {
  const parts = path.split('/');
  if (parts.length !== 2) return null;
  const [folder = '', file = ''] = parts;
  if (!isFolderKey(folder) || file === '' || sanitizeFileName(file) !== file) return null;
  return { folder, file };
}

/** The percent of `done` out of `total`, 0..100, or -1 when the total is unknown. */
export function percentOf(done: number, total: number | null): number {
  if (!total || total <= 0) return -1;
  return Math.max(0, Math.min(100, Math.floor((done * 100) / total)));
}

async function hasIsoSignature(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const buf = Buffer.alloc(ISO_SIGNATURE.length);
    const { bytesRead } = await handle.read(buf, 0, buf.length, ISO_SIGNATURE_OFFSET);
    return bytesRead === buf.length && buf.toString('latin1') === ISO_SIGNATURE;
  } finally {
    await handle.close();
  }
}

/** Runs xorriso; resolves false when the command is not installed. */
function wrapIntoIso(xorriso: string, source: string, target: string): Promise<boolean> {
  const args = ['-as', 'mkisofs', '-J', '-R', '-V', WRAPPED_VOLUME_LABEL, '-o', target, source];
  return new Promise((resolve, reject) => {
    execFile(xorriso, args, { timeout: 30 * 60_000 }, (error, _stdout, stderr) => {
      if (!error) return resolve(true);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return resolve(false);
      reject(new Error(`xorriso failed: ${stderr || error.message}`));
    });
  });
}

const refused = (why: string) => new DomainError('InvalidOperation', why);

export function createIsoStore(
  repositories: Pick<Repositories, 'templates' | 'gamespaces'>,
  options: IsoStoreOptions,
) {
  const root = join(options.dataDir, 'isos');
  const { templates, gamespaces } = repositories;
  const clock = options.clock ?? realClock;

  async function isoFilesIn(folder: string): Promise<string[]> {
    try {
      const entries = await readdir(join(root, folder), { withFileTypes: true });
      return entries
        .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.iso'))
        .map((e) => `${folder}/${e.name}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
  }

  /**
   * Who may touch a folder: the public folder is for administrators only; a workspace folder for
   * its editors (the workspace must exist: 400 ResourceNotFound otherwise).
   */
  async function authorizeFolder(actor: Actor, folder: string): Promise<void> {
    if (folder === EMPTY_GUID) {
      if (!actor.isAdmin) throw forbidden();
      return;
    }
    if (!isFolderKey(folder) || !(await options.workspaceExists(folder))) throw notFound();
    if (!(await options.canEdit(actor, folder))) throw forbidden();
  }

  /** The path, when it names a file of this folder; a path elsewhere may not be touched. */
  function ownPath(folder: string, path: string): { folder: string; file: string } {
    const parts = splitIsoPath(path);
    if (!parts || parts.folder !== folder) throw forbidden();
    return parts;
  }

  const progressKey = (key: string) => `${PROGRESS_PREFIX}${key.slice(0, KEY_MAX)}`;

  async function reportProgress(key: string, percent: number): Promise<void> {
    await options.cache.set(progressKey(key), String(percent), PROGRESS_TTL_MS);
  }

  async function assertRoomFor(folder: string, bytes: number): Promise<void> {
    const fs = await statfs(folder);
    const free = Number(fs.bavail) * Number(fs.bsize);
    if (free - bytes < options.freeMarginBytes) {
      throw refused('There is not enough free disk space on the server for this file.');
    }
  }

  /** Counts the bytes going through and fails once they pass the limit or the declared size. */
  function counter(limit: number, onBytes: (n: number) => void): Transform {
    let seen = 0;
    return new Transform({
      transform(chunk: Buffer, _encoding, done) {
        seen += chunk.length;
        if (seen > limit) return done(refused(`The file is larger than ${limit} bytes.`));
        onBytes(seen);
        done(null, chunk);
      },
    });
  }

  /**
   * Whether the actor may upload a file with this metadata: checked for each metadata section as
   * it arrives, so that a refused upload is answered before its file is read, and again for the
   * file. The reference lets any user write to the public folder when the group key is missing or
   * the zero GUID (a quirk): here only administrators may.
   */
  async function authorizeUpload(actor: Actor, meta: UploadMeta): Promise<void> {
    await authorizeFolder(actor, meta.groupKey || EMPTY_GUID);
    if (meta.size !== null && meta.size > options.maxBytes) {
      throw refused(`The file is larger than ${options.maxBytes} bytes.`);
    }
  }

  return {
    /**
     * GET /api/workspace/{id}/isos (VmOptions with `iso`): the workspace's ISOs and the public
     * ones as relative paths; `term` keeps paths containing it (any case), `local` those of the
     * workspace. The folders are read on every call, so `refresh` has nothing to refresh.
     */
    async list(
      actor: Actor,
      workspaceId: string,
      search: { term?: string; local?: boolean },
    ): Promise<IsoOptionsDto> {
      await authorizeFolder(actor, workspaceId);
      const folders = workspaceId === EMPTY_GUID ? [EMPTY_GUID] : [workspaceId, EMPTY_GUID];
      const term = (search.term ?? '').trim().toLowerCase();
      const paths = (await Promise.all(folders.map(isoFilesIn)))
        .flat()
        .filter((p) => !term || p.toLowerCase().includes(term))
        .filter((p) => !search.local || p.includes(workspaceId))
        .sort();
      return { iso: paths, net: null };
    },

    /**
     * GET /api/workspace/{id}/iso-usage?path=: templates mounting the ISO and the active
     * gamespaces of their workspaces. Only paths of the workspace's own folder are answered, so
     * an editor learns nothing about other workspaces' templates through a public ISO.
     */
    async usage(actor: Actor, workspaceId: string, path: string): Promise<IsoUsageReport> {
      await authorizeFolder(actor, workspaceId);
      ownPath(workspaceId, path);
      const users = await templates.usingIso(path);
      const workspaceIds = [
        ...new Set(users.map((t) => t.workspaceId).filter((id): id is string => !!id)),
      ];
      const now = clock.now();
      const games = await gamespaces.ofWorkspaces(workspaceIds);
      return {
        templates: users.map((t) => ({ id: t.id, name: t.name, workspaceName: t.workspaceName })),
        activeGamespaces: games
          .filter((g) => isActive(g, now))
          .map((g) => ({ id: g.id, name: g.name })),
      };
    },

    /** DELETE /api/workspace/{id}/iso?path=: false when there is no such file. */
    async remove(actor: Actor, workspaceId: string, path: string): Promise<boolean> {
      await authorizeFolder(actor, workspaceId);
      const { folder, file } = ownPath(workspaceId, path);
      const target = join(root, folder, file);
      try {
        if (!(await stat(target)).isFile()) return false;
      } catch {
        return false;
      }
      // The cluster's copy first: when it cannot go, the ISO stays here too, as it was.
      await options.mirror?.removeIso?.(`${folder}/${file}`);
      await rm(target, { force: true });
      return true;
    },

    /** GET /api/file/progress/{key}: the percent of an upload, -1 when unknown. */
    async progress(key: string): Promise<number> {
      const value = await options.cache.get(progressKey(key));
      const n = value === null ? Number.NaN : Number.parseInt(value, 10);
      return Number.isFinite(n) ? n : -1;
    },

    authorizeUpload,

    /**
     * POST /api/file/upload, the file section: streams it into a staging folder beside its
     * target, wraps it into an ISO image unless it is one (by its signature, not its name), and
     * renames it into place. Any failure, refusal or abort (`signal`) removes what was written.
     * Answers the stored relative path.
     */
    async upload(
      actor: Actor,
      meta: UploadMeta,
      originalName: string,
      file: Readable,
      signal: AbortSignal,
    ): Promise<string> {
      await authorizeUpload(actor, meta);
      const folder = meta.groupKey || EMPTY_GUID;
      const name = sanitizeFileName(meta.name || originalName);
      const storedName = storedIsoName(name);
      const key = meta.monitorKey || `${meta.groupKey}-${originalName}`;
      const limit = Math.min(options.maxBytes, meta.size ?? options.maxBytes);

      const dir = join(root, folder);
      await mkdir(dir, { recursive: true });
      // A file that may need wrapping takes room twice while it is wrapped.
      const declared = meta.size ?? 0;
      await assertRoomFor(dir, /\.iso$/i.test(name) ? declared : declared * 2);

      const staging = await mkdtemp(join(dir, STAGING_PREFIX));
      try {
        const received = join(staging, name);
        let lastPercent = -2;
        let writes = Promise.resolve();
        const onBytes = (n: number) => {
          const percent = percentOf(n, meta.size);
          if (percent === lastPercent) return;
          lastPercent = percent;
          writes = writes.then(() => reportProgress(key, percent)).catch(() => {});
        };
        await reportProgress(key, meta.size ? 0 : -1);
        // Opened before the copy starts, so that a copy failing at once cannot create the file
        // after the staging folder is removed (a stream opens its file asynchronously).
        const target = await open(received, 'wx');
        await pipeline(file, counter(limit, onBytes), target.createWriteStream(), { signal });
        await writes;

        let ready = received;
        if (!(await hasIsoSignature(received))) {
          ready = join(staging, `${STAGING_PREFIX}wrapped.iso`);
          if (!(await wrapIntoIso(options.xorriso, received, ready))) {
            throw refused(XORRISO_MISSING);
          }
        }
        signal.throwIfAborted();
        // Copied to the hypervisor's storage before it is in place here: an upload the cluster
        // refused is not listed as if it could be mounted.
        await options.mirror?.storeIso?.(`${folder}/${storedName}`, ready);
        await rename(ready, join(dir, storedName));
        await reportProgress(key, 100);
        return `${folder}/${storedName}`;
      } finally {
        await rm(staging, { recursive: true, force: true });
      }
    },
  };
}

export type IsoStore = ReturnType<typeof createIsoStore>;
