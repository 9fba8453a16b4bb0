import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { newId } from '../../../server/core/ids';
import type { HypervisorDriver, MachineSpec } from '../../../server/hypervisor';
import { createPveClient } from '../../../server/hypervisor/proxmox/client';
import { createProxmoxDriver } from '../../../server/hypervisor/proxmox/proxmoxDriver';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { clusterSpec } from './contract';

// Imported disk images with the proxmox driver on the PVE API simulator: a template whose disk
// names an image of this server's images folder (and no VM template) is initialized by uploading
// the image to the cluster's storage with content `import`, on every node (`local` is each
// node's own), or by the first deploy that needs it; its machines are new VMs whose disk PVE
// imports from it (`import-from`). An image on neither side is refused with a sentence naming it.

const IMAGE = 'web.qcow2';
const SEEDED = 'seeded.qcow2';
const LATE = 'late.qcow2';
const bytes = randomBytes(5000);

let sim: PveSimulator;
let driver: HypervisorDriver;
let imagesDir: string;

beforeAll(async () => {
  imagesDir = await mkdtemp(join(tmpdir(), 'topoplay-pve-images-'));
  await writeFile(join(imagesDir, IMAGE), bytes);
  sim = await startPveSimulator({
    cloneMs: 30,
    taskMs: 20,
    sdnReloadMs: 40,
    isos: [`local:import/${SEEDED}`],
  });
  driver = createProxmoxDriver({
    client: createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      taskIntervalMs: 20,
    }),
    storage: 'local-lvm',
    isoStorage: 'local',
    imageStorage: 'local',
    imagesDir,
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 20,
  });
});

afterAll(async () => {
  await driver?.close();
  await sim?.close();
  if (imagesDir) await rm(imagesDir, { recursive: true, force: true });
});

const imageSpec = (name: string, disks: MachineSpec['disks']) =>
  clusterSpec(name, newId(), '', { baseImage: null, autoStart: false, disks });

const disk = (index: number, path: string, sizeGiB: number, source: string | null = null) => ({
  index,
  path,
  source,
  controller: null,
  sizeGiB,
});

async function deployed(spec: MachineSpec) {
  const machine = await driver.deploy(spec, false);
  await vi.waitFor(async () => expect((await driver.load(machine.id))?.task).toBeNull(), {
    timeout: 10_000,
    interval: 20,
  });
  const pve = sim.vms().find((v) => String(v.vmid) === machine.id);
  expect(pve).toBeDefined();
  return { machine, config: pve!.config };
}

describe('proxmox driver: imported disk images', () => {
  it('uploads an image to every node on initialization; machines get their disk imported from it', async () => {
    const spec = imageSpec('web', [disk(0, IMAGE, 1), disk(1, '', 2)]);
    expect(await driver.availability(spec)).toEqual({ available: true });
    expect(await driver.verifyDisks(spec)).toEqual([-1, -1]);

    await driver.createDisks(spec);
    await vi.waitFor(async () => expect(await driver.verifyDisks(spec)).toEqual([100, 100]), {
      timeout: 10_000,
      interval: 20,
    });
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    for (const node of ['pve1', 'pve2', 'pve3']) {
      expect(sim.isoFiles(node)).toContainEqual({
        volid: `local:import/${IMAGE}`,
        size: bytes.length,
        sha256,
      });
    }

    const { machine, config } = await deployed(spec);
    // The image's size: PVE imported it; the other disk is a new, empty one.
    expect(config.scsi0).toBe(`local-lvm:vm-${machine.id}-disk-0,size=${bytes.length}`);
    expect(config.scsi1).toBe(`local-lvm:vm-${machine.id}-disk-1,size=2G`);
    expect(config.boot).toBe('order=scsi0;scsi1;ide2');
    expect((await driver.start(machine.id)).state).toBe('running');
    await driver.delete(machine.id);

    // A workspace's unlinked copy names the image as its disk's source: imported the same way.
    const copy = imageSpec('web-copy', [disk(0, `[ds] ${newId()}/t_0.vmdk`, 1, IMAGE)]);
    expect(await driver.verifyDisks(copy)).toEqual([100]);
    const second = await deployed(copy);
    expect(second.config.scsi0).toBe(
      `local-lvm:vm-${second.machine.id}-disk-0,size=${bytes.length}`,
    );
    await driver.delete(second.machine.id);
  });

  it('uploads an image a deploy needs before the template was initialized', async () => {
    await writeFile(join(imagesDir, LATE), bytes.subarray(0, 1234));
    const spec = imageSpec('late', [disk(0, LATE, 1)]);
    expect(await driver.verifyDisks(spec)).toEqual([-1]);
    const { machine, config } = await deployed(spec);
    expect(config.scsi0).toBe(`local-lvm:vm-${machine.id}-disk-0,size=1234`);
    expect(sim.isoFiles(machine.host).map((f) => f.volid)).toContain(`local:import/${LATE}`);
    expect(await driver.verifyDisks(spec)).toEqual([100]);
    await driver.delete(machine.id);
  });

  it('uses an image already on the cluster’s storage without uploading it', async () => {
    const spec = imageSpec('seeded', [disk(0, SEEDED, 1)]);
    expect(await driver.availability(spec)).toEqual({ available: true });
    expect(await driver.verifyDisks(spec)).toEqual([100]);
    const { machine, config } = await deployed(spec);
    expect(config.scsi0).toMatch(new RegExp(`^local-lvm:vm-${machine.id}-disk-0,size=\\d+$`));
    await driver.delete(machine.id);
  });

  it('says an image that is neither on the cluster nor in the images folder is missing', async () => {
    const spec = imageSpec('gone', [disk(0, 'gone.qcow2', 1)]);
    const reason =
      "The disk image gone.qcow2 is not on the Proxmox storage local (content import) nor in this server's images folder";
    expect(await driver.availability(spec)).toEqual({
      available: false,
      reason: expect.stringContaining(reason),
    });
    expect(await driver.verifyDisks(spec)).toEqual([-1]);
    await expect(driver.createDisks(spec)).rejects.toMatchObject({
      code: 'invalid-state',
      message: expect.stringContaining(reason),
    });
    const before = sim.vms().length;
    await expect(driver.deploy(spec, false)).rejects.toMatchObject({
      message: expect.stringContaining('gone.qcow2'),
    });
    expect(sim.vms()).toHaveLength(before);
    expect(sim.isoFiles('pve1').map((f) => f.volid)).not.toContain('local:import/gone.qcow2');
  });
});
