import { execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cloudHostname } from '../../../server/hypervisor/cloudInit';
import { qemuProcessesUnder } from '../../../server/hypervisor/qemu/processes';
import { screenText } from '../../../server/hypervisor/qemu/qmp';
import {
  TINY_INITRD,
  TINY_KERNEL,
  TINY_KERNEL_ARGS,
} from '../../../server/hypervisor/qemu/tinyImage';
import { apiRequest, type Json } from '../api';
import { startTestServer, type TestServer } from '../harness';
import { apiKey } from '../hubClients';
import { INSTALLED_MARKER, INSTALLING_MARKER, makeInstallerIso } from './installerIso';
import { qemuFolders, removeQemuState, type QemuFolders } from './qemuMachines';
import { openSerial } from './serialShell';

// Images and ISO installs through the real server on the qemu host (issue 31), up to a machine
// that boots. Imported images: the tiny stock image's kernel and initramfs are put on a disk of
// their own that syslinux boots (a FAT disk with its boot sector at sector 0: an imported image
// carries its own bootloader), converted by qemu-img to qcow2 and to vmdk; an administrator
// uploads both in chunks through the admin disk-image routes, as the Template Manager does, and
// makes a template of each as its "New template from" button does; a lab of the two is launched,
// and both machines (booting together) come to the tiny image's shell prompt, started by the
// bootloader on their disk, not by a kernel the driver passes in. ISO install: a workspace's
// template of an empty disk, initialized, deployed and started with an installer ISO
// (installerIso.ts) through the template and VM routes; the installer writes the disk and powers
// off; Save; a player's launch then boots the installed system. The driver-level counterpart of
// the second is isoInstall.test.ts.

const run = promisify(execFile);
const available = spawnSync('qemu-system-x86_64', ['--version']).status === 0;

/** The Template Manager's chunk (src/api/diskImages.ts CHUNK_BYTES). */
const CHUNK_BYTES = 8 * 1024 * 1024;
/** The bootable disk: the tiny kernel and initramfs with room to spare. */
const DISK_MIB = 24;
// Two machines booting together under software emulation, with other suites running: the wait
// is for the prompt itself, so a generous bound costs nothing when the boot is quick.
const BOOT_MS = 180_000;

/** A raw disk that syslinux boots into the tiny kernel with the stock initramfs. */
async function bootableDisk(work: string, imagesDir: string): Promise<string> {
  const disk = join(work, 'tiny-boot.raw');
  const cfg = join(work, 'syslinux.cfg');
  await writeFile(
    cfg,
    [
      'DEFAULT tiny',
      'PROMPT 0',
      'TIMEOUT 0',
      'LABEL tiny',
      '  KERNEL /vmlinuz',
      '  INITRD /initrd',
      `  APPEND ${TINY_KERNEL_ARGS}`,
      '',
    ].join('\n'),
  );
  await run('mkfs.vfat', ['-C', '-n', 'TINY', disk, String(DISK_MIB * 1024)]);
  for (const [from, to] of [
    [join(imagesDir, TINY_KERNEL), '::vmlinuz'],
    [join(imagesDir, TINY_INITRD), '::initrd'],
    [cfg, '::syslinux.cfg'],
  ] as const) {
    await run('mcopy', ['-i', disk, from, to]);
  }
  await run('syslinux', ['--install', disk]);
  return disk;
}

describe.skipIf(!available)('disk images imported through the server boot on the qemu host', () => {
  let server: TestServer;
  let folders: QemuFolders;
  let stateDir: string;
  let inputs: string;
  let headers: Record<string, string>;
  const files: Record<'qcow2' | 'vmdk', Buffer> = { qcow2: Buffer.alloc(0), vmdk: Buffer.alloc(0) };

  const call = (method: string, path: string, body?: unknown) =>
    apiRequest(server.url, headers, method, path, body);

  /** Start, chunks from the offset the server has reached, complete: the SPA's upload. */
  async function upload(name: string, bytes: Buffer): Promise<Json> {
    const started = await call('POST', '/admin/diskimage', { name, size: bytes.length });
    expect(started.status, started.text).toBe(200);
    const id = started.body.id as string;
    let offset = started.body.received as number;
    let chunks = 0;
    while (offset < bytes.length) {
      const res = await fetch(`${server.url}/api/admin/diskimage/${id}/chunk?offset=${offset}`, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/octet-stream' },
        body: new Uint8Array(bytes.subarray(offset, offset + CHUNK_BYTES)),
      });
      const text = await res.text();
      expect(res.status, text).toBe(200);
      offset = (JSON.parse(text) as { received: number }).received;
      chunks++;
    }
    expect(chunks).toBeGreaterThan(1);
    const done = await call('POST', `/admin/diskimage/${id}/complete`);
    expect(done.status, done.text).toBe(200);
    return done.body;
  }

  /** The workspace open to everyone and launched: its gamespace with the machines started. */
  async function launch(workspaceId: string): Promise<Json> {
    const settings = (await call('GET', `/workspace/${workspaceId}`)).body;
    await call('PUT', '/workspace', { ...settings, audience: 'everyone' });
    const game = await call('POST', '/gamespace', {
      resourceId: workspaceId,
      startGamespace: true,
    });
    expect(game.status, game.text).toBe(200);
    return game.body;
  }

  /** Completing the gamespace ends its machines' QEMU. */
  async function complete(gamespaceId: string): Promise<void> {
    const completed = await call('POST', `/gamespace/${gamespaceId}/complete`);
    expect(completed.status, completed.text).toBe(200);
    await expect
      .poll(async () => (await qemuProcessesUnder(join(stateDir, 'machines'))).length, {
        timeout: 30_000,
        interval: 200,
      })
      .toBe(0);
  }

  /** Waits until the machine's VGA text screen shows `text`. */
  async function screenShows(vmId: string, text: string): Promise<void> {
    const qmpSocket = join(stateDir, 'machines', vmId, 'qmp.sock');
    await expect
      .poll(async () => (await screenText(qmpSocket)).join('\n'), {
        timeout: BOOT_MS,
        interval: 250,
      })
      .toContain(text);
  }

  beforeAll(async () => {
    folders = await qemuFolders();
    // Short: the machines' unix sockets live under it.
    stateDir = mkdtempSync(join(tmpdir(), 'tqi-'));
    inputs = mkdtempSync(join(tmpdir(), 'topoplay-imported-'));
    const raw = await bootableDisk(inputs, folders.imagesDir);
    for (const format of ['qcow2', 'vmdk'] as const) {
      const out = join(inputs, `tiny-boot.${format}`);
      await run('qemu-img', ['convert', '-f', 'raw', '-O', format, raw, out]);
      files[format] = await readFile(out);
    }
    server = await startTestServer({
      env: {
        HYPERVISOR: 'qemu',
        QEMU_IMAGES_DIR: folders.imagesDir,
        QEMU_STATE_DIR: stateDir,
      },
    });
    headers = apiKey(await server.apiKeyFor('admin'));
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    if (stateDir) removeQemuState(stateDir, folders);
    if (inputs) rmSync(inputs, { recursive: true, force: true });
  }, 60_000);

  it(
    'turns an uploaded qcow2 and vmdk into templates whose machines boot to the shell prompt',
    async () => {
      // Both arrive as qcow2 images of the disk's size in the images folder.
      const fromQcow2 = await upload('imported-qcow2.qcow2', files.qcow2);
      const fromVmdk = await upload('imported-vmdk.vmdk', files.vmdk);
      for (const [image, name] of [
        [fromQcow2, 'imported-qcow2.qcow2'],
        [fromVmdk, 'imported-vmdk.qcow2'],
      ] as const) {
        expect(image).toMatchObject({ name, virtualSize: DISK_MIB * 1024 * 1024, templates: [] });
        const info = JSON.parse(
          (await run('qemu-img', ['info', '--output=json', join(folders.imagesDir, name)])).stdout,
        ) as { format: string; 'backing-filename'?: string };
        expect(info.format).toBe('qcow2');
        expect(info['backing-filename']).toBeUndefined();
      }

      // A stock template of each, as the Template Manager's "New template from" makes it.
      const templates: Array<{ id: string; name: string }> = [];
      for (const image of [fromQcow2, fromVmdk]) {
        const name = (image.name as string).replace(/\.[^.]+$/, '');
        const created = await call('POST', '/template-detail', {
          name,
          networks: 'lan',
          detail: JSON.stringify({
            Cpu: '1x1',
            Ram: 1,
            Guest: 'otherLinux64Guest',
            Adapters: 1,
            Eth: [{ Net: 'lan', Type: 'virtio' }],
            Disks: [{ Path: image.name, Source: '', Controller: 'virtio', Size: 1 }],
          }),
        });
        expect(created.status, created.text).toBe(200);
        templates.push({ id: created.body.id, name });
      }
      const listed = (await call('GET', '/admin/diskimages')).body as Json[];
      for (const [image, template] of [
        ['imported-qcow2.qcow2', templates[0]!],
        ['imported-vmdk.qcow2', templates[1]!],
      ] as const) {
        expect(listed.find((i) => i.name === image)?.templates).toEqual([
          { id: template.id, name: template.name, workspaceName: null },
        ]);
      }

      // A lab of the two, launched: both machines start at once.
      const workspace = (await call('POST', '/workspace', { name: 'Imported images' })).body;
      for (const template of templates) {
        const linked = await call('POST', '/template', {
          templateId: template.id,
          workspaceId: workspace.id,
        });
        expect(linked.status, linked.text).toBe(200);
      }
      const game = await launch(workspace.id);
      const vms = game.vms as Array<{ id: string; name: string }>;
      expect(vms.map((vm) => vm.name.split('#')[0]).sort()).toEqual([
        'imported-qcow2',
        'imported-vmdk',
      ]);

      await Promise.all(
        vms.map(async (vm) => {
          const serial = await openSerial(join(stateDir, 'machines', vm.id, 'serial.sock'));
          try {
            const prompt = `${cloudHostname(vm.name)}:~# `;
            await serial.until(prompt, BOOT_MS);
            expect(serial.output()).toContain(`Topoplay tiny machine ${cloudHostname(vm.name)}`);
            // The kernel came from the imported disk: syslinux names the file it loaded.
            const cmdline = await serial.run('cat /proc/cmdline');
            expect(cmdline.status).toBe(0);
            expect(cmdline.output).toContain('BOOT_IMAGE=/vmlinuz');
          } finally {
            serial.close();
          }
        }),
      );

      await complete(game.id);
    },
    2 * BOOT_MS,
  );

  it(
    'installs from an ISO on a template’s empty disk, saves it, and a launch boots what was installed',
    async () => {
      // A stock template of an empty disk (a size, no image), linked into a workspace and
      // unlinked there: the workspace's own template, whose disk is made empty.
      const workspace = (await call('POST', '/workspace', { name: 'ISO install' })).body;
      const stock = await call('POST', '/template-detail', {
        name: 'installer-box',
        networks: 'lan',
        detail: JSON.stringify({
          Cpu: '1x1',
          Ram: 1,
          Guest: 'otherLinux64Guest',
          Adapters: 1,
          Eth: [{ Net: 'lan', Type: 'virtio' }],
          Disks: [{ Path: '', Source: '', Controller: 'virtio', Size: 1 }],
        }),
      });
      expect(stock.status, stock.text).toBe(200);
      const linked = await call('POST', '/template', {
        templateId: stock.body.id,
        workspaceId: workspace.id,
      });
      expect(linked.status, linked.text).toBe(200);
      const own = await call('POST', '/template/unlink', {
        templateId: linked.body.id,
        workspaceId: workspace.id,
      });
      expect(own.status, own.text).toBe(200);
      const templateId = own.body.id as string;

      // The installer ISO in the workspace's ISO folder, in the template's drive.
      const iso = `${workspace.id}/installer.iso`;
      await mkdir(join(server.dataDir, 'isos', workspace.id), { recursive: true });
      await makeInstallerIso(
        join(inputs, 'installer'),
        {
          kernel: join(folders.imagesDir, TINY_KERNEL),
          initrd: join(folders.imagesDir, TINY_INITRD),
        },
        join(server.dataDir, 'isos', iso),
      );
      const setIso = async (value: string) => {
        const current = (await call('GET', `/template/${templateId}`)).body;
        const updated = await call('PUT', '/template', { ...current, iso: value });
        expect(updated.status, updated.text).toBe(200);
      };
      await setIso(iso);

      // Initialized: the empty disk is made at once.
      const initialized = await call('PUT', `/vm-template/${templateId}`);
      expect(initialized.status, initialized.text).toBe(200);
      expect(initialized.body).toBe(100);

      // The author's machine boots the installer from the CD-ROM (the disk holds nothing
      // bootable), which writes the disk and powers the machine off; Save keeps the disk.
      const deployed = await call('POST', `/vm-template/${templateId}`);
      expect(deployed.status, deployed.text).toBe(200);
      const vmId = deployed.body.id as string;
      const started = await call('PUT', '/vm', { id: vmId, type: 'start' });
      expect(started.status, started.text).toBe(200);
      await screenShows(vmId, INSTALLING_MARKER);
      await expect
        .poll(async () => (await call('GET', `/vm/${vmId}`)).body?.state, {
          timeout: BOOT_MS,
          interval: 250,
        })
        .toBe('off');
      const saved = await call('PUT', '/vm', { id: vmId, type: 'save' });
      expect(saved.status, saved.text).toBe(200);
      const removed = await call('DELETE', `/vm/${vmId}`);
      expect(removed.status, removed.text).toBe(200);
      await setIso('');

      // A player's launch of the workspace deploys a new machine, which boots the installed
      // system from its disk.
      const game = await launch(workspace.id);
      expect(game.vms).toHaveLength(1);
      await screenShows(game.vms[0].id, INSTALLED_MARKER);
      await complete(game.id);
    },
    3 * BOOT_MS,
  );
});
