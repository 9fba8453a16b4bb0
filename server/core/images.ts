import { mkdir, open as openFile, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { UPLOAD_LIMIT_BYTES } from '../../src/domain/documentFiles';
import { forbidden, ValidationFailed } from './errors';
import { unknownArgument } from './fields';
import { newToken } from './ids';
import { isSafeId, type DocumentAccess } from './documents';
import type { Actor } from './actor';
import { STAGING_PREFIX } from './staging';

// Images and attachments of a workspace document (wire reference §1.6; spec §5 upload rules):
// files in `{docsDir}/{workspaceId}/`, served without authentication at /docs/{id}/{file} as the
// reference serves its DocRoot, because players see them in the guide. Their names carry a random
// part, so they cannot be guessed from the workspace id alone.

/** The largest upload, in bytes: the spec's 50,000,000, which the image manager states. */
export const MAX_IMAGE_BYTES = UPLOAD_LIMIT_BYTES;
/** An upload is refused when it would leave less free space than this on the disk. */
export const MIN_FREE_BYTES = 100 * 1024 * 1024;
/** The stem of a stored name is cut to this many characters. */
export const NAME_STEM_MAX = 50;

interface FileKind {
  type: string;
  /** True when the first bytes of the file are this kind's signature. */
  matches(head: Buffer): boolean;
}

const startsWith = (head: Buffer, bytes: number[], at = 0) =>
  head.length >= at + bytes.length && bytes.every((b, i) => head[at + i] === b);
const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));

const PNG: FileKind = {
  type: 'image/png',
  matches: (h) => startsWith(h, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};
const JPEG: FileKind = { type: 'image/jpeg', matches: (h) => startsWith(h, [0xff, 0xd8, 0xff]) };

/** The allowed kinds by lower-case extension; the declared mimetype is never trusted. */
const KINDS: Record<string, FileKind> = {
  png: PNG,
  jpg: JPEG,
  jpeg: JPEG,
  gif: {
    type: 'image/gif',
    matches: (h) => startsWith(h, ascii('GIF87a')) || startsWith(h, ascii('GIF89a')),
  },
  webp: {
    type: 'image/webp',
    matches: (h) => startsWith(h, ascii('RIFF')) && startsWith(h, ascii('WEBP'), 8),
  },
  pdf: { type: 'application/pdf', matches: (h) => startsWith(h, ascii('%PDF-')) },
};

/** Bytes needed to recognize every kind. */
const HEAD_BYTES = 12;

export interface ImageFile {
  filename: string;
  url: string;
  size: number;
  type: string;
}

/** The allowed kind of a file name by its extension, or undefined. */
export function kindOf(filename: string): FileKind | undefined {
  const dot = filename.lastIndexOf('.');
  if (dot < 0) return undefined;
  const ext = filename.slice(dot + 1).toLowerCase();
  return Object.hasOwn(KINDS, ext) ? KINDS[ext] : undefined;
}

/**
 * The stored name of an upload, as the reference names it: the base name (any folders dropped),
 * with only letters, digits, '-', '_' and '.', cut to 50 characters, then `-{random}` and the
 * lower-cased extension. It never starts with a dot and never holds '..'.
 */
export function storedName(original: string, random = randomBytes(4).toString('hex')): string {
  const base = original.split(/[/\\]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const ext = dot < 0 ? '' : base.slice(dot + 1).toLowerCase();
  const stem =
    (dot < 0 ? base : base.slice(0, dot))
      .replace(/[^A-Za-z0-9_.-]+/g, '_')
      .replace(/\.{2,}/g, '.')
      .replace(/^[.\-_]+|\.+$/g, '')
      .slice(0, NAME_STEM_MAX) || 'file';
  return `${stem}-${random}${ext ? `.${ext}` : ''}`;
}

/**
 * A name that can only be a file directly in the workspace's folder: no separators, no '..', no
 * NUL, no hidden files (temporary uploads start with a dot).
 */
export function isPlainName(name: unknown): name is string {
  return (
    typeof name === 'string' &&
    name.length > 0 &&
    name.length <= 255 &&
    !/[/\\\0]/.test(name) &&
    !name.includes('..') &&
    !name.startsWith('.')
  );
}

const tooLarge = () =>
  new ValidationFailed(
    'file',
    `File too large: the limit is ${MAX_IMAGE_BYTES.toLocaleString('en-US')} bytes`,
  );

const notAllowed = () =>
  new ValidationFailed('file', 'File type not allowed: only png, jpeg, gif, webp and pdf files');

const notMatching = (ext: string) =>
  new ValidationFailed('file', `The file's content is not a ${ext} file`);

/**
 * Passes the upload through while counting it: fails once it exceeds the limit, and as soon as
 * its first bytes are known not to be the kind its extension names.
 */
function guard(kind: FileKind, ext: string): Transform {
  let size = 0;
  let head = Buffer.alloc(0);
  let checked = false;
  const check = () => {
    checked = true;
    return kind.matches(head) ? null : notMatching(ext);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding, callback: TransformCallback) {
      size += chunk.length;
      if (size > MAX_IMAGE_BYTES) return callback(tooLarge());
      if (!checked) {
        head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        if (head.length >= HEAD_BYTES) {
          const error = check();
          if (error) return callback(error);
        }
      }
      callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      callback(checked ? null : check());
    },
  });
}

export interface IncomingFile {
  filename: string;
  stream: Readable;
}

export interface ImageServiceOptions {
  /** `{dataDir}/docs`: a workspace's images are in its `{workspaceId}/` folder. */
  docsDir: string;
  access: DocumentAccess;
  /** Free space to keep on the disk after an upload (MIN_FREE_BYTES). */
  minFreeBytes?: number;
}

export function createImageService(options: ImageServiceOptions) {
  const { docsDir, access } = options;
  const minFreeBytes = options.minFreeBytes ?? MIN_FREE_BYTES;
  const folderOf = (id: string) => join(docsDir, id);
  const urlOf = (id: string, filename: string) => `/docs/${id}/${filename}`;

  async function authorize(actor: Actor, id: unknown): Promise<string> {
    if (!isSafeId(id) || !(await access.exists(id))) throw unknownArgument('id');
    if (!(await access.canEdit(actor, id))) throw forbidden();
    return id;
  }

  async function freeBytes(dir: string): Promise<number> {
    const fs = await statfs(dir);
    return fs.bavail * fs.bsize;
  }

  const noSpace = () =>
    new ValidationFailed(
      'file',
      'Not enough disk space: the server keeps 100 MB free and this file would not leave it',
    );

  async function describe(id: string, filename: string): Promise<ImageFile | null> {
    const kind = kindOf(filename);
    if (!kind || !isPlainName(filename)) return null;
    try {
      const info = await stat(join(folderOf(id), filename));
      if (!info.isFile()) return null;
      return { filename, url: urlOf(id, filename), size: info.size, type: kind.type };
    } catch {
      return null;
    }
  }

  return {
    /** GET /api/images/{id}: the workspace's files, by name. */
    async list(actor: Actor, id: unknown): Promise<ImageFile[]> {
      const ws = await authorize(actor, id);
      let names: string[];
      try {
        names = await readdir(folderOf(ws));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
        throw error;
      }
      const files = await Promise.all(names.sort().map((name) => describe(ws, name)));
      return files.filter((f): f is ImageFile => f !== null);
    },

    /**
     * POST /api/image/{id}: authorizes before reading the upload, streams it to a temporary
     * file next to its final place (checking its size and first bytes on the way), and renames
     * it into place only when every check passed; a refused upload leaves no file behind.
     */
    async upload(
      actor: Actor,
      id: unknown,
      open: () => Promise<IncomingFile | undefined>,
    ): Promise<ImageFile> {
      const ws = await authorize(actor, id);
      const file = await open();
      if (!file)
        throw new ValidationFailed('file', 'No file was sent in the multipart field "file"');
      const kind = kindOf(file.filename);
      if (!kind) {
        file.stream.resume();
        throw notAllowed();
      }
      const name = storedName(file.filename);
      const ext = name.slice(name.lastIndexOf('.') + 1);
      const dir = folderOf(ws);
      await mkdir(dir, { recursive: true });
      if ((await freeBytes(dir)) < minFreeBytes) {
        file.stream.resume();
        throw noSpace();
      }
      const temp = join(dir, `${STAGING_PREFIX}${newToken()}`);
      try {
        // Opened before the copy starts, so that a copy failing at once cannot leave the file
        // to be created after the clean-up below (a stream opens its file asynchronously).
        const target = await openFile(temp, 'wx');
        await pipeline(file.stream, guard(kind, ext), target.createWriteStream());
        if ((await freeBytes(dir)) < minFreeBytes) throw noSpace();
        await rename(temp, join(dir, name));
      } catch (error) {
        await rm(temp, { force: true });
        throw error;
      }
      const size = (await stat(join(dir, name))).size;
      return { filename: name, url: urlOf(ws, name), size, type: kind.type };
    },

    /** DELETE /api/image/{id}?filename=: only a plain name of a file in the workspace folder. */
    async remove(actor: Actor, id: unknown, filename: unknown): Promise<void> {
      const ws = await authorize(actor, id);
      if (filename === undefined || filename === null || filename === '') {
        throw new ValidationFailed('filename', "Missing value for required property 'filename'");
      }
      if (!isPlainName(filename)) {
        throw new ValidationFailed(
          'filename',
          `InvalidPropertyValue 'filename' must be a file name`,
        );
      }
      const path = join(folderOf(ws), filename);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) throw new ValidationFailed('filename', 'ResourceNotFound');
      await rm(path);
    },

    /**
     * The file behind /docs/{workspaceId}/{file}, or null: only allowed kinds, only directly in a
     * workspace's folder under the docs folder.
     */
    async published(
      workspaceId: string,
      filename: string,
    ): Promise<{ path: string; size: number; type: string } | null> {
      if (!isSafeId(workspaceId) || !isPlainName(filename)) return null;
      const kind = kindOf(filename);
      if (!kind) return null;
      const path = join(folderOf(workspaceId), filename);
      if (!path.startsWith(`${docsDir}${sep}`)) return null;
      const info = await stat(path).catch(() => null);
      if (!info?.isFile()) return null;
      return { path, size: info.size, type: kind.type };
    },

    /** A deleted workspace's images go with it. */
    async workspaceDeleted(id: string): Promise<void> {
      if (isSafeId(id)) await rm(folderOf(id), { recursive: true, force: true });
    },
  };
}

export type ImageService = ReturnType<typeof createImageService>;
