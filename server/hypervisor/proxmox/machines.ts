import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock';
import { clampProgress } from '../deploy';
import { resolveIn } from '../lifecycle';
import { DriverError, type DriverEvent, type Machine, type MachineTask } from '../types';
import type { Inventory, OwnVm } from './inventory';
import { machineOf, pendingMachine, pendingTask, type Pending } from './machineViews';
import { driverErrorOf } from './pveErrors';

// Our machines as callers see them: those PVE lists (with the task this server runs on each, if
// any) and those still being deployed, found by id (a VMID, followed when a deploy moved it) or
// by name. Operations run here as tasks whose names show on their machines until they end.

/** A deploy not configured after this long was abandoned (its server stopped in the middle). */
export const ABANDONED_DEPLOY_MS = 60 * 60_000;

/** Runs a PVE call, its errors in the driver's vocabulary. */
export async function pve<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw driverErrorOf(error);
  }
}

/** A VM's path in the API. */
export const vmPath = (vm: OwnVm | { node: string; vmid: number }): string =>
  'resource' in vm
    ? `/nodes/${vm.resource.node}/qemu/${vm.resource.vmid}`
    : `/nodes/${vm.node}/qemu/${vm.vmid}`;

export interface MachinesOptions {
  inventory: Inventory;
  /** Deploys under way (deploys.ts), and where a deploy that changed VMID went. */
  deploys: { pending: ReadonlyMap<number, Pending>; resolveId(id: string): string };
  emit(event: DriverEvent): void;
  clock: Clock;
}

export function createMachines({ inventory, deploys, emit, clock }: MachinesOptions) {
  const { pending, resolveId } = deploys;
  /** Tasks of existing machines (starting, saving, ...), by VMID. */
  const tasks = new Map<number, MachineTask>();

  const toMachine = (vm: OwnVm): Machine => machineOf(vm, tasks.get(vm.resource.vmid), clock.now());

  /**
   * Machines whose deploy began long ago and never configured them: their server stopped in the
   * middle. No other server is deploying them (a deploy takes minutes), and nothing will finish
   * them; they go with the orphans.
   */
  async function abandoned(): Promise<OwnVm[]> {
    const before = clock.now() - ABANDONED_DEPLOY_MS;
    return (await inventory.machines()).filter(
      (m) =>
        !m.meta.ready &&
        !m.resource.lock &&
        !pending.has(m.resource.vmid) &&
        (m.meta.since ?? 0) < before,
    );
  }

  /** Every machine of ours, those being deployed included. */
  async function allMachines(): Promise<Machine[]> {
    const existing = (await inventory.machines()).map(toMachine);
    const ids = new Set(existing.map((m) => m.id));
    const deployingNow = [...pending.values()]
      .filter((p) => !ids.has(String(p.vmid)))
      .map(pendingMachine);
    // A machine PVE lists while its deploy still runs shows the deploy's task.
    const withTasks = existing.map((m) => {
      const p = pending.get(Number(m.id));
      return p ? { ...m, state: 'off' as const, task: pendingTask(p) } : m;
    });
    return [...withTasks, ...deployingNow];
  }

  async function load(idOrName: string): Promise<Machine | null> {
    return resolveIn(await allMachines(), idOrName, resolveId(idOrName)) ?? null;
  }

  /**
   * An existing machine of ours, or not-found. A call about a machine still being deployed waits
   * for the deploy to end (a start right after a deploy starts it once it exists).
   */
  async function ownVm(id: string): Promise<OwnVm> {
    const resolved = resolveId(id);
    const deploy =
      pending.get(Number(resolved)) ?? [...pending.values()].find((p) => p.meta.name === id);
    if (deploy) await deploy.done;
    const vms = await inventory.machines();
    const vm =
      vms.find((v) => String(v.resource.vmid) === resolved) ?? vms.find((v) => v.meta.name === id);
    if (!vm) throw new DriverError('not-found', `no machine ${id}`);
    return vm;
  }

  /** Runs a task of a machine: its name shows on the machine until it ends. */
  async function withTask<T>(vmid: number, name: string, work: () => Promise<T>): Promise<T> {
    const task = { id: randomUUID(), name, progress: 0, started: clock.now() };
    tasks.set(vmid, task);
    try {
      return await pve(work);
    } finally {
      if (tasks.get(vmid) === task) tasks.delete(vmid);
      inventory.invalidate();
    }
  }

  /** Progress of the task a machine runs; 0..100 as PVE tells it. */
  function progressOf(vmid: number, percent: number): void {
    const task = tasks.get(vmid);
    if (task) task.progress = clampProgress(percent);
  }

  /** Tells listeners about a machine as it is now. */
  async function announce(vmid: number, type: 'stopped' | 'updated'): Promise<void> {
    const machine = await load(String(vmid)).catch(() => null);
    if (machine) emit({ type, machine });
  }

  return {
    toMachine,
    abandoned,
    allMachines,
    load,
    ownVm,
    withTask,
    progressOf,
    announce,
    /** Whether this server runs a task on the machine (its stop is then no news). */
    isBusy: (vmid: number) => tasks.has(vmid),
  };
}

export type Machines = ReturnType<typeof createMachines>;
