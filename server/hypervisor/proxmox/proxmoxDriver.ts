import { randomUUID } from 'node:crypto';
import {
  changeStateBy,
  deployBatchBy,
  findIn,
  forEachFound,
  ofTagIn,
  requireDeployable,
  resolveIn,
  specName,
  undeployedMachine,
} from '../lifecycle';
import { clampProgress, startDeploy } from '../deploy';
import { createListeners } from '../listeners';
import {
  DriverError,
  isolatedNet,
  netOptions,
  tagOf,
  type ConsoleTickets,
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
import { isLockError, PveError, type PveClient } from './client';
import { createCloneQueue } from './cloneQueue';
import { createImages } from './images';
import { createInventory, type OwnVm, type PveResource } from './inventory';
import {
  describeMachine,
  isoVolumeOf,
  netOfAlias,
  OWN_TAG,
  pveNameOf,
  pveTagOf,
  SNAPSHOT,
} from './names';
import {
  deliverThroughAgent,
  fwCfgArgs,
  GUEST_SETTINGS_FILE,
  guestSettingsText,
} from './guestSettings';
import { createIsoStorage } from './isoStorage';
import { createSdn } from './sdn';
import { bridgePveConsole } from './vncBridge';
import { isCancelled, machineOf, pendingMachine, pendingTask, type Pending } from './machineViews';
import { driverErrorOf } from './pveErrors';

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
// Machine ids are VMIDs, as the reference's are.

export interface ProxmoxDriverOptions {
  client: PveClient;
  /** Where clones and base image copies go. */
  storage: string;
  /** The storage whose `iso` content machines mount (flat: `{tag}__file.iso`). */
  isoStorage: string;
  /** The SDN zone of our vnets, and the tags (VNIs or VLAN ids) they take. */
  zone: string;
  vnetTags: readonly [number, number];
  /** Nodes machines may run on; empty: every online node. */
  nodes?: readonly string[];
  /** A resource pool our machines join; '' for none. */
  pool?: string;
  console?: ConsoleTickets;
  /** How long a listing of the cluster is reused. */
  listingMaxAgeMs?: number;
  /** SDN changes gather this long before they are applied. */
  sdnDebounceMs?: number;
  /** How often machines are checked for having stopped on their own while someone listens. */
  watchMs?: number;
  /** The first back-off of a clone that met a busy lock. */
  lockBackoffMs?: number;
  /**
   * A client signed in as root@pam (PROXMOX_ROOT_PASSWORD): guest settings then go to the guest
   * through QEMU's fw_cfg (the VM's `args`, which PVE lets only root@pam set) instead of the
   * guest agent.
   */
  rootClient?: PveClient;
  /** Where in the guest the guest agent writes a machine's guest settings. */
  guestSettingsFile?: string;
  /** How often the guest agent is asked whether it runs yet, and for how long. */
  agentPollMs?: number;
  agentGiveUpMs?: number;
  log?: { warn(o: object, msg?: string): void; info?(o: object, msg?: string): void };
}

const OPERATIONS = ['start', 'stop', 'save', 'revert', 'delete', 'reset'] as const;

/** NIC models PVE has, by the adapter names templates use (vSphere's among them). */
const NIC_MODELS: Record<string, string> = {
  e1000: 'e1000',
  e1000e: 'e1000e',
  vmxnet3: 'vmxnet3',
  virtio: 'virtio',
  rtl8139: 'rtl8139',
};

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
    reserveVmid: () => reserveVmid(),
    releaseVmid: (vmid) => reservedIds.delete(vmid),
    destroy: (node, vmid) => destroy(node, vmid),
    log,
  });
  const listeners = createListeners((error) =>
    log?.warn({ err: error }, 'a proxmox driver listener failed'),
  );
  const pending = new Map<number, Pending>();
  /** Tasks of existing machines (starting, saving, ...), by VMID. */
  const tasks = new Map<number, MachineTask>();
  /** VMIDs handed out and not yet taken by a clone. */
  const reservedIds = new Set<number>();
  /** A deploy whose VMID another client took meanwhile moved to a new one: old id -> new id. */
  const moved = new Map<string, string>();
  /** Deploys under way by name, so that one name deploys once. */
  const deploying = new Map<string, Promise<Machine>>();
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

  const resolveId = (id: string): string => {
    let current = id;
    for (let hops = 0; moved.has(current) && hops < 10; hops++) current = moved.get(current)!;
    return current;
  };

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
    else pending.get(vmid)?.deploy.send({ type: 'deploy.progressed', percent });
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

  // -------------------------------------------------------------------------------------------
  // Deploys.

  /** A VMID no one has: PVE's next free one, past those this driver handed out already. */
  async function reserveVmid(): Promise<number> {
    let candidate = Number(await api.get<string | number>('/cluster/nextid'));
    for (let tries = 0; tries < 1000; tries++) {
      if (!reservedIds.has(candidate) && !pending.has(candidate)) {
        try {
          candidate = Number(
            await api.get<string | number>('/cluster/nextid', { vmid: candidate }),
          );
          if (!reservedIds.has(candidate)) {
            reservedIds.add(candidate);
            return candidate;
          }
        } catch (error) {
          if (!(error instanceof PveError && (error.kind === 'invalid' || error.kind === 'exists')))
            throw error;
        }
      }
      candidate++;
    }
    throw new DriverError('unavailable', 'no free VMID found');
  }

  /** The allowed online node with the most free memory, counting machines being deployed. */
  async function pickNode(spec: MachineSpec): Promise<string> {
    if (spec.hostAffinity) {
      const together = (await allMachines()).find((m) => tagOf(m.name) === spec.isolationTag);
      if (together) return together.host;
    }
    const allowed = options.nodes ?? [];
    const nodes = (await inventory.nodes()).filter(
      (n) => n.status === 'online' && (allowed.length === 0 || allowed.includes(n.node)),
    );
    if (nodes.length === 0) {
      throw new DriverError('unavailable', 'no online Proxmox node is allowed to run machines');
    }
    const deployingOn = (node: string) =>
      [...pending.values()].filter((p) => p.node === node).length * spec.memoryMiB * MIB;
    const free = (n: (typeof nodes)[number]) =>
      (n.maxmem ?? 0) - (n.mem ?? 0) - deployingOn(n.node);
    return nodes.sort((a, b) => free(b) - free(a))[0]!.node;
  }

  async function reservedNets(): Promise<string[]> {
    return (await sdn.reserved()).flatMap((v) => (v.alias ? [v.alias, v.vnet] : [v.vnet]));
  }

  /** The PVE value of a NIC: model, MAC when fixed, bridge. */
  function nicValue(adapter: string | null, mac: string | null, bridge: string): string {
    const model = NIC_MODELS[(adapter ?? '').toLowerCase()] ?? 'virtio';
    return `${mac ? `${model}=${mac}` : model},bridge=${bridge}`;
  }

  async function bridgesOf(nets: string[]): Promise<Map<string, string>> {
    const reserved = await sdn.reserved();
    const bridges = await sdn.ensure(nets.filter((n) => n.includes('#')));
    for (const v of reserved) {
      for (const name of [v.vnet, v.alias]) if (name) bridges.set(name, v.vnet);
    }
    return bridges;
  }

  /** Clone, configure, snapshot and (maybe) start one machine whose VMID is reserved. */
  async function build(
    p: Pending,
    spec: MachineSpec,
    base: PveResource & { vmid: number },
    bridges: Map<string, string>,
  ) {
    await cloneInto(p, base);
    reservedIds.delete(p.vmid);
    inventory.remember(p.vmid, p.meta);
    p.deploy.send({ type: 'deploy.cloned' });
    if (isCancelled(p)) return;
    progressOf(p.vmid, 70);

    const template = await api.get<Record<string, string | number>>(
      `/nodes/${p.node}/qemu/${p.vmid}/config`,
    );
    const config: Record<string, string | number> = {
      memory: spec.memoryMiB,
      sockets: spec.cpu.sockets,
      cores: spec.cpu.coresPerSocket,
      tags: `${OWN_TAG};${pveTagOf(spec.isolationTag)}`,
    };
    const unused: string[] = Object.keys(template).filter(
      (key) => /^net\d+$/.test(key) && !spec.nics.some((n) => `net${n.index}` === key),
    );
    for (const nic of spec.nics) {
      const net = p.meta.nets[nic.index] ?? '';
      const bridge = bridges.get(net);
      if (!bridge) unused.push(`net${nic.index}`);
      else config[`net${nic.index}`] = nicValue(nic.adapter, nic.mac, bridge);
    }
    if (spec.iso) config.ide2 = `${isoVolumeOf(options.isoStorage, spec.iso)},media=cdrom`;
    if (spec.bootDelaySeconds > 0) config.startup = `up=${spec.bootDelaySeconds}`;
    // Guest settings go through the QEMU guest agent, which needs no root credentials, unless
    // the admin gave root's: then through fw_cfg, which needs nothing in the guest.
    const viaAgent = spec.guestSettings.length > 0 && !options.rootClient;
    if (viaAgent) config.agent = 1;
    // Configured: from here on it is a machine, not a deploy that may have been abandoned.
    p.meta = { ...p.meta, ready: true };
    await api.put(`/nodes/${p.node}/qemu/${p.vmid}/config`, {
      ...config,
      description: describeMachine(p.meta),
      delete: [...new Set(unused)].join(',') || undefined,
    });
    inventory.remember(p.vmid, p.meta);
    if (spec.guestSettings.length > 0 && options.rootClient) {
      const { args, skipped } = fwCfgArgs(spec.guestSettings);
      if (skipped.length > 0) {
        log?.warn({ vmid: p.vmid, keys: skipped }, 'proxmox: guest settings too long for fw_cfg');
      }
      if (args) await options.rootClient.put(`/nodes/${p.node}/qemu/${p.vmid}/config`, { args });
    }
    progressOf(p.vmid, 80);
    // The snapshot revert goes back to. A storage without snapshots (plain LVM, raw files) still
    // runs the machine; its revert then says why it cannot.
    try {
      await api.waitTask(
        await api.post<string>(`/nodes/${p.node}/qemu/${p.vmid}/snapshot`, { snapname: SNAPSHOT }),
      );
    } catch (error) {
      log?.warn({ err: error, vmid: p.vmid }, 'proxmox: no revert snapshot for this machine');
    }
    if (isCancelled(p)) return;
    progressOf(p.vmid, 90);
    if (spec.autoStart) {
      p.deploy.send({ type: 'deploy.configured', starts: true });
      await startVm(p.node, p.vmid);
    }
    if (viaAgent) {
      void deliverThroughAgent({
        api,
        node: p.node,
        vmid: p.vmid,
        content: guestSettingsText(spec.guestSettings),
        file: options.guestSettingsFile ?? GUEST_SETTINGS_FILE,
        pollMs: options.agentPollMs ?? 3_000,
        giveUpMs: options.agentGiveUpMs ?? 10 * 60_000,
        closed: () => closed,
        log,
      });
    }
  }

  /** The linked clone, in its turn; a VMID taken meanwhile by someone else is replaced. */
  async function cloneInto(p: Pending, base: PveResource & { vmid: number }): Promise<void> {
    const key = `${base.vmid}:${options.storage}`;
    await queue.run(
      key,
      async () => {
        for (;;) {
          p.deploy.send({ type: 'deploy.cloneStarted' });
          try {
            const upid = await api.post<string>(`/nodes/${base.node}/qemu/${base.vmid}/clone`, {
              newid: p.vmid,
              name: pveNameOf(p.meta.name),
              full: 0,
              target: p.node,
              pool,
              description: describeMachine(p.meta),
            });
            await api.waitTask(upid, {
              onProgress: (percent) => progressOf(p.vmid, 10 + percent * 0.6),
            });
            return;
          } catch (error) {
            if (!(error instanceof PveError && error.kind === 'exists')) throw error;
            const fresh = await reserveVmid();
            reservedIds.delete(p.vmid);
            pending.delete(p.vmid);
            moved.set(String(p.vmid), String(fresh));
            p.vmid = fresh;
            pending.set(fresh, p);
          }
        }
      },
      (ahead) =>
        p.deploy.send(
          ahead > 0 ? { type: 'deploy.queued', ahead } : { type: 'deploy.cloneStarted' },
        ),
    );
  }

  async function deployOne(spec: MachineSpec, privileged: boolean, on?: string): Promise<Machine> {
    requireDeployable(spec);
    const name = specName(spec);
    const existing = await load(name);
    if (existing) return existing;
    if (!spec.baseImage) {
      throw new DriverError(
        'invalid-state',
        `the template of ${name} names no Proxmox template to clone (its detail's Template)`,
      );
    }
    const base = await pve(() => inventory.baseImage(spec.baseImage!));
    if (!base) {
      throw new DriverError(
        'invalid-state',
        `the Proxmox template ${spec.baseImage} does not exist yet: initialize the template first`,
      );
    }
    const reserved = privileged ? await pve(reservedNets) : [];
    const nets: string[] = [];
    for (const nic of spec.nics) {
      nets[nic.index] = isolatedNet(nic.network, spec.isolationTag, privileged, reserved);
    }
    // The machine's networks exist (if not yet applied) once deploy returns.
    const bridges = await pve(() => bridgesOf(nets.filter(Boolean)));
    const node = on ?? (await pve(() => pickNode(spec)));
    const vmid = await pve(reserveVmid);
    const p: Pending = {
      vmid,
      node,
      meta: { name, source: base.vmid, nets: Array.from(nets, (n) => n ?? ''), since: Date.now() },
      deploy: startDeploy({ taskId: randomUUID(), started: Date.now() }),
      done: Promise.resolve(),
    };
    pending.set(vmid, p);
    p.done = build(p, spec, base, bridges)
      .then(async () => {
        // Its last step ends the deploy here, with no await between it and the check below, so
        // a delete either cancelled it before or finds the machine itself.
        p.deploy.send(
          spec.autoStart
            ? { type: 'deploy.started' }
            : { type: 'deploy.configured', starts: false },
        );
        pending.delete(p.vmid);
        inventory.invalidate();
        if (isCancelled(p)) {
          await destroy(p.node, p.vmid);
          return;
        }
        // The deploy ended after its call returned: the machine as it left it.
        await announce(p.vmid, 'updated');
      })
      .catch(async (error: unknown) => {
        p.deploy.send({ type: 'deploy.failed', error: String(error) });
        pending.delete(p.vmid);
        reservedIds.delete(p.vmid);
        log?.warn({ err: error, vmid: p.vmid, name }, 'proxmox: deploying a machine failed');
        await destroy(p.node, p.vmid).catch(() => undefined);
        inventory.invalidate();
      });
    return pendingMachine(p);
  }

  /** One deploy per name at a time; `on` a node chosen for the machine's batch. */
  function deploy(spec: MachineSpec, privileged: boolean, on?: string): Promise<Machine> {
    const name = specName(spec);
    const under = deploying.get(name);
    if (under) return under;
    const result = deployOne(spec, privileged, on).finally(() => deploying.delete(name));
    deploying.set(name, result);
    return result;
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
        const reserved = privileged ? await pve(reservedNets) : [];
        const net = reserved.includes(change.network)
          ? change.network
          : isolatedNet(change.network, tag, false, []);
        const bridges = await pve(() => bridgesOf([net]));
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
