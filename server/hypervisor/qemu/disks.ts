import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { DriverError } from '../types';
import { IMAGE_DEVICES, type ImageDevice } from './debianRecipes';

// Disks through qemu-img: a deployed machine's disk is a copy-on-write overlay on the template's
// disk (the linked clone); saving commits the overlay into that disk; unlinking a template copies
// its parent's disk with progress. Kernel boot files (`{disk}.vmlinuz`, `{disk}.initrd`,
// `{disk}.cmdline` beside a disk, as the tiny stock image has them) go wherever their disk goes, and
// so does `{disk}.devices`, the devices its machines get.

const run = promisify(execFile);

export type DiskFormat = 'qcow2' | 'raw';

export const BOOT_SIDECARS = ['vmlinuz', 'initrd', 'cmdline'] as const;

/** Every file that goes with its disk: the boot files, and the devices its machines get. */
export const DISK_SIDECARS = [...BOOT_SIDECARS, 'devices'] as const;

/** `{disk without extension}.{kind}` */
export const sidecarOf = (disk: string, kind: (typeof DISK_SIDECARS)[number]): string =>
  `${disk.replace(/\.(qcow2|raw|img)$/i, '')}.${kind}`;

export async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** What a file is now: its real path, size, time and inode; a replaced or changed file differs. */
export async function fileStamp(path: string): Promise<string> {
  const info = await stat(path);
  return `${await realpath(path)}:${info.size}:${Math.round(info.mtimeMs)}:${info.ino}`;
}

export async function formatOf(path: string): Promise<DiskFormat> {
  if (/\.qcow2$/i.test(path)) return 'qcow2';
  if (/\.(raw|img)$/i.test(path)) return 'raw';
  const { stdout } = await run('qemu-img', ['info', '--output=json', path]);
  const format = (JSON.parse(stdout) as { format?: string }).format;
  if (format !== 'qcow2' && format !== 'raw') {
    throw new DriverError(
      'invalid-request',
      `disk ${path} is ${format ?? 'unknown'}, not qcow2 or raw`,
    );
  }
  return format;
}

/** A fresh overlay over `base` (any existing overlay is replaced). */
export async function createOverlay(base: string, overlay: string): Promise<void> {
  const format = await formatOf(base);
  await rm(overlay, { force: true });
  try {
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', format, '-b', base, overlay]);
  } catch (error) {
    throw new DriverError('unavailable', `qemu-img could not create a disk: ${messageOf(error)}`);
  }
}

/**
 * A fresh, empty qcow2 disk of `sizeGiB` GiB, nothing preallocated: the disk an author installs a
 * system on from an ISO. Written beside its path and renamed, so a disk cut short never looks
 * present.
 */
export async function createEmptyDisk(path: string, sizeGiB: number): Promise<void> {
  if (!(sizeGiB > 0)) {
    throw new DriverError('invalid-request', `an empty disk needs a size, not ${sizeGiB} GB`);
  }
  await mkdir(dirname(path), { recursive: true });
  const partial = `${path}.partial`;
  try {
    await run('qemu-img', ['create', '-q', '-f', 'qcow2', partial, `${sizeGiB}G`]);
    await rename(partial, path);
  } catch (error) {
    await rm(partial, { force: true });
    throw new DriverError(
      'unavailable',
      `qemu-img could not create an empty disk: ${messageOf(error)}`,
    );
  }
}

/**
 * A machine's disk as deployed or reverted: an overlay of its base, or an empty disk of its size
 * when it has no base.
 */
export async function freshDisk(
  disk: { base: string | null; sizeGiB?: number },
  overlay: string,
): Promise<void> {
  if (disk.base) return createOverlay(disk.base, overlay);
  await rm(overlay, { force: true });
  await createEmptyDisk(overlay, disk.sizeGiB ?? 0);
}

/** Writes the overlay's changes into its base; the overlay is left empty. */
export async function commitOverlay(overlay: string): Promise<void> {
  try {
    await run('qemu-img', ['commit', '-q', overlay]);
  } catch (error) {
    throw new DriverError('unavailable', `qemu-img could not save the disk: ${messageOf(error)}`);
  }
}

/** The boot files beside a disk, when it has them: the machine boots that kernel directly. */
export async function bootFilesOf(
  disk: string,
): Promise<{ kernel: string; initrd: string | null; cmdline: string } | null> {
  const kernel = sidecarOf(disk, 'vmlinuz');
  if (!(await exists(kernel))) return null;
  const initrd = sidecarOf(disk, 'initrd');
  const cmdlinePath = sidecarOf(disk, 'cmdline');
  const cmdline = (await exists(cmdlinePath)) ? (await readFile(cmdlinePath, 'utf8')).trim() : '';
  return { kernel, initrd: (await exists(initrd)) ? initrd : null, cmdline };
}

/**
 * The devices a machine of this disk gets besides the usual ones, from `{disk}.devices` (one a
 * line, as debianImage.ts writes it for images that have what uses them); none without it.
 */
export async function devicesOf(disk: string): Promise<ImageDevice[]> {
  const text = await readFile(sidecarOf(disk, 'devices'), 'utf8').catch(() => '');
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line): line is ImageDevice => (IMAGE_DEVICES as readonly string[]).includes(line));
}

export interface DiskCopy {
  /** 0..99 while copying. */
  progress: number;
  started: number;
  done: Promise<void>;
}

/**
 * Copies `source` to `target` (a full, unlinked copy in qcow2), reporting progress; the copy is
 * written beside the target and renamed when complete, so a copy cut short never looks present.
 */
export function copyDisk(source: string, target: string, now: number): DiskCopy {
  const partial = `${target}.partial`;
  const copy: DiskCopy = { progress: 0, started: now, done: Promise.resolve() };
  copy.done = (async () => {
    await mkdir(dirname(target), { recursive: true });
    const format = await formatOf(source);
    await new Promise<void>((resolve, reject) => {
      const child = spawn(
        'qemu-img',
        ['convert', '-p', '-f', format, '-O', 'qcow2', source, partial],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let errors = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (chunk: string) => {
        const matches = [...chunk.matchAll(/\((\d+(?:\.\d+)?)\/100%\)/g)];
        const last = matches.at(-1);
        if (last) copy.progress = Math.min(99, Math.floor(Number(last[1])));
      });
      child.stderr.setEncoding('utf8');
      child.stderr.on('data', (chunk: string) => (errors += chunk));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0
          ? resolve()
          : reject(
              new DriverError('unavailable', `qemu-img could not copy ${source}: ${errors.trim()}`),
            ),
      );
    });
    for (const kind of DISK_SIDECARS) {
      const from = sidecarOf(source, kind);
      if (await exists(from)) await copyFile(from, sidecarOf(target, kind));
    }
    await rename(partial, target);
  })();
  copy.done.catch(() => rm(partial, { force: true }));
  return copy;
}

/** Removes a disk and its boot files. */
export async function removeDisk(path: string): Promise<void> {
  await rm(path, { force: true });
  await rm(`${path}.partial`, { force: true });
  for (const kind of DISK_SIDECARS) await rm(sidecarOf(path, kind), { force: true });
}

export function messageOf(error: unknown): string {
  const stderr = (error as { stderr?: string }).stderr;
  if (stderr?.trim()) return stderr.trim();
  return error instanceof Error ? error.message : String(error);
}
