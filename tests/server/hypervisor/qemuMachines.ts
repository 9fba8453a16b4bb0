import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildTinyImage, TINY_DISK } from '../../../server/hypervisor/qemu/tinyImage';
import type { MachineSpec } from '../../../server/hypervisor/types';

// What the qemu driver's tests share: the tiny stock image, built once into node_modules/.cache
// and linked into each test's own images folder (so disks a test creates under its tags never
// land in the cache), and specs of tiny machines.

const CACHE = resolve('node_modules/.cache/topoplay-images');

export interface QemuFolders {
  root: string;
  imagesDir: string;
  isosDir: string;
  stateDir: string;
}

/** Fresh folders with the tiny image in the images folder (built on first use). */
export async function qemuFolders(): Promise<QemuFolders> {
  await buildTinyImage(CACHE);
  // Short: the machines' unix sockets live under the state folder.
  const root = mkdtempSync(join(tmpdir(), 'tq-'));
  const imagesDir = join(root, 'images');
  mkdirSync(imagesDir);
  for (const file of readdirSync(CACHE)) {
    if (!file.endsWith('.tmp')) symlinkSync(join(CACHE, file), join(imagesDir, file));
  }
  const isosDir = join(root, 'isos');
  mkdirSync(isosDir);
  return { root, imagesDir, isosDir, stateDir: join(root, 's') };
}

/** A tiny machine on the stock image: 128 MiB, one NIC on `lan`. */
export function tinySpec(
  name: string,
  tag: string,
  fields: Partial<MachineSpec> = {},
): MachineSpec {
  return {
    templateId: randomUUID(),
    name,
    isolationTag: tag,
    cpu: { sockets: 1, coresPerSocket: 1 },
    memoryMiB: 128,
    guestOs: null,
    disks: [{ index: 0, path: TINY_DISK, source: null, controller: null, sizeGiB: 1 }],
    nics: [{ index: 0, network: 'lan', adapter: null, mac: null }],
    guestSettings: [],
    iso: null,
    bootDelaySeconds: 0,
    autoStart: false,
    hostAffinity: false,
    useUplink: false,
    baseImage: null,
    baseImageSource: null,
    ...fields,
  };
}

/**
 * Ends what a server on `stateDir` left running (machines and the switch outlive a server by
 * design) and removes the test's folders.
 */
export function removeQemuState(stateDir: string, folders: QemuFolders): void {
  try {
    process.kill(Number(readFileSync(join(stateDir, 'switch', 'switch.pid'), 'utf8')));
  } catch {
    // Gone already.
  }
  try {
    execFileSync('pkill', ['-KILL', '-f', stateDir]);
  } catch {
    // No process was left.
  }
  rmSync(stateDir, { recursive: true, force: true });
  rmSync(folders.root, { recursive: true, force: true });
}
