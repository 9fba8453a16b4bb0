import { DriverError, type Machine } from '../types';
import { PveError } from './client';
import { removeSnippets } from './cloudInit';
import type { createImages } from './images';
import type { Inventory } from './inventory';
import { vmPath, type Machines } from './machines';
import { SNAPSHOT } from './names';
import type { ProxmoxDriverOptions } from './options';
import type { Sdn } from './sdn';

// Operations on existing machines: start, stop, revert, save and delete, each a task its machine
// shows until it ends and announced once it has. A delete of a machine still being deployed
// cancels the deploy instead (deploys.ts).

export interface PowerOptions {
  options: ProxmoxDriverOptions;
  inventory: Inventory;
  sdn: Sdn;
  images: ReturnType<typeof createImages>;
  machines: Machines;
  /** Cancels a deploy under way: its machine as the cancel left it, or null if none runs. */
  cancelDeploy(id: string): Promise<Machine | null>;
}

export function createPower({
  options,
  inventory,
  sdn,
  images,
  machines,
  cancelDeploy,
}: PowerOptions) {
  const api = options.client;
  const { ownVm, withTask, announce, load } = machines;

  /** The machine as it is now, once an operation on it has ended. */
  const reloaded = async (vmid: number): Promise<Machine> => (await load(String(vmid)))!;

  /** Starts a machine once the vnets it uses are applied. */
  async function startVm(node: string, vmid: number): Promise<void> {
    await sdn.settled();
    const upid = await api.post<string>(`/nodes/${node}/qemu/${vmid}/status/start`);
    await api.waitTask(upid);
  }

  async function start(id: string): Promise<Machine> {
    const vm = await ownVm(id);
    if (vm.resource.status !== 'running') {
      await withTask(vm.resource.vmid, 'starting', () =>
        startVm(vm.resource.node, vm.resource.vmid),
      );
      void announce(vm.resource.vmid, 'updated');
    }
    return reloaded(vm.resource.vmid);
  }

  async function stop(id: string): Promise<Machine> {
    const vm = await ownVm(id);
    if (vm.resource.status !== 'stopped') {
      await withTask(vm.resource.vmid, 'stopping', async () => {
        const upid = await api.post<string>(`${vmPath(vm)}/status/stop`);
        await api.waitTask(upid);
      });
      void announce(vm.resource.vmid, 'updated');
    }
    return reloaded(vm.resource.vmid);
  }

  async function revert(id: string): Promise<Machine> {
    const vm = await ownVm(id);
    const wasRunning = vm.resource.status === 'running';
    await withTask(vm.resource.vmid, 'reverting', async () => {
      const upid = await api.post<string>(`${vmPath(vm)}/snapshot/${SNAPSHOT}/rollback`);
      await api.waitTask(upid);
      inventory.invalidate();
      // A rollback to a snapshot without memory leaves the machine off.
      const now = await api.get<{ status: string }>(`${vmPath(vm)}/status/current`);
      if (wasRunning && now.status !== 'running') {
        await startVm(vm.resource.node, vm.resource.vmid);
      }
    });
    void announce(vm.resource.vmid, 'updated');
    return reloaded(vm.resource.vmid);
  }

  async function save(id: string): Promise<Machine> {
    const vm = await ownVm(id);
    const base = (await inventory.resources()).find((r) => r.vmid === vm.meta.source);
    if (!base || !images.isOurs(base)) {
      throw new DriverError(
        'invalid-state',
        'External templates must be cloned into local templates in order to be saved',
      );
    }
    await withTask(vm.resource.vmid, 'saving', async () => {
      // Revert now comes back here...
      const dropped = await api.delete<string>(`${vmPath(vm)}/snapshot/${SNAPSHOT}`);
      await api.waitTask(dropped);
      const taken = await api.post<string>(`${vmPath(vm)}/snapshot`, { snapname: SNAPSHOT });
      await api.waitTask(taken);
      // ...and new machines are cloned from what it is now.
      await images.replaceWith(base, vm.resource, (p) => machines.progressOf(vm.resource.vmid, p));
    });
    void announce(vm.resource.vmid, 'updated');
    return reloaded(vm.resource.vmid);
  }

  /** Stops and removes a VM with its disks; one already gone is no error. */
  async function destroy(node: string, vmid: number): Promise<void> {
    const status = await api
      .get<{ status: string }>(`/nodes/${node}/qemu/${vmid}/status/current`)
      .catch((error: unknown) => {
        if (error instanceof PveError && error.kind === 'not-found') return null;
        throw error;
      });
    if (!status) return;
    if (status.status !== 'stopped') {
      await api.waitTask(await api.post<string>(`/nodes/${node}/qemu/${vmid}/status/stop`));
    }
    const upid = await api.delete<string>(`/nodes/${node}/qemu/${vmid}`, {
      purge: 1,
      'destroy-unreferenced-disks': 1,
    });
    await api.waitTask(upid);
    if (options.snippets) await removeSnippets(options.snippets, vmid);
    inventory.forget(vmid);
    inventory.invalidate();
  }

  async function remove(id: string): Promise<Machine> {
    const cancelled = await cancelDeploy(id);
    if (cancelled) return cancelled;
    const vm = await ownVm(id);
    const machine = machines.toMachine(vm);
    await withTask(vm.resource.vmid, 'deleting', () => destroy(vm.resource.node, vm.resource.vmid));
    return { ...machine, status: 'initialized', task: null, state: 'off' };
  }

  return { startVm, start, stop, revert, save, destroy, remove };
}
