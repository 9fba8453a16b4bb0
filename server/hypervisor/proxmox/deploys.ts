import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock';
import { startDeploy } from '../deploy';
import { requireDeployable, specName } from '../lifecycle';
import { DriverError, isolatedNet, tagOf, type Machine, type MachineSpec } from '../types';
import { bridgesOf, reservedNets } from './bridges';
import { PveError } from './client';
import type { CloneQueue } from './cloneQueue';
import { cloudInitOptions, cloudInitSlot, macsOf, writeSnippets } from './cloudInit';
import { diskMoves } from './diskBus';
import { emptyVmConfig, firmwareConfig, startsEmpty } from './emptyDisks';
import { startsFromImages, type ImportedImages } from './importedImages';
import {
  deliverThroughAgent,
  fwCfgArgs,
  GUEST_SETTINGS_FILE,
  guestSettingsText,
} from './guestSettings';
import type { Inventory, PveResource } from './inventory';
import { isCancelled, pendingMachine, type Pending } from './machineViews';
import { pve } from './machines';
import { describeMachine, isoVolumeOf, OWN_TAG, pveNameOf, pveTagOf, SNAPSHOT } from './names';
import type { ProxmoxDriverOptions } from './options';
import type { Sdn } from './sdn';

// Deploys of the proxmox driver. A deploy reserves its VMID at once, so that its machine exists
// for callers (pending, with its deploy's task) while its linked clone waits its turn in the
// clone queue; then the clone is configured, snapshotted for revert and started when its template
// says so. Each deploy is a deploy machine (../deploy.ts) the steps below tell what happened.

/** NIC models PVE has, by the adapter names templates use (vSphere's among them). */
const NIC_MODELS: Record<string, string> = {
  e1000: 'e1000',
  e1000e: 'e1000e',
  vmxnet3: 'vmxnet3',
  virtio: 'virtio',
  rtl8139: 'rtl8139',
};

const MIB = 1024 * 1024;

/** What deploys need of the rest of the driver. */
export interface DeploysOptions {
  options: ProxmoxDriverOptions;
  inventory: Inventory;
  sdn: Sdn;
  queue: CloneQueue;
  /** Every machine of ours, those being deployed included. */
  allMachines(): Promise<Machine[]>;
  load(idOrName: string): Promise<Machine | null>;
  /** Tells listeners about a machine as it is now. */
  announce(vmid: number, type: 'updated'): Promise<void>;
  destroy(node: string, vmid: number): Promise<void>;
  /** Starts a machine once the vnets it uses are applied. */
  startVm(node: string, vmid: number): Promise<void>;
  /** Imported images (importedImages.ts) the spec's disks start from, on a node. */
  images: Pick<ImportedImages, 'assertOn' | 'awaitOn'>;
  isClosed(): boolean;
  clock: Clock;
}

export function createDeploys(deps: DeploysOptions) {
  const { options, inventory, sdn, queue, allMachines, load, announce, destroy, startVm } = deps;
  const { isClosed, clock } = deps;
  const api = options.client;
  const { log } = options;
  const pool = options.pool || undefined;
  const pending = new Map<number, Pending>();
  /** VMIDs handed out and not yet taken by a clone. */
  const reservedIds = new Set<number>();
  /** A deploy whose VMID another client took meanwhile moved to a new one: old id -> new id. */
  const moved = new Map<string, string>();
  /** Guest settings on their way into a deployed machine through its agent, by VMID. */
  const deliveries = new Map<number, Promise<void>>();

  /** The id a machine has now, following the moves of its deploy. */
  const resolveId = (id: string): string => {
    let current = id;
    for (let hops = 0; moved.has(current) && hops < 10; hops++) current = moved.get(current)!;
    return current;
  };

  /** Progress of a deploy under way; 0..100 as PVE tells it. */
  function progress(vmid: number, percent: number): void {
    pending.get(vmid)?.deploy.send({ type: 'deploy.progressed', percent });
  }

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

  /** The PVE value of a NIC: model, MAC when fixed, bridge. */
  function nicValue(adapter: string | null, mac: string | null, bridge: string): string {
    const model = NIC_MODELS[(adapter ?? '').toLowerCase()] ?? 'virtio';
    return `${mac ? `${model}=${mac}` : model},bridge=${bridge}`;
  }

  /**
   * Clone (or create, with empty disks, when there is no base image), configure, snapshot and
   * (maybe) start one machine whose VMID is reserved.
   */
  async function build(
    p: Pending,
    spec: MachineSpec,
    base: (PveResource & { vmid: number }) | null,
    bridges: Map<string, string>,
  ) {
    if (base) await cloneInto(p, base);
    else {
      // An image not yet on the node's storage is uploaded first.
      if (startsFromImages(spec)) await deps.images.awaitOn(spec, p.node);
      await createInto(p, spec);
    }
    reservedIds.delete(p.vmid);
    inventory.remember(p.vmid, p.meta);
    p.deploy.send({ type: 'deploy.cloned' });
    if (isCancelled(p)) return;
    progress(p.vmid, 70);

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
    // PVE's cloud-init drive, beside the ISO drive, and what the guest settings ask of it.
    const slot = cloudInitSlot(template);
    if (slot.add) config[slot.add] = `${options.storage}:cloudinit`;
    else if (!slot.keep) {
      log?.warn({ vmid: p.vmid }, 'proxmox: no free drive slot for the cloud-init drive');
    }
    // A drive in ide2 the ISO does not replace goes: a VM has one cloud-init drive.
    if (slot.add && !spec.iso) unused.push(...slot.remove);
    const cloud = cloudInitOptions(spec);
    if (cloud.ignored.length > 0) {
      log?.warn({ vmid: p.vmid, ignored: cloud.ignored }, 'proxmox: cloud-init settings ignored');
    }
    Object.assign(config, cloud.options);
    // A base image saved from one of our machines names that machine's snippets, gone with it.
    if (!options.snippets && String(template.cicustom ?? '').includes('snippets/topoplay-')) {
      unused.push('cicustom');
    }
    if (spec.bootDelaySeconds > 0) config.startup = `up=${spec.bootDelaySeconds}`;
    Object.assign(config, firmwareConfig(spec, options.storage, template));
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
    const { moves, boot } = diskMoves(template, spec, Object.keys(config));
    if (moves.length > 0) {
      // Detached first (PVE keeps each volume as an unused disk), then attached on its new bus.
      const path = `/nodes/${p.node}/qemu/${p.vmid}/config`;
      await api.put(path, { delete: moves.map((m) => m.from).join(',') });
      await api.put(path, {
        ...Object.fromEntries(moves.map((m) => [m.to, m.volume])),
        ...(boot ? { boot } : {}),
      });
    }
    if (options.snippets) {
      // The NICs' MACs are known once PVE has filled in those the spec leaves open.
      const configured = await api.get<Record<string, string | number>>(
        `/nodes/${p.node}/qemu/${p.vmid}/config`,
      );
      const cicustom = await writeSnippets(options.snippets, p.vmid, spec, macsOf(configured));
      await api.put(`/nodes/${p.node}/qemu/${p.vmid}/config`, { cicustom });
    }
    if (spec.guestSettings.length > 0 && options.rootClient) {
      const { args, skipped } = fwCfgArgs(spec.guestSettings);
      if (skipped.length > 0) {
        log?.warn({ vmid: p.vmid, keys: skipped }, 'proxmox: guest settings too long for fw_cfg');
      }
      if (args) await options.rootClient.put(`/nodes/${p.node}/qemu/${p.vmid}/config`, { args });
    }
    progress(p.vmid, 80);
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
    progress(p.vmid, 90);
    if (spec.autoStart) {
      p.deploy.send({ type: 'deploy.configured', starts: true });
      await startVm(p.node, p.vmid);
    }
    if (viaAgent) {
      const vmid = p.vmid;
      const delivery = deliverThroughAgent({
        api,
        node: p.node,
        vmid: p.vmid,
        content: guestSettingsText(spec.guestSettings),
        file: options.guestSettingsFile ?? GUEST_SETTINGS_FILE,
        pollMs: options.agentPollMs ?? 3_000,
        giveUpMs: options.agentGiveUpMs ?? 10 * 60_000,
        clock,
        closed: isClosed,
        log,
      }).finally(() => deliveries.delete(vmid));
      deliveries.set(vmid, delivery);
    }
  }

  /**
   * A new VM with empty disks (emptyDisks.ts) or imported ones (importedImages.ts); a VMID taken
   * meanwhile is replaced.
   */
  async function createInto(p: Pending, spec: MachineSpec): Promise<void> {
    for (;;) {
      p.deploy.send({ type: 'deploy.cloneStarted' });
      try {
        const upid = await api.post<string>(`/nodes/${p.node}/qemu`, {
          vmid: p.vmid,
          name: pveNameOf(p.meta.name),
          pool,
          description: describeMachine(p.meta),
          ...emptyVmConfig(spec, options.storage, options.imageStorage ?? options.isoStorage),
        });
        await api.waitTask(upid, { onProgress: (percent) => progress(p.vmid, 10 + percent * 0.6) });
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
              onProgress: (percent) => progress(p.vmid, 10 + percent * 0.6),
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

  /**
   * A machine's deploy; `on` a node chosen for the machine's batch. The lifecycle deploys a name
   * once at a time (../lifecycle.ts Deploys).
   */
  async function deploy(spec: MachineSpec, privileged: boolean, on?: string): Promise<Machine> {
    requireDeployable(spec);
    const name = specName(spec);
    const existing = await load(name);
    if (existing) return existing;
    const empty = startsEmpty(spec) || startsFromImages(spec);
    if (!spec.baseImage && !empty) {
      throw new DriverError(
        'invalid-state',
        `the template of ${name} names no Proxmox template to clone (its detail's Template)`,
      );
    }
    const base = spec.baseImage ? await pve(() => inventory.baseImage(spec.baseImage!)) : null;
    if (!base && !empty) {
      throw new DriverError(
        'invalid-state',
        `the Proxmox template ${spec.baseImage} does not exist yet: initialize the template first`,
      );
    }
    const reserved = privileged ? await pve(() => reservedNets(sdn)) : [];
    const nets: string[] = [];
    for (const nic of spec.nics) {
      nets[nic.index] = isolatedNet(nic.network, spec.isolationTag, privileged, reserved);
    }
    // The machine's networks exist (if not yet applied) once deploy returns.
    const bridges = await pve(() => bridgesOf(sdn, nets.filter(Boolean)));
    const node = on ?? (await pve(() => pickNode(spec)));
    if (startsFromImages(spec)) await pve(() => deps.images.assertOn(spec, node));
    const vmid = await pve(reserveVmid);
    const now = clock.now();
    const p: Pending = {
      vmid,
      node,
      // A new VM with empty or imported disks has no base image: source 0.
      meta: { name, source: base?.vmid ?? 0, nets: Array.from(nets, (n) => n ?? ''), since: now },
      deploy: startDeploy({ taskId: randomUUID(), started: now }),
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

  /** Cancels the deploy of a machine, if one runs: the machine as the cancel left it. */
  async function cancel(id: string): Promise<Machine | null> {
    const p = pending.get(Number(resolveId(id)));
    if (!p) return null;
    // The deploy removes what it made once it sees this.
    p.deploy.send({ type: 'deploy.cancelRequested' });
    const machine = pendingMachine(p);
    await p.done;
    return { ...machine, status: 'initialized', task: null };
  }

  return {
    /** Deploys under way by VMID: their machines exist for callers before PVE has them. */
    pending: pending as ReadonlyMap<number, Pending>,
    resolveId,
    progress,
    reserveVmid,
    releaseVmid: (vmid: number) => reservedIds.delete(vmid),
    pickNode,
    deploy,
    cancel,
    /** The delivery of a deployed machine's guest settings while it runs; undefined when done. */
    delivery: (vmid: number): Promise<void> | undefined => deliveries.get(vmid),
  };
}

export type Deploys = ReturnType<typeof createDeploys>;
