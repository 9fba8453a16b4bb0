import { randomUUID } from 'node:crypto';
import { clampProgress } from '../deploy';
import {
  changeStateBy,
  deployBatchBy,
  findIn,
  forEachFound,
  ofTagIn,
  resolveIn,
  specName,
  undeployedMachine,
} from '../lifecycle';
import { createListeners } from '../listeners';
import {
  DriverError,
  isolatedNet,
  netOptions,
  tagOf,
  type DeploymentContext,
  type DriverCapabilities,
  type DriverStatus,
  type HypervisorDriver,
  type Machine,
  type MachineChange,
  type MachineSpec,
  type MachineTask,
  type PowerState,
} from '../types';
import { bridgesOf, reservedNets } from './bridges';
import { isLockError, PveError } from './client';
import { createCloneQueue } from './cloneQueue';
import { createDeploys } from './deploys';
import { createImages } from './images';
import { createInventory, type OwnVm } from './inventory';
import { createIsoStorage } from './isoStorage';
import { machineOf, pendingMachine, pendingTask } from './machineViews';
import { describeMachine, isoVolumeOf, netOfAlias, SNAPSHOT } from './names';
import type { ProxmoxDriverOptions } from './options';
import { driverErrorOf } from './pveErrors';
import { createSdn } from './sdn';
import { bridgePveConsole } from './vncBridge';

export type { ProxmoxDriverOptions } from './options';

// The proxmox driver: lab machines on a Proxmox VE cluster through its REST API (client.ts).
// - A deploy is a linked clone of the PVE template the spec names (spec.baseImage) onto the
//   allowed node with the most free memory. Its VMID is reserved at once, so the machine exists
//   (with a task and its progress) while its clone waits its turn (cloneQueue.ts: PVE's clone
//   lock never fails a launch).
// - Networks are SDN vnets (sdn.ts), applied in batches; a machine starts once its vnets are.
// - Revert goes back to a snapshot taken at deploy; save replaces that snapshot and, for a base
//   image of ours, makes the machine the base image new machines are cloned from (images.ts).
// - Consoles: vncproxy and vncwebsocket, bridged by our own ticketed console WebSocket
//   (vncBridge.ts); the browser never sees PVE's address, ports or tickets.
// Machine ids are VMIDs, as the reference's are. Deploys are deploys.ts's.

const OPERATIONS = ['start', 'stop', 'save', 'revert', 'delete', 'reset'] as const;

const MIB = 1024 * 1024;

/** A deploy not configured after this long was abandoned (its server stopped in the middle). */
export const ABANDONED_DEPLOY_MS = 60 * 60_000;

export function createProxmoxDriver(options: ProxmoxDriverOptions): HypervisorDriver {
  const api = options.client;
  const { log } = options;
  const pool = options.pool || undefined;
  const inventory = createInventory(api, { maxAgeMs: options.listingMaxAgeMs });
  const sdn = createSdn({
    api,
    zone: options.zone,
    tags: options.vnetTags,
    debounceMs: options.sdnDebounceMs,
    log,
  });
  const queue = createCloneQueue({ isBusy: isLockError, baseDelayMs: options.lockBackoffMs });
  const isos = createIsoStorage({
    api,
    inventory,
    storage: options.isoStorage,
    nodes: options.nodes ?? [],
  });
  const images = createImages({
    api,
    inventory,
    queue,
    storage: options.storage,
    pool,
    reserveVmid: () => deploys.reserveVmid(),
    releaseVmid: (vmid) => deploys.releaseVmid(vmid),
    destroy: (node, vmid) => destroy(node, vmid),
    log,
  });
  const listeners = createListeners((error) =>
    log?.warn({ err: error }, 'a proxmox driver listener failed'),
  );
  /** Tasks of existing machines (starting, saving, ...), by VMID. */
  const tasks = new Map<number, MachineTask>();
  const deploys = createDeploys({
    options,
    inventory,
    sdn,
    queue,
    allMachines: () => allMachines(),
    load: (idOrName) => load(idOrName),
    announce: (vmid, type) => announce(vmid, type),
    destroy: (node, vmid) => destroy(node, vmid),
    startVm: (node, vmid) => startVm(node, vmid),
    isClosed: () => closed,
  });
  const { pending, resolveId, deploy, pickNode } = deploys;
  let closed = false;
  let version = '';

  const capabilities: DriverCapabilities = {
    kind: 'proxmox',
    operations: OPERATIONS,
    liveIsoChange: true,
    liveNicChange: true,
    guestChange: false,
    serverConsoles: !!options.console,
    simulated: false,
    acceleration: 'Proxmox VE cluster',
  };

  // -------------------------------------------------------------------------------------------
  // Machines as the driver's vocabulary.

  const toMachine = (vm: OwnVm): Machine => machineOf(vm, tasks.get(vm.resource.vmid));

  /**
   * Machines whose deploy began long ago and never configured them: their server stopped in the
   * middle. No other server is deploying them (a deploy takes minutes), and nothing will finish
   * them; they go with the orphans.
   */
  async function abandoned(): Promise<OwnVm[]> {
    const before = Date.now() - ABANDONED_DEPLOY_MS;
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

  const vmPath = (vm: OwnVm | { node: string; vmid: number }) =>
    'resource' in vm
      ? `/nodes/${vm.resource.node}/qemu/${vm.resource.vmid}`
      : `/nodes/${vm.node}/qemu/${vm.vmid}`;

  /** Runs a PVE call, its errors in the driver's vocabulary. */
  async function pve<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      throw driverErrorOf(error);
    }
  }

  /** Runs a task of a machine: its name shows on the machine until it ends. */
  async function withTask<T>(vmid: number, name: string, work: () => Promise<T>): Promise<T> {
    const task = { id: randomUUID(), name, progress: 0, started: Date.now() };
    tasks.set(vmid, task);
    try {
      return await pve(work);
    } finally {
      if (tasks.get(vmid) === task) tasks.delete(vmid);
      inventory.invalidate();
    }
  }

  async function announce(vmid: number, type: 'stopped' | 'updated') {
    const machine = await load(String(vmid)).catch(() => null);
    if (machine) listeners.emit({ type, machine });
  }

  // -------------------------------------------------------------------------------------------
  // Power.

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
    return (await load(String(vm.resource.vmid)))!;
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
    return (await load(String(vm.resource.vmid)))!;
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
    return (await load(String(vm.resource.vmid)))!;
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
      await images.replaceWith(base, vm.resource, (p) => progressOf(vm.resource.vmid, p));
    });
    void announce(vm.resource.vmid, 'updated');
    return (await load(String(vm.resource.vmid)))!;
  }

  function progressOf(vmid: number, percent: number): void {
    const task = tasks.get(vmid);
    if (task) task.progress = clampProgress(percent);
    else deploys.progress(vmid, percent);
  }

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
    inventory.forget(vmid);
    inventory.invalidate();
  }

  async function remove(id: string): Promise<Machine> {
    const resolved = resolveId(id);
    const p = pending.get(Number(resolved));
    if (p) {
      // The deploy removes what it made once it sees this.
      p.deploy.send({ type: 'deploy.cancelRequested' });
      const machine = pendingMachine(p);
      await p.done;
      return { ...machine, status: 'initialized', task: null };
    }
    const vm = await ownVm(id);
    const machine = toMachine(vm);
    await withTask(vm.resource.vmid, 'deleting', () => destroy(vm.resource.node, vm.resource.vmid));
    return { ...machine, status: 'initialized', task: null, state: 'off' };
  }

  /** The node of a batch with host affinity: where the tag's machines are, or the roomiest. */
  async function batchNode(missing: MachineSpec[], context: DeploymentContext) {
    if (!context.hostAffinity) return undefined;
    const together = (await allMachines()).find((m) => tagOf(m.name) === context.isolationTag);
    return together?.host ?? pickNode(missing[0]!);
  }

  const deployBatch = (context: DeploymentContext, wait: boolean) =>
    deployBatchBy(
      {
        machinesOf: (tag) => driver.machinesOf(tag),
        track: (work) =>
          void work.catch((error: unknown) =>
            log?.warn({ err: error }, 'proxmox: batch deploy failed'),
          ),
        async open(missing, context) {
          const node = await pve(() => batchNode(missing, context));
          return {
            deploy: (specs, privileged) =>
              Promise.all(specs.map((s) => deploy(s, privileged, node))),
            // A machine still being built is started once it is (ownVm waits for its deploy).
            start: (machine) => start(machine.id),
          };
        },
      },
      context,
      wait,
    );

  // -------------------------------------------------------------------------------------------
  // Configuration.

  async function netOptionsOf(tag: string): Promise<string[]> {
    const vnets = await pve(() => sdn.list());
    const ours = vnets.map((v) => netOfAlias(v.alias)).filter((n): n is string => n !== null);
    const reserved = vnets
      .filter((v) => netOfAlias(v.alias) === null)
      .map((v) => v.alias || v.vnet);
    return netOptions(reserved, ours, tag);
  }

  async function changeConfiguration(
    id: string,
    change: MachineChange,
    privileged: boolean,
  ): Promise<Machine> {
    const vm = await ownVm(id);
    const tag = tagOf(vm.meta.name);
    const path = `${vmPath(vm)}/config`;
    switch (change.kind) {
      case 'iso': {
        if (change.path && !(await pve(() => isos.isoOptions(tag))).includes(change.path)) {
          throw new DriverError('invalid-request', `no ISO ${change.path} for this machine`);
        }
        const volume = change.path ? isoVolumeOf(options.isoStorage, change.path) : 'none';
        await pve(() => api.put(path, { ide2: `${volume},media=cdrom` }));
        break;
      }
      case 'net': {
        if (!(change.nic in vm.meta.nets) || change.nic < 0) {
          throw new DriverError('invalid-request', `the machine has no NIC ${change.nic}`);
        }
        const reserved = privileged ? await pve(() => reservedNets(sdn)) : [];
        const net = reserved.includes(change.network)
          ? change.network
          : isolatedNet(change.network, tag, false, []);
        const bridges = await pve(() => bridgesOf(sdn, [net]));
        const bridge = bridges.get(net);
        if (!bridge) throw new DriverError('invalid-request', `no network ${change.network}`);
        const config = await pve(() => api.get<Record<string, string>>(path));
        const current = config[`net${change.nic}`] ?? 'virtio';
        const model = current.split(',')[0]!;
        const nets = vm.meta.nets.map((n, i) => (i === change.nic ? net : n));
        const meta = { ...vm.meta, nets };
        await pve(() => sdn.settled());
        await pve(() =>
          api.put(path, {
            [`net${change.nic}`]: `${model},bridge=${bridge}`,
            description: describeMachine(meta),
          }),
        );
        inventory.remember(vm.resource.vmid, meta);
        break;
      }
      case 'boot':
        await pve(() => api.put(path, { startup: `up=${Math.max(0, change.delaySeconds)}` }));
        break;
      case 'guest':
        throw new DriverError(
          'unsupported',
          'guest settings of a deployed Proxmox machine cannot be changed',
        );
    }
    inventory.invalidate();
    void announce(vm.resource.vmid, 'updated');
    return (await load(String(vm.resource.vmid)))!;
  }

  // -------------------------------------------------------------------------------------------
  // Watching: machines that stop on their own (a guest shutdown) are announced.

  let watchTimer: NodeJS.Timeout | null = null;
  let lastStates = new Map<string, PowerState>();
  async function watch(): Promise<void> {
    try {
      inventory.invalidate();
      const now = new Map((await allMachines()).map((m) => [m.id, m.state] as const));
      for (const [id, state] of now) {
        const before = lastStates.get(id);
        if (before === 'running' && state === 'off' && !tasks.has(Number(id))) {
          void announce(Number(id), 'stopped');
        }
      }
      lastStates = now;
    } catch (error) {
      log?.warn({ err: error }, 'proxmox: watching machines failed');
    }
  }

  const driver: HypervisorDriver = {
    capabilities,
    load: (id) => pve(() => load(id)),
    start,
    stop,
    save,
    revert,
    delete: remove,
    changeState: (id, operation) => changeStateBy(driver, id, operation),
    changeConfiguration,
    async answer(id) {
      await ownVm(id);
      throw new DriverError('invalid-state', 'the machine asks no question');
    },
    deploy,
    deployBatch,
    async refresh(spec) {
      const existing = await pve(() => load(specName(spec)));
      if (existing) return existing;
      return undeployedMachine(spec, {
        // A node is chosen when the machine is deployed.
        host: '',
        diskPath: spec.baseImage ?? '',
        progress: await pve(() => images.progress(spec)),
        copyStarted: images.copyOf(spec),
      });
    },
    find: async (term) => findIn(await pve(allMachines), term),
    machinesOf: async (tag) => ofTagIn(await pve(allMachines), tag),
    startAll: (term) => forEachFound(driver.find(term), start),
    stopAll: (term) => forEachFound(driver.find(term), stop),
    async deleteAll(term) {
      const deleted = await forEachFound(driver.find(term), remove);
      await pve(() => sdn.removeTag(term));
      return deleted;
    },
    createDisks: (spec) => pve(() => images.create(spec)),
    async verifyDisks(spec) {
      const progress = await pve(() => images.progress(spec));
      return spec.disks.length > 0 ? spec.disks.map(() => progress) : [progress];
    },
    deleteDisks: (spec) => pve(() => images.remove(spec)),
    async display(id) {
      const deploy = pending.get(Number(resolveId(id)));
      if (deploy)
        return { machineId: String(deploy.vmid), url: '', ticket: null, isRunning: false };
      const vm = await ownVm(id);
      const running = vm.resource.status === 'running';
      let url = '';
      let ticket: string | null = null;
      if (running && options.console) {
        ({ url, ticket } = await options.console.issue(String(vm.resource.vmid)));
      }
      return { machineId: String(vm.resource.vmid), url, ticket, isRunning: running };
    },
    async openConsole(id, viewer) {
      const vm = await ownVm(id);
      if (vm.resource.status !== 'running') {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      const proxy = await pve(() =>
        api.post<{ port: string | number; ticket: string }>(`${vmPath(vm)}/vncproxy`, {
          websocket: 1,
        }),
      );
      const socket = await pve(() =>
        api.openWebSocket(`${vmPath(vm)}/vncwebsocket`, {
          port: proxy.port,
          vncticket: proxy.ticket,
        }),
      );
      return bridgePveConsole(socket, proxy.ticket, viewer);
    },
    isoOptions: (tag) => pve(() => isos.isoOptions(tag)),
    storeIso: (path, file) => pve(() => isos.storeIso(path, file)),
    removeIso: (path) => pve(() => isos.removeIso(path)),
    netOptions: (tag) => netOptionsOf(tag),
    subscribe(listener) {
      const unsubscribe = listeners.subscribe(listener);
      if (!watchTimer && !closed) {
        watchTimer = setInterval(() => void watch(), options.watchMs ?? 5_000);
        watchTimer.unref();
      }
      return unsubscribe;
    },
    async ready() {
      const about = await pve(() => api.get<{ version: string }>('/version'));
      version = about.version;
      capabilities.acceleration = `Proxmox VE ${version}`;
      await pve(() => api.get(`/cluster/sdn/zones/${options.zone}`)).catch(() => {
        throw new DriverError(
          'unavailable',
          `the SDN zone ${options.zone} (PROXMOX_SDN_ZONE) does not exist on the cluster`,
        );
      });
    },
    async status(): Promise<DriverStatus> {
      const machines = await pve(() => inventory.machines());
      const running = machines.filter((m) => m.resource.status === 'running');
      const memory = running.reduce((sum, m) => sum + (m.resource.maxmem ?? 0), 0);
      return {
        kind: 'proxmox',
        acceleration: capabilities.acceleration,
        running: running.length,
        maxRunning: null,
        memoryMiBInUse: Math.round(memory / MIB),
        maxMemoryMiB: null,
        orphans: (await pve(() => images.retired())).length + (await pve(abandoned)).length,
      };
    },
    async removeOrphans() {
      let removed = 0;
      for (const m of await pve(abandoned)) {
        await pve(() => destroy(m.resource.node, m.resource.vmid));
        removed++;
      }
      return removed + (await pve(() => images.removeRetired()));
    },
    async networkTags() {
      const nets = (await pve(() => sdn.list())).map((v) => netOfAlias(v.alias));
      return [...new Set(nets.filter((n): n is string => n !== null).map(tagOf))];
    },
    async close() {
      closed = true;
      if (watchTimer) clearInterval(watchTimer);
      sdn.close();
      listeners.clear();
    },
  };
  return driver;
}
