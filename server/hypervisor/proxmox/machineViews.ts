// Machines of the proxmox driver as the driver's vocabulary: an existing VM as PVE lists it, or
// one this server is still deploying (it exists for callers before PVE has it).

import { deployTaskOf, type DeployActorRef } from '../deploy';
import { tagOf, type Machine, type MachineTask, type PowerState } from '../types';
import type { OwnVm, PveResource } from './inventory';
import type { MachineMeta } from './names';

/** A machine this driver is deploying: it exists for callers before PVE has it. */
export interface Pending {
  vmid: number;
  node: string;
  meta: MachineMeta;
  /** Where the deploy is (deploy.ts): its task, and whether a delete cancelled it. */
  deploy: DeployActorRef;
  done: Promise<void>;
}

/** The task a deploy under way shows on its machine. */
export const pendingTask = (p: Pending): MachineTask | null => deployTaskOf(p.deploy.getSnapshot());

/** A delete cancelled the deploy: what it made so far is to be removed. */
export const isCancelled = (p: Pending): boolean => p.deploy.getSnapshot().value === 'cancelled';

export const powerOf = (status: string | undefined): PowerState =>
  status === 'running' ? 'running' : status === 'paused' ? 'suspended' : 'off';

/**
 * A machine of ours as PVE lists it; `task` the one this server runs on it, if any, and `now` the
 * start of the task a lock or another server's deploy shows.
 */
export function machineOf(vm: OwnVm, task: MachineTask | undefined, now: number): Machine {
  const { resource: r, meta } = vm;
  const state = powerOf(r.status);
  const mem = r.maxmem ? Math.round(((r.mem ?? 0) / r.maxmem) * 100) : 0;
  const cpu = Math.round((r.cpu ?? 0) * 100);
  return {
    id: String(r.vmid),
    name: meta.name,
    host: r.node,
    path: `${r.node}/qemu/${r.vmid}`,
    reference: `qemu/${r.vmid}`,
    diskPath: '',
    stats: `deployed | ${state === 'running' ? `mem-${mem}% cpu-${cpu}%` : 'off'}`,
    status: 'deployed',
    state,
    question: null,
    task: task ?? (r.lock ? lockTask(r, now) : meta.ready ? null : deployTask(vm, now)),
    tags: [tagOf(meta.name)],
    isTemplate: false,
    nics: meta.nets.map((network, index) => ({ index, network })),
  };
}

/** A machine another server (or one that stopped) is deploying. */
export const deployTask = ({ resource: r, meta }: OwnVm, now: number): MachineTask => ({
  id: `deploy-${r.vmid}`,
  name: 'deploying',
  progress: 0,
  started: meta.since ?? now,
});

/** A machine PVE holds a lock on (a clone, a backup, a migration) is busy with that. */
export const lockTask = (r: PveResource, now: number): MachineTask => ({
  id: `lock-${r.vmid}`,
  name: r.lock ?? 'locked',
  progress: 0,
  started: now,
});

export function pendingMachine(p: Pending): Machine {
  return {
    id: String(p.vmid),
    name: p.meta.name,
    host: p.node,
    path: `${p.node}/qemu/${p.vmid}`,
    reference: `qemu/${p.vmid}`,
    diskPath: '',
    stats: 'deploying | off',
    status: 'deployed',
    state: 'off',
    question: null,
    task: pendingTask(p),
    tags: [tagOf(p.meta.name)],
    isTemplate: false,
    nics: p.meta.nets.map((network, index) => ({ index, network })),
  };
}
