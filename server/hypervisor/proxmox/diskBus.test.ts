import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { clusterSpec, nic } from '../../../tests/server/hypervisor/contract';
import { startPveSimulator, type PveSimulator } from '../../../tests/pvesim/simulator';
import type { HypervisorDriver } from '../types';
import { createPveClient } from './client';
import { diskMoves, disksInOrder } from './diskBus';
import { createProxmoxDriver } from './proxmoxDriver';

// A template's disk controller on the cluster: a clone's disk moves to SATA or IDE when the
// template says so (the boot order with it), and stays where the base image has it otherwise.

let sim: PveSimulator | null = null;
let driver: HypervisorDriver | null = null;

afterEach(async () => {
  await driver?.close();
  await sim?.close();
  driver = null;
  sim = null;
});

const spec = (controller: string | null, adapter: string | null) =>
  clusterSpec('web', randomUUID(), 'topoplay-tiny', {
    nics: [{ ...nic('lan'), adapter }],
    disks: [{ index: 0, path: '', source: null, controller, sizeGiB: 1 }],
  });

async function deployOn(controller: string | null, adapter: string | null) {
  sim = await startPveSimulator({ cloneMs: 30, taskMs: 20, sdnReloadMs: 40, agentDelayMs: 50 });
  driver = createProxmoxDriver({
    client: createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      taskIntervalMs: 10,
    }),
    storage: 'local-lvm',
    isoStorage: 'local',
    zone: 'topoplay',
    vnetTags: [2000, 3999],
    sdnDebounceMs: 20,
  });
  const d = driver;
  const vm = await d.deploy(spec(controller, adapter), false);
  await vi.waitFor(async () => expect((await d.load(vm.id))?.task ?? null).toBeNull(), {
    timeout: 10_000,
    interval: 20,
  });
  const found = sim.vms().find((v) => String(v.vmid) === vm.id);
  expect(found?.status).toBe('running');
  return found!;
}

describe('proxmox disk bus and NIC model', () => {
  it('moves the disk to SATA and gives an e1000 NIC when the template names them', async () => {
    const vm = await deployOn('sata', 'e1000');
    expect(vm.config.scsi0).toBeUndefined();
    expect(vm.config.sata0).toBe(`local-lvm:base-9000-disk-0/vm-${vm.vmid}-disk-0`);
    expect(vm.config.boot).toBe('order=sata0;ide2;net0');
    expect(vm.config.net0).toMatch(/^e1000=[0-9A-F:]{17},bridge=/);
  });

  it("leaves the base image's disk where it is for any other controller", async () => {
    const vm = await deployOn('lsilogic', 'vmxnet3');
    expect(vm.config.scsi0).toMatch(/^local-lvm:base-9000-disk-0\/vm-\d+-disk-0/);
    expect(vm.config.sata0).toBeUndefined();
    expect(vm.config.net0).toMatch(/^vmxnet3=/);
  });

  it('takes IDE slots the deploy leaves free, in boot order', () => {
    const config = {
      virtio0: 'local-lvm:vm-1-disk-1',
      scsi0: 'local-lvm:vm-1-disk-0,size=2G',
      ide2: 'none,media=cdrom',
      ide0: 'local-lvm:vm-1-cloudinit,media=cdrom',
      boot: 'order=scsi0;ide2;virtio0',
    };
    expect(disksInOrder(config)).toEqual(['scsi0', 'virtio0']);
    const machine = spec('ide', null);
    machine.disks.push({ index: 1, path: '', source: null, controller: 'ide', sizeGiB: 1 });
    expect(diskMoves(config, machine, ['ide1'])).toEqual({
      moves: [{ from: 'scsi0', to: 'ide3', volume: 'local-lvm:vm-1-disk-0' }],
      boot: 'order=ide3;ide2;virtio0',
    });
  });
});
