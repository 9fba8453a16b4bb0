import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../../server/core/ids';
import type { HypervisorDriver } from '../../../server/hypervisor';
import { createPveClient } from '../../../server/hypervisor/proxmox/client';
import {
  createProxmoxDriver,
  TEMPLATE_LIST_MAX_AGE_MS,
} from '../../../server/hypervisor/proxmox/proxmoxDriver';
import { createSimDriver } from '../../../server/hypervisor/sim/simDriver';
import { openStore, type Store } from '../../../server/store/db';
import { createSimMachineStore } from '../../../server/store/simMachineStore';
import { startPveSimulator, type PveSimulator } from '../../pvesim/simulator';
import { createTestDatabase, type TestDatabase } from '../databases';
import { createManualClock } from '../manualClock';
import { clusterSpec } from './contract';

// Whether a driver can run a template (HypervisorDriver.availability), and what the lifecycle
// does with the answer: a deploy, a batch or a disk copy of a template that cannot run is
// refused before anything is built, in a sentence naming the template and what is missing. The
// qemu driver's own rule is tested beside it (server/hypervisor/qemu/availability.test.ts) and
// through a launch (tests/server/qemuLaunch.test.ts).

const REFUSED =
  'The template web cannot run. The Proxmox VM template topoplay-debian-12 is not on the ' +
  'cluster: an administrator makes it (docs/deploy.md).';

/** How long the driver's inventory shares one listing of the cluster. */
const LISTING_MS = 500;

describe('proxmox availability', () => {
  let sim: PveSimulator;
  let driver: HypervisorDriver;
  const clock = createManualClock();
  const client = () =>
    createPveClient({
      url: sim.url,
      tokenId: sim.tokenId,
      tokenSecret: sim.tokenSecret,
      taskIntervalMs: 20,
    });

  beforeAll(async () => {
    sim = await startPveSimulator({ cloneMs: 30, fullCloneMs: 60, taskMs: 20 });
    driver = createProxmoxDriver({
      client: client(),
      storage: 'local-lvm',
      isoStorage: 'local',
      zone: 'topoplay',
      vnetTags: [2000, 3999],
      sdnDebounceMs: 20,
      lockBackoffMs: 20,
      listingMaxAgeMs: LISTING_MS,
      clock,
    });
  });
  afterAll(async () => {
    await driver?.close();
    await sim?.close();
  });

  it('is available when the cluster has the VM template the spec names', async () => {
    expect(await driver.availability(clusterSpec('web', newId(), 'topoplay-tiny'))).toEqual({
      available: true,
    });
  });

  it('is available when the VM template can be copied from one the cluster has', async () => {
    const spec = clusterSpec('web', newId(), 'copy-of-tiny', { baseImageSource: 'topoplay-tiny' });
    expect(await driver.availability(spec)).toEqual({ available: true });
  });

  it('is unavailable without the VM template, or when the spec names none and has no disk sizes', async () => {
    expect(await driver.availability(clusterSpec('web', newId(), 'topoplay-debian-12'))).toEqual({
      available: false,
      reason:
        'The Proxmox VM template topoplay-debian-12 is not on the cluster: an administrator ' +
        'makes it (docs/deploy.md).',
    });
    const sizeless = [{ index: 0, path: '', source: null, controller: null, sizeGiB: 0 }];
    expect(
      await driver.availability(clusterSpec('web', newId(), '', { disks: sizeless })),
    ).toMatchObject({
      available: false,
      reason: expect.stringContaining('names no Proxmox VM template'),
    });
    // With disk sizes, it is a new VM with empty disks (an ISO install).
    expect(await driver.availability(clusterSpec('web', newId(), ''))).toEqual({
      available: true,
    });
  });

  it('refuses a deploy, a batch and a disk copy of it, naming the template, building nothing', async () => {
    const tag = newId();
    const spec = clusterSpec('web', tag, 'topoplay-debian-12');
    await expect(driver.deploy(spec, false)).rejects.toMatchObject({
      code: 'invalid-state',
      message: REFUSED,
    });
    const batch = { isolationTag: tag, hostAffinity: false, privileged: false, specs: [spec] };
    await expect(driver.deployBatch(batch, true)).rejects.toMatchObject({ message: REFUSED });
    await expect(driver.deployBatch(batch, false)).rejects.toMatchObject({ message: REFUSED });
    const copied = clusterSpec('web', tag, `copy-${tag}`, {
      baseImageSource: 'topoplay-debian-12',
    });
    await expect(driver.createDisks(copied)).rejects.toMatchObject({
      code: 'invalid-state',
      message: expect.stringContaining('The template web cannot run.'),
    });
    expect(await driver.machinesOf(tag)).toEqual([]);
  });

  it('finds a VM template as soon as it is made, and remembers one it found a while', async () => {
    const spec = clusterSpec('web', newId(), 'topoplay-router');
    expect((await driver.availability(spec)).available).toBe(false);
    // An administrator makes the VM template (docs/deploy.md).
    const pve = client();
    const vmid = Number(await pve.get<string>('/cluster/nextid'));
    await pve.waitTask(
      await pve.post<string>('/nodes/pve1/qemu/9000/clone', {
        newid: vmid,
        name: 'topoplay-router',
        full: 1,
      }),
    );
    await pve.waitTask(await pve.post<string>(`/nodes/pve1/qemu/${vmid}/template`));
    // Once the inventory's shared listing (half a second) is over: long before the list's.
    clock.advance(LISTING_MS + 1);
    expect(await driver.availability(spec)).toEqual({ available: true });
    // Removed again: the listing that found it answers until it is too old.
    await pve.waitTask(await pve.delete<string>(`/nodes/pve1/qemu/${vmid}`));
    pve.close();
    expect(await driver.availability(spec)).toEqual({ available: true });
    clock.advance(TEMPLATE_LIST_MAX_AGE_MS + 1);
    expect((await driver.availability(spec)).available).toBe(false);
  });
});

describe('sim availability', () => {
  let database: TestDatabase;
  let store: Store;
  let driver: HypervisorDriver;
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-sim-avail-'));

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = await openStore({ url: database.url, schema: database.schema });
    driver = createSimDriver({ store: createSimMachineStore(store.db), dataDir, speed: 0 });
  });
  afterAll(async () => {
    await driver?.close();
    await store?.close();
    await database?.cleanup();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs every template: its machines are made from nothing', async () => {
    const spec = clusterSpec('web', newId(), 'topoplay-debian-12', {
      disks: [{ index: 0, path: 'debian-12.qcow2', source: null, controller: null, sizeGiB: 4 }],
    });
    expect(await driver.availability(spec)).toEqual({ available: true });
    expect((await driver.deploy(spec, false)).name).toBe(`web#${spec.isolationTag}`);
  });
});
