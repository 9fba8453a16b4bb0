import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { EMPTY_GUID, newId } from '../../../server/core/ids';
import type { HypervisorDriver, MachineSpec } from '../../../server/hypervisor';
import { createPveClient } from '../../../server/hypervisor/proxmox/client';
import { createProxmoxDriver } from '../../../server/hypervisor/proxmox/proxmoxDriver';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { clusterSpec, nic } from './contract';

// The proxmox driver's empty disks and UEFI machines on the PVE API simulator: a template that
// names no VM template to clone gets a new VM (qm create) with an empty disk of each size on the
// storage, the installer ISO after the disk in the boot order; a UEFI template's machine, clone
// or new, runs OVMF with an EFI vars disk of its own.

const STOCK = 'topoplay-tiny';
const ISO = `${EMPTY_GUID}/tools.iso`;

let sim: PveSimulator;
let driver: HypervisorDriver;

beforeAll(async () => {
  sim = await startPveSimulator({ cloneMs: 30, fullCloneMs: 60, taskMs: 20, sdnReloadMs: 40 });
  driver = createProxmoxDriver({
    client: createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      taskIntervalMs: 20,
    }),
    storage: 'local-lvm',
    isoStorage: 'local',
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 20,
  });
});

afterAll(async () => {
  await driver?.close();
  await sim?.close();
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

describe('proxmox driver: empty disks and UEFI', () => {
  it('creates a VM with empty disks of their sizes when the template names no VM template', async () => {
    const spec = clusterSpec('installer', newId(), '', {
      baseImage: null,
      iso: ISO,
      autoStart: false,
      nics: [nic('lan')],
      disks: [
        { index: 0, path: '', source: null, controller: null, sizeGiB: 8 },
        { index: 1, path: '', source: null, controller: null, sizeGiB: 2 },
      ],
    });
    expect(await driver.availability(spec)).toEqual({ available: true });
    expect(await driver.verifyDisks(spec)).toEqual([100, 100]);
    const { machine, config } = await deployed(spec);
    expect(config.scsi0).toBe(`local-lvm:vm-${machine.id}-disk-0,size=8G`);
    expect(config.scsi1).toBe(`local-lvm:vm-${machine.id}-disk-1,size=2G`);
    expect(config.ide2).toBe(`local:iso/${EMPTY_GUID}__tools.iso,media=cdrom`);
    expect(config.boot).toBe('order=scsi0;scsi1;ide2');
    expect(config.bios).toBeUndefined();
    // Started, it runs as any machine does.
    expect((await driver.start(machine.id)).state).toBe('running');
    // Nothing to save it into: it has no base image.
    await expect(driver.save(machine.id)).rejects.toMatchObject({ code: 'invalid-state' });
    await driver.delete(machine.id);
  });

  it('makes a workspace template’s own base image of empty disks, and saves a machine into it', async () => {
    const templateId = newId();
    const tag = newId();
    const spec = clusterSpec('box', tag, templateId, {
      templateId,
      iso: ISO,
      autoStart: false,
      disks: [{ index: 0, path: `${tag}/box_0.vmdk`, source: null, controller: null, sizeGiB: 4 }],
    });
    expect(await driver.availability(spec)).toEqual({ available: true });
    expect(await driver.verifyDisks(spec)).toEqual([-1]);
    await driver.createDisks(spec);
    await vi.waitFor(async () => expect(await driver.verifyDisks(spec)).toEqual([100]), {
      timeout: 10_000,
      interval: 20,
    });
    const base = sim.vms().find((v) => v.name === templateId);
    expect(base?.config).toMatchObject({ template: '1', boot: 'order=scsi0;ide2' });
    expect(base?.config.scsi0).toMatch(/^local-lvm:base-\d+-disk-0,size=4G$/);
    expect(base?.tags).toEqual(expect.arrayContaining(['topoplay']));

    const { machine, config } = await deployed(spec);
    expect(config.scsi0).toContain(`base-${base!.vmid}-disk-0/vm-${machine.id}-disk-0`);
    expect(config.ide2).toBe(`local:iso/${EMPTY_GUID}__tools.iso,media=cdrom`);
    // Saved: new machines of the template are clones of this one.
    await driver.save(machine.id);
    await vi.waitFor(
      () =>
        expect(
          sim.vms().filter((v) => v.name === templateId && !v.tags?.includes('topoplay-retired')),
        ).toHaveLength(1),
      { timeout: 10_000, interval: 20 },
    );
    const saved = sim.vms().find((v) => v.name === templateId && v.vmid !== base!.vmid);
    expect(saved?.config.template).toBe('1');
  });

  it('says a template without a VM template or disk sizes is unavailable', async () => {
    const spec = clusterSpec('sizeless', newId(), '', {
      baseImage: null,
      disks: [{ index: 0, path: '', source: null, controller: null, sizeGiB: 0 }],
    });
    expect(await driver.availability(spec)).toMatchObject({
      available: false,
      reason: expect.stringContaining('names no Proxmox VM template'),
    });
    await expect(driver.deploy(spec, false)).rejects.toMatchObject({ code: 'invalid-state' });
  });

  it('gives a UEFI machine OVMF and an EFI vars disk, new or cloned', async () => {
    const fresh = await deployed(
      clusterSpec('uefi-new', newId(), '', { baseImage: null, firmware: 'uefi', autoStart: false }),
    );
    expect(fresh.config.bios).toBe('ovmf');
    expect(fresh.config.efidisk0).toBe(
      `local-lvm:vm-${fresh.machine.id}-disk-1,efitype=4m,size=4M`,
    );
    const clone = await deployed(
      clusterSpec('uefi-clone', newId(), STOCK, { firmware: 'uefi', autoStart: false }),
    );
    expect(clone.config.bios).toBe('ovmf');
    expect(clone.config.efidisk0).toMatch(
      new RegExp(`^local-lvm:vm-${clone.machine.id}-disk-\\d+,efitype=4m,size=4M$`),
    );
    const bios = await deployed(clusterSpec('bios', newId(), STOCK, { autoStart: false }));
    expect(bios.config.bios).toBeUndefined();
    expect(bios.config.efidisk0).toBeUndefined();
  });
});
