import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createQemuDriver, type QemuDriver } from '../../../server/hypervisor/qemu/qemuDriver';
import { qmp, screenText } from '../../../server/hypervisor/qemu/qmp';
import {
  TINY_INITRD,
  TINY_KERNEL,
  TINY_MIN_MEMORY_MB,
} from '../../../server/hypervisor/qemu/tinyImage';
import { EMPTY_TAG, type MachineSpec } from '../../../server/hypervisor/types';
import { INSTALLED_MARKER, INSTALLING_MARKER, makeInstallerIso } from './installerIso';
import { qemuFolders, tinySpec, type QemuFolders } from './qemuMachines';
import { openSerial } from './serialShell';

// An ISO install on the qemu driver: a template whose disk has a size and no image gets an empty
// disk; its machine boots the installer ISO in its CD-ROM drive (the disk holds nothing bootable),
// the installer writes a system to the disk and powers off; Save writes that disk into the
// template's own disk; a new machine of the template, with no ISO, boots the installed system.
// And a UEFI template's machine runs Debian's OVMF with variables of its own.

const BOOT_MS = 120_000;

let folders: QemuFolders;
let driver: QemuDriver;

beforeAll(async () => {
  folders = await qemuFolders();
  driver = await createQemuDriver({ ...folders, watchMs: 200 });
}, 600_000);

afterAll(async () => {
  await driver.deleteAll('#');
  await driver.close();
  try {
    process.kill(Number(readFileSync(join(folders.stateDir, 'switch', 'switch.pid'), 'utf8')));
  } catch {
    // The switch is gone already.
  }
  rmSync(folders.root, { recursive: true, force: true });
}, 120_000);

const virtualSize = (file: string): number =>
  (
    JSON.parse(execFileSync('qemu-img', ['info', '--output=json', file], { encoding: 'utf8' })) as {
      'virtual-size': number;
    }
  )['virtual-size'];

const overlayOf = (id: string) => join(folders.stateDir, 'machines', id, 'disk0.qcow2');

async function screenShows(id: string, text: string, timeout = BOOT_MS): Promise<void> {
  await vi.waitFor(
    async () => expect((await screenText(driver.qmpSocket(id))).join('\n')).toContain(text),
    { timeout, interval: 250 },
  );
}

describe('qemu driver: empty disks and ISO installs', () => {
  const workspace = randomUUID();
  const disk = `${workspace}/box_0.vmdk`;
  const spec = (name: string, fields: Partial<MachineSpec> = {}) =>
    tinySpec(name, workspace, {
      memoryMiB: Math.max(256, TINY_MIN_MEMORY_MB),
      disks: [{ index: 0, path: `[ds] ${disk}`, source: null, controller: null, sizeGiB: 1 }],
      ...fields,
    });

  it('installs a system from an ISO on an empty disk, saves it, and a new machine boots it', async () => {
    const iso = `${workspace}/installer.iso`;
    mkdirSync(join(folders.isosDir, workspace), { recursive: true });
    await makeInstallerIso(
      join(folders.root, 'installer'),
      {
        kernel: join(folders.imagesDir, TINY_KERNEL),
        initrd: join(folders.imagesDir, TINY_INITRD),
      },
      join(folders.isosDir, iso),
    );
    const installer = spec('box', { iso });

    // A disk in the workspace's folder with a size and nothing to copy: available, made empty
    // when the template is initialized.
    expect(await driver.availability(installer)).toEqual({ available: true });
    await expect(driver.deploy(installer, true)).rejects.toMatchObject({ code: 'invalid-state' });
    expect(await driver.createDisks(installer)).toBe(100);
    const image = join(folders.imagesDir, disk);
    expect(virtualSize(image)).toBe(1024 ** 3);

    const machine = await driver.deploy(installer, true);
    await driver.start(machine.id);
    // The BIOS finds nothing to boot on the disk and boots the CD-ROM: the installer writes the
    // disk and powers the machine off.
    await screenShows(machine.id, INSTALLING_MARKER);
    await vi.waitFor(async () => expect((await driver.load(machine.id))?.state).toBe('off'), {
      timeout: BOOT_MS,
      interval: 250,
    });
    await driver.save(machine.id);
    await driver.delete(machine.id);

    // A new machine of the template, with no ISO, boots what the installer wrote.
    const installed = await driver.deploy(spec('box', { iso: null }), true);
    await driver.start(installed.id);
    await screenShows(installed.id, INSTALLED_MARKER);
    const blocks = await qmp<Array<{ device: string; inserted?: unknown }>>(
      driver.qmpSocket(installed.id),
      'query-block',
    );
    expect(blocks.find((b) => b.device === 'cd0')?.inserted).toBeUndefined();
    await driver.delete(installed.id);
  }, 600_000);

  it('gives each machine of a disk without an image an empty disk of its size', async () => {
    const blank = tinySpec('blank', EMPTY_TAG, {
      disks: [{ index: 0, path: '', source: null, controller: null, sizeGiB: 2 }],
    });
    expect(await driver.availability(blank)).toEqual({ available: true });
    expect(await driver.createDisks(blank)).toBe(100);
    const machine = await driver.deploy(blank, false);
    const info = JSON.parse(
      execFileSync('qemu-img', ['info', '--output=json', overlayOf(machine.id)], {
        encoding: 'utf8',
      }),
    ) as { 'virtual-size': number; 'backing-filename'?: string };
    expect(info['virtual-size']).toBe(2 * 1024 ** 3);
    expect(info['backing-filename']).toBeUndefined();
    // Saving has nowhere to write it: the disk is no workspace's own.
    await expect(driver.save(machine.id)).rejects.toMatchObject({ code: 'invalid-state' });
    await driver.delete(machine.id);

    // Without a size there is nothing to make; a stock image this host lacks is not empty.
    const sizeless = tinySpec('sizeless', EMPTY_TAG, {
      disks: [{ index: 0, path: '', source: null, controller: null, sizeGiB: 0 }],
    });
    expect(await driver.availability(sizeless)).toMatchObject({ available: false });
    const stock = tinySpec('stock', EMPTY_TAG, {
      disks: [
        {
          index: 0,
          path: `[ds] ${EMPTY_TAG}/windows.vmdk`,
          source: null,
          controller: null,
          sizeGiB: 40,
        },
      ],
    });
    expect(await driver.availability(stock)).toEqual({
      available: false,
      reason: `The disk ${EMPTY_TAG}/windows.vmdk is not in the images folder.`,
    });
  }, 60_000);

  it('boots a UEFI template with OVMF and variables of its own', async () => {
    const uefi = tinySpec('uefi', EMPTY_TAG, {
      memoryMiB: 256,
      disks: [{ index: 0, path: '', source: null, controller: null, sizeGiB: 1 }],
      firmware: 'uefi',
    });
    expect(await driver.availability(uefi)).toEqual({ available: true });
    const machine = await driver.deploy(uefi, false);
    await driver.start(machine.id);
    const vars = join(folders.stateDir, 'machines', machine.id, 'uefi-vars.fd');
    expect(existsSync(vars)).toBe(true);
    const blocks = await qmp<Array<{ device: string; inserted?: { file: string; ro: boolean } }>>(
      driver.qmpSocket(machine.id),
      'query-block',
    );
    const pflash = blocks.filter((b) => b.inserted?.file.endsWith('.fd'));
    expect(pflash.map((b) => [b.inserted!.file, b.inserted!.ro])).toEqual([
      ['/usr/share/OVMF/OVMF_CODE_4M.fd', true],
      [vars, false],
    ]);
    // OVMF runs: its boot manager tries the empty CD-ROM drive and disk, saying so on the serial
    // port (a few seconds after the start, long after the port is open).
    const serial = await openSerial(driver.serialSocket(machine.id), BOOT_MS);
    try {
      await serial.until(/BdsDxe: failed to load Boot\d+ "UEFI QEMU DVD-ROM/, BOOT_MS);
    } finally {
      serial.close();
    }
    await driver.delete(machine.id);
  }, 240_000);
});
