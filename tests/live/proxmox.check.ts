import { randomBytes } from 'node:crypto';
import { vi } from 'vitest';
import { loadConfig } from '../../server/config';
import type { ConsoleTickets, MachineSpec } from '../../server/hypervisor';
import { PveError, type PveClient } from '../../server/hypervisor/proxmox/client';
import { proxmoxClientOf, proxmoxDriverOf } from '../../server/plugins/hypervisor';
import type { PveVnet } from '../../server/hypervisor/proxmox/sdn';
import { clusterSpec, driverContract } from '../server/hypervisor/contract';

// The live check for admins (`npm run check:proxmox`, docs/deploy.md): the driver contract the
// CI runs against the PVE API simulator, here against the cluster the PROXMOX_* settings name.
// Everything it makes is in a resource pool of its own (`topoplay-check-…`), and it removes all
// of it at the end, pool included: its machines and base image copies (the pool's members), the
// vnets it made (those that were not there before), and the `bridge-net` vnet it adds when the
// zone has none (the contract's reserved net). PROXMOX_CHECK_TEMPLATE names the PVE template
// machines are cloned from (default topoplay-tiny).

const config = loadConfig({ ...process.env, HYPERVISOR: 'proxmox' });
const pve = config.proxmox;
const template = process.env.PROXMOX_CHECK_TEMPLATE || 'topoplay-tiny';
const run = randomBytes(3).toString('hex');
const pool = `topoplay-check-${run}`;

const tickets: ConsoleTickets = {
  issue: async (vmId) => ({ ticket: 'check', url: `/api/console/vnc/${vmId}?ticket=check` }),
};

const spec = (name: string, tag: string, fields: Partial<MachineSpec> = {}) =>
  clusterSpec(name, tag, `${pool}-base`, { memoryMiB: 256, ...fields });

const vnetsOf = async (client: PveClient) =>
  (await client.get<PveVnet[]>('/cluster/sdn/vnets')).filter((v) => v.zone === pve.zone);

/** Removes what the check made: the pool's VMs (machines first), new vnets, the pool. */
async function cleanUp(client: PveClient, vnetsBefore: Set<string>): Promise<void> {
  const members = await client
    .get<{ members: Array<{ vmid?: number; node: string; template?: number }> }>(`/pools/${pool}`)
    .then((p) => p.members.filter((m) => typeof m.vmid === 'number'))
    .catch(() => []);
  for (const m of members.sort((a, b) => (a.template ?? 0) - (b.template ?? 0))) {
    const path = `/nodes/${m.node}/qemu/${m.vmid}`;
    try {
      const status = await client.get<{ status: string }>(`${path}/status/current`);
      if (status.status !== 'stopped') {
        await client.waitTask(await client.post<string>(`${path}/status/stop`));
      }
      await client.waitTask(await client.delete<string>(path, { purge: 1 }));
    } catch (error) {
      // Gone already (a retired base image the driver removed) is what was wanted.
      if (error instanceof PveError && error.kind === 'not-found') continue;
      console.warn(`check: could not remove VM ${m.vmid}: ${String(error)}`);
    }
  }
  const made = (await vnetsOf(client)).filter((v) => !vnetsBefore.has(v.vnet));
  for (const v of made) await client.delete(`/cluster/sdn/vnets/${v.vnet}`);
  if (made.length > 0) await client.waitTask(await client.put<string>('/cluster/sdn'));
  await client.delete(`/pools/${pool}`).catch((error: unknown) => {
    console.warn(`check: could not remove the pool ${pool}: ${String(error)}`);
  });
}

driverContract(`proxmox (live cluster ${pve.url}, pool ${pool})`, async () => {
  const client = await proxmoxClientOf(pve);
  const vnetsBefore = new Set((await vnetsOf(client)).map((v) => v.vnet));
  await client.post('/pools', { poolid: pool, comment: 'Topoplay check: removed when it ends' });
  // The contract's reserved net: an admin's vnet named bridge-net, added when there is none.
  const existing = await vnetsOf(client);
  if (!existing.some((v) => v.alias === 'bridge-net')) {
    const used = new Set(existing.map((v) => v.tag));
    let tag = pve.vnetTags[1];
    while (used.has(tag)) tag--;
    await client.post('/cluster/sdn/vnets', {
      vnet: `tpck${run.slice(0, 4)}`,
      zone: pve.zone,
      tag,
      alias: 'bridge-net',
    });
    await client.waitTask(await client.put<string>('/cluster/sdn'));
  }
  const driver = proxmoxDriverOf(pve, client, { pool, console: tickets });
  try {
    await driver.ready();
    // The check's own base image (saves go into it), a copy of the template.
    const own = spec('base', pool, { baseImageSource: template });
    await driver.createDisks(own);
    await vi.waitFor(
      async () => {
        if ((await driver.verifyDisks(own))[0] !== 100) throw new Error('copying the template');
      },
      { timeout: 600_000, interval: 2_000 },
    );
  } catch (error) {
    await cleanUp(client, vnetsBefore);
    throw error;
  }
  return {
    driver,
    consoles: true,
    close: async () => {
      await driver.close();
      await cleanUp(client, vnetsBefore);
      client.close();
    },
    specFor: (name, tag, fields) => spec(name, tag, fields),
    copiedSpecFor: (name, tag) =>
      spec(name, tag, { baseImage: `${pool}-${tag}`, baseImageSource: template }),
    stockSpecFor: (name, tag) => spec(name, tag, { baseImage: template }),
    taskDeadlineMs: 240_000,
  };
});
