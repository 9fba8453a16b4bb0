import { realClock } from '../../clock';
import { createDriver } from '../lifecycle';
import { createListeners } from '../listeners';
import {
  DriverError,
  tagOf,
  type DeploymentContext,
  type DriverCapabilities,
  type DriverStatus,
  type HypervisorDriver,
  type MachineSpec,
  type PowerState,
  type TemplateAvailability,
} from '../types';
import { isLockError, PveError } from './client';
import { createPveClipboard } from './clipboard';
import { createCloneQueue } from './cloneQueue';
import { createConfiguration } from './configuration';
import { createDeploys } from './deploys';
import { createImages } from './images';
import { createImportedImages, startsFromImages } from './importedImages';
import { createInventory, isRetired, type OwnVm } from './inventory';
import { createIsoStorage } from './isoStorage';
import { createMachines, pve, vmPath } from './machines';
import { putThroughPveAgent } from './filePut';
import { netOfAlias } from './names';
import type { ProxmoxDriverOptions } from './options';
import { ownEmptyBase, startsEmpty } from './emptyDisks';
import { createPower } from './power';
import { createSdn } from './sdn';
import { bridgePveConsole } from './vncBridge';

export { ABANDONED_DEPLOY_MS } from './machines';
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
// Machine ids are VMIDs, as the reference's are. This file puts the driver's backend together for
// the lifecycle (../lifecycle.ts createDriver): our machines as callers see them (machines.ts),
// deploys (deploys.ts), operations on deployed machines (power.ts) and configuration changes
// (configuration.ts).

const OPERATIONS = ['start', 'stop', 'save', 'revert', 'delete', 'reset'] as const;

const MIB = 1024 * 1024;

/**
 * How long the cluster's VM templates, as one listing found them, answer availability: a template
 * list asks for each of its templates at once. A VM template the listing lacks is looked for
 * again (the inventory's own listing, shared for a moment), so that one just made, by an
 * administrator or by this driver's copy, is found at once.
 */
export const TEMPLATE_LIST_MAX_AGE_MS = 10_000;

export function createProxmoxDriver(options: ProxmoxDriverOptions): HypervisorDriver {
  const api = options.client;
  const { log } = options;
  const pool = options.pool || undefined;
  const clock = options.clock ?? realClock;
  const inventory = createInventory(api, { maxAgeMs: options.listingMaxAgeMs, clock });
  const sdn = createSdn({
    api,
    zone: options.zone,
    tags: options.vnetTags,
    debounceMs: options.sdnDebounceMs,
    clock,
    log,
  });
  const queue = createCloneQueue({
    isBusy: isLockError,
    baseDelayMs: options.lockBackoffMs,
    now: () => clock.now(),
    sleep: (ms) => new Promise<void>((resolve) => clock.setTimeout(() => resolve(), ms)),
  });
  const isos = createIsoStorage({
    api,
    inventory,
    storage: options.isoStorage,
    nodes: options.nodes ?? [],
  });
  const imported = createImportedImages({
    api,
    inventory,
    storage: options.imageStorage ?? options.isoStorage,
    nodes: options.nodes ?? [],
    imagesDir: options.imagesDir ?? null,
    clock,
    log,
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
    clock,
    log,
  });
  const listeners = createListeners((error) =>
    log?.warn({ err: error }, 'a proxmox driver listener failed'),
  );
  const deploys = createDeploys({
    options,
    inventory,
    sdn,
    queue,
    allMachines: () => machines.allMachines(),
    load: (idOrName) => machines.load(idOrName),
    announce: (vmid, type) => machines.announce(vmid, type),
    destroy: (node, vmid) => power.destroy(node, vmid),
    startVm: (node, vmid) => power.startVm(node, vmid),
    images: imported,
    isClosed: () => closed,
    clock,
  });
  const machines = createMachines({
    inventory,
    deploys,
    emit: (e) => listeners.emit(e),
    clock,
  });
  const power = createPower({
    options,
    inventory,
    sdn,
    images,
    machines,
    cancelDeploy: (id) => deploys.cancel(id),
  });
  const configuration = createConfiguration({
    options,
    inventory,
    sdn,
    isos,
    machines,
    pending: deploys.pending,
    delivery: (vmid) => deploys.delivery(vmid),
    isClosed: () => closed,
    clock,
  });
  const clipboard = createPveClipboard({ api, ownVm: (id) => machines.ownVm(id), clock });
  const { pending, resolveId, deploy, pickNode } = deploys;
  const { abandoned, allMachines, ownVm, announce } = machines;
  const { start, stop, save, revert, remove, destroy } = power;
  let closed = false;
  let version = '';

  const capabilities: DriverCapabilities = {
    kind: 'proxmox',
    operations: OPERATIONS,
    liveIsoChange: true,
    liveNicChange: true,
    // Added through the guest agent while the machine runs (configuration.ts).
    guestChange: true,
    // A pooled set's machines run on under the gamespace's tag, their vnets relabelled for it.
    retag: true,
    files: 'agent',
    serverConsoles: !!options.console,
    simulated: false,
    acceleration: 'Proxmox VE cluster',
  };

  /** The node of a batch with host affinity: where the tag's machines are, or the roomiest. */
  async function batchNode(missing: MachineSpec[], context: DeploymentContext) {
    if (!context.hostAffinity) return undefined;
    const together = (await allMachines()).find((m) => tagOf(m.name) === context.isolationTag);
    return together?.host ?? pickNode(missing[0]!);
  }

  // -------------------------------------------------------------------------------------------
  // Availability: the VM template a spec is cloned from (or its copy is made from) is on the
  // cluster.

  let vmTemplateList: { at: number; names: Promise<Set<string>> } | null = null;
  function vmTemplates(): Promise<Set<string>> {
    if (vmTemplateList && clock.now() - vmTemplateList.at <= TEMPLATE_LIST_MAX_AGE_MS) {
      return vmTemplateList.names;
    }
    const names = pve(() => inventory.resources()).then(
      (all) =>
        new Set(all.filter((r) => r.template === 1 && !isRetired(r)).map((r) => r.name ?? '')),
    );
    vmTemplateList = { at: clock.now(), names };
    // A failed listing is not kept.
    names.catch(() => {
      if (vmTemplateList?.names === names) vmTemplateList = null;
    });
    return names;
  }

  async function availability(spec: MachineSpec): Promise<TemplateAvailability> {
    // New VMs with empty disks of the template's sizes (emptyDisks.ts).
    if (startsEmpty(spec)) return { available: true };
    // New VMs whose disks PVE imports from images this server uploads (importedImages.ts).
    if (startsFromImages(spec)) return pve(() => imported.availability(spec));
    if (!spec.baseImage) {
      return {
        available: false,
        reason:
          'It names no Proxmox VM template to clone (its detail has no Template), and not every ' +
          'disk has a size for an empty disk or names an imported disk image.',
      };
    }
    if (images.copyOf(spec) !== null || ownEmptyBase(spec)) return { available: true };
    const names = await vmTemplates();
    const wanted = [spec.baseImage, spec.baseImageSource].filter((n): n is string => !!n);
    if (wanted.some((name) => names.has(name))) return { available: true };
    for (const name of wanted) {
      if (await pve(() => inventory.baseImage(name))) {
        vmTemplateList = null;
        return { available: true };
      }
    }
    return {
      available: false,
      reason:
        `The Proxmox VM template ${spec.baseImageSource ?? spec.baseImage} is not on the ` +
        'cluster: an administrator makes it (docs/deploy.md).',
    };
  }

  /** The progress of the spec's disks: its base image's copy, or its images' uploads. */
  const diskProgress = (spec: MachineSpec): Promise<number> =>
    startsFromImages(spec) ? imported.progress(spec) : images.progress(spec);

  // -------------------------------------------------------------------------------------------
  // Usable: a running machine is usable once its deploy has ended, its guest agent answers (it
  // starts with the guest's OS), and the settings its deploy gives it are in (a claim's settings
  // come after them).
  // A machine without the agent configured cannot say: it is taken as it is. Ends, as a failure,
  // when the driver closes; a machine that never answers gives up after agentGiveUpMs.

  /**
   * Base images (by VMID) whose machines cannot take a claim's guest settings: their agent never
   * answered, or (with root's fw_cfg, where deploys do not enable it) is not configured. Known
   * until the server restarts; a base image replaced by a save has a VMID of its own.
   */
  const agentless = new Set<number>();

  /** Whether the machine's agent answered ('absent': it never will, as far as we can tell). */
  async function untilAgentAnswers(vm: OwnVm): Promise<'answered' | 'absent' | 'unknown'> {
    const deadline = clock.now() + (options.agentGiveUpMs ?? 10 * 60_000);
    for (;;) {
      if (closed) throw new DriverError('unavailable', 'the proxmox driver closed');
      try {
        await api.post(`${vmPath(vm)}/agent/ping`);
        return 'answered';
      } catch (error) {
        // Deploys enable the agent for guest settings, unless root's fw_cfg gives them.
        if (error instanceof PveError && /no qemu guest agent configured/i.test(error.reason)) {
          return options.rootClient ? 'absent' : 'unknown';
        }
        // Gone, or stopped meanwhile: nothing to wait for.
        if (error instanceof PveError && error.kind === 'not-found') return 'unknown';
        if (error instanceof PveError && /^VM \d+ (is )?not running/i.test(error.reason)) {
          return 'unknown';
        }
        if (clock.now() >= deadline) {
          log?.warn({ vmid: vm.resource.vmid }, 'proxmox: the guest agent never answered');
          return 'absent';
        }
      }
      await new Promise<void>((resolve) =>
        clock.setTimeout(() => resolve(), options.agentPollMs ?? 3_000),
      );
    }
  }

  async function untilUsable(tag: string): Promise<void> {
    // A deploy returns while its machine is still being cloned: built and started first.
    const building = [...pending.values()].filter((p) => tagOf(p.meta.name) === tag);
    await Promise.all(building.map((p) => p.done));
    inventory.invalidate();
    const vms = (await pve(() => inventory.machines())).filter(
      (vm) => tagOf(vm.meta.name) === tag && vm.resource.status === 'running',
    );
    await Promise.all(
      vms.map(async (vm) => {
        if ((await untilAgentAnswers(vm)) === 'absent' && vm.meta.source) {
          agentless.add(vm.meta.source);
        }
        await deploys.delivery(vm.resource.vmid);
        if (closed) throw new DriverError('unavailable', 'the proxmox driver closed');
      }),
    );
  }

  // -------------------------------------------------------------------------------------------
  // Watching: machines that stop on their own (a guest shutdown) are announced. The lifecycle
  // runs this look while anyone listens (../powerWatch.ts).

  let lastStates = new Map<string, PowerState>();
  async function watch(): Promise<void> {
    inventory.invalidate();
    const now = new Map((await allMachines()).map((m) => [m.id, m.state] as const));
    for (const [id, state] of now) {
      const before = lastStates.get(id);
      if (before === 'running' && state === 'off' && !machines.isBusy(Number(id))) {
        void announce(Number(id), 'stopped');
      }
    }
    lastStates = now;
  }

  return createDriver({
    capabilities,
    list: () => pve(allMachines),
    resolveId,
    start,
    stop,
    save,
    revert,
    delete: remove,
    changeConfiguration: configuration.changeConfiguration,
    rename: configuration.rename,
    async answer(id) {
      await ownVm(id);
      throw new DriverError('invalid-state', 'the machine asks no question');
    },
    deploy,
    async openBatch(missing, context) {
      const node = await pve(() => batchNode(missing, context));
      return {
        deploy: (specs, privileged) => Promise.all(specs.map((s) => deploy(s, privileged, node))),
        // A machine still being built is started once it is (ownVm waits for its deploy).
        start: (machine) => start(machine.id),
      };
    },
    track: (work) =>
      void work.catch((error: unknown) =>
        log?.warn({ err: error }, 'proxmox: batch deploy failed'),
      ),
    async undeployed(spec) {
      const fromImages = startsFromImages(spec);
      return {
        // A node is chosen when the machine is deployed.
        host: '',
        diskPath: spec.baseImage ?? '',
        progress: await pve(() => diskProgress(spec)),
        copyStarted: fromImages ? imported.uploadOf(spec) : images.copyOf(spec),
      };
    },
    // Deleting a tag's machines takes the tag's networks with them.
    deletedAll: (term) => pve(() => sdn.removeTag(term)),
    availability,
    createDisks: (spec) =>
      pve(() => (startsFromImages(spec) ? imported.create(spec) : images.create(spec))),
    async verifyDisks(spec) {
      const progress = await pve(() => diskProgress(spec));
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
    guestClipboard: clipboard.guestClipboard,
    readGuestClipboard: clipboard.readGuestClipboard,
    async putFile(id, name, bytes) {
      const vm = await ownVm(id);
      if (vm.resource.status !== 'running') {
        throw new DriverError('invalid-state', 'the machine is not running');
      }
      return pve(() => putThroughPveAgent({ api, vm: vmPath(vm), name, bytes, clock }));
    },
    isoOptions: (tag) => pve(() => isos.isoOptions(tag)),
    storeIso: (path, file) => pve(() => isos.storeIso(path, file)),
    removeIso: (path) => pve(() => isos.removeIso(path)),
    netOptions: (tag) => configuration.netOptionsOf(tag),
    untilUsable,
    // A claim gives a running machine its settings through the agent: a template with settings on
    // a base image whose machines never answered it cannot be pooled.
    async poolable(spec) {
      if (spec.guestSettings.length === 0 || !spec.baseImage) return { available: true };
      const base = await pve(() => inventory.baseImage(spec.baseImage!)).catch(() => null);
      if (!base || !agentless.has(base.vmid)) return { available: true };
      return {
        available: false,
        reason:
          `The machines of the Proxmox VM template ${spec.baseImage} (template ${spec.name}) ` +
          `never answered the QEMU guest agent` +
          (options.rootClient ? ' (or it is not enabled: agent 1)' : '') +
          `, so a pooled machine could not take a launch's guest settings while it runs: its ` +
          `launches deploy without a pool. An image running qemu-guest-agent, or a template ` +
          `without guest settings, can be pooled.`,
      };
    },
    subscribe: (listener) => listeners.subscribe(listener),
    powerPoll: {
      check: watch,
      begin: () => (lastStates = new Map()),
      everyMs: options.watchMs ?? 5_000,
      failed: (error) => log?.warn({ err: error }, 'proxmox: watching machines failed'),
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
      sdn.close();
      listeners.clear();
    },
  });
}
