import { DISK_STORAGE, HOST_BRIDGE, macFor, memoryMiB, tagsOf, type VmConfig } from './config';
import { failure } from './errors';
import { createIsoShelves, type IsoShelves } from './isos';
import type { Timers } from './timers';

// The cluster the PVE API simulator pretends to be: nodes, VMs with their config files, pools
// and each node's ISO images. Handlers read and change it; tests inspect it. Lookups fail with PVE's own
// messages, so every handler refuses a missing VM the way PVE does.

export interface SimNode {
  name: string;
  maxmemMiB: number;
}

export interface SnapshotRecord {
  name: string;
  parent?: string;
  snaptime: number;
  description: string;
  config: VmConfig;
}

export interface VmRecord {
  vmid: number;
  node: string;
  config: VmConfig;
  running: boolean;
  /** When it last started or was reset (ms), for uptime and the guest agent's delay. */
  startedAt: number | null;
  snapshots: SnapshotRecord[];
  pool?: string;
  agentFiles: Record<string, string>;
  /** Commands the guest agent ran (agent/exec), by the pid it gave them. */
  agentExecs: AgentExec[];
}

/** A command the simulated guest ran through its agent: it exits with 0 after the task time. */
export interface AgentExec {
  pid: number;
  command: string[];
  input?: string;
  startedAt: number;
}

/** A VM as tests see it (a copy). */
export interface SimVm {
  vmid: number;
  name: string;
  node: string;
  template: boolean;
  status: 'running' | 'stopped';
  config: VmConfig;
  tags: string[];
  lock?: string;
  /** Snapshot names, oldest first. */
  snapshots: string[];
  pool?: string;
}

export interface SeedTemplate {
  vmid: number;
  name: string;
  node: string;
  memoryMiB: number;
}

/** The lowest vmid PVE hands out (datacenter.cfg's default lower bound). */
export const FIRST_VMID = 100;

export interface Cluster {
  nodes: Map<string, SimNode>;
  vms: Map<number, VmRecord>;
  pools: Map<string, { comment?: string }>;
  /** Each node's ISO images on storage 'local', which is not shared. */
  isos: IsoShelves;
  /** The node, or PVE's failure to reach an unknown one. */
  node(name: string): SimNode;
  /** The VM when its config is on that node, else PVE's "does not exist". */
  vmOn(node: string, vmid: number): VmRecord;
  nextFreeId(): number;
  /** Memory in use on a node: the configured memory of its running VMs. */
  usedMemory(node: string): number;
  inspect(vm: VmRecord): SimVm;
}

export const MIB = 1024 * 1024;

export const memoryBytes = (vm: VmRecord): number => memoryMiB(vm.config) * MIB;

export const uptimeOf = (vm: VmRecord): number =>
  vm.running && vm.startedAt !== null ? Math.floor((Date.now() - vm.startedAt) / 1000) : 0;

/** PVE's refusal of any change to a VM whose config holds a lock. */
export function checkLock(vm: VmRecord): void {
  if (vm.config.lock) throw failure(`VM is locked (${vm.config.lock})`);
}

export const isTemplate = (vm: VmRecord): boolean => vm.config.template === '1';

function templateConfig(seed: SeedTemplate): VmConfig {
  return {
    name: seed.name,
    memory: String(seed.memoryMiB),
    cores: '1',
    sockets: '1',
    ostype: 'l26',
    scsihw: 'virtio-scsi-single',
    scsi0: `${DISK_STORAGE}:base-${seed.vmid}-disk-0,size=2G`,
    ide2: 'none,media=cdrom',
    net0: `virtio=${macFor(seed.vmid, 0)},bridge=${HOST_BRIDGE},firewall=1`,
    boot: 'order=scsi0;ide2;net0',
    agent: '1',
    template: '1',
    smbios1: `uuid=00000000-0000-4000-8000-${String(seed.vmid).padStart(12, '0')}`,
  };
}

export function createCluster(options: {
  nodes: SimNode[];
  templates: SeedTemplate[];
  /** Seeded on every node. */
  isos: string[];
}): Cluster {
  const nodes = new Map(options.nodes.map((n) => [n.name, { ...n }]));
  const vms = new Map<number, VmRecord>();
  for (const seed of options.templates) {
    vms.set(seed.vmid, {
      vmid: seed.vmid,
      node: seed.node,
      config: templateConfig(seed),
      running: false,
      startedAt: null,
      snapshots: [],
      agentFiles: {},
      agentExecs: [],
    });
  }

  const node = (name: string): SimNode => {
    const found = nodes.get(name);
    if (!found) {
      // What PVE's proxy answers for a node name it cannot resolve.
      throw failure(
        `hostname lookup '${name}' failed - failed to get address info for: ${name}: Name or service not known`,
      );
    }
    return found;
  };

  return {
    nodes,
    vms,
    pools: new Map(),
    isos: createIsoShelves([...nodes.keys()], options.isos),
    node,
    vmOn(nodeName, vmid) {
      node(nodeName);
      const vm = vms.get(vmid);
      if (!vm || vm.node !== nodeName) {
        throw failure(
          `Configuration file 'nodes/${nodeName}/qemu-server/${vmid}.conf' does not exist`,
        );
      }
      return vm;
    },
    nextFreeId() {
      let id = FIRST_VMID;
      while (vms.has(id)) id++;
      return id;
    },
    usedMemory(nodeName) {
      let sum = 0;
      for (const vm of vms.values()) if (vm.node === nodeName && vm.running) sum += memoryBytes(vm);
      return sum;
    },
    inspect(vm) {
      return {
        vmid: vm.vmid,
        name: vm.config.name ?? `VM ${vm.vmid}`,
        node: vm.node,
        template: isTemplate(vm),
        status: vm.running ? 'running' : 'stopped',
        config: { ...vm.config },
        tags: tagsOf(vm.config),
        ...(vm.config.lock ? { lock: vm.config.lock } : {}),
        snapshots: vm.snapshots.map((s) => s.name),
        ...(vm.pool ? { pool: vm.pool } : {}),
      };
    },
  };
}

/**
 * The per-VM config file locks (PVE's flock on /var/lock/qemu-server/lock-{vmid}.conf) that a
 * clone holds on its source for as long as it runs. A second taker waits its turn up to a limit,
 * in order of arrival, and then gives up.
 */
export interface ConfigLocks {
  /** Resolves true once held, false when `waitMs` passed first (or the simulator closed). */
  acquire(vmid: number, waitMs: number): Promise<boolean>;
  release(vmid: number): void;
  /** Gives up every wait. */
  close(): void;
}

export function createConfigLocks(timers: Timers): ConfigLocks {
  const held = new Set<number>();
  const waiters = new Map<number, Array<(got: boolean) => void>>();

  const dropWaiter = (vmid: number, waiter: (got: boolean) => void) => {
    const queue = waiters.get(vmid) ?? [];
    const rest = queue.filter((w) => w !== waiter);
    if (rest.length > 0) waiters.set(vmid, rest);
    else waiters.delete(vmid);
  };

  return {
    acquire(vmid, waitMs) {
      if (!held.has(vmid)) {
        held.add(vmid);
        return Promise.resolve(true);
      }
      return new Promise((resolve) => {
        const waiter = (got: boolean) => {
          cancel();
          dropWaiter(vmid, waiter);
          resolve(got);
        };
        const cancel = timers.after(waitMs, () => waiter(false));
        waiters.set(vmid, [...(waiters.get(vmid) ?? []), waiter]);
      });
    },
    release(vmid) {
      const next = waiters.get(vmid)?.[0];
      // The lock passes straight to the next in line, so nobody can overtake it.
      if (next) next(true);
      else held.delete(vmid);
    },
    close() {
      for (const queue of [...waiters.values()]) for (const waiter of queue) waiter(false);
      held.clear();
    },
  };
}
