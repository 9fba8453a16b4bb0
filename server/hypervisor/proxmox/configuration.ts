import type { Clock } from '../../clock';
import { vmName } from '../naming';
import {
  DriverError,
  isolatedNet,
  netOptions,
  tagOf,
  type Machine,
  type MachineChange,
} from '../types';
import { bridgesOf, reservedNets } from './bridges';
import { addThroughAgent, GUEST_SETTINGS_FILE, guestSettingsText } from './guestSettings';
import type { Inventory } from './inventory';
import type { IsoStorage } from './isoStorage';
import type { Pending } from './machineViews';
import { pve, vmPath, type Machines } from './machines';
import {
  describeMachine,
  isoVolumeOf,
  netOfAlias,
  OWN_TAG,
  pveNameOf,
  pveTagOf,
  tagList,
} from './names';
import type { ProxmoxDriverOptions } from './options';
import type { Sdn } from './sdn';

// Changes to a deployed machine's configuration: its ISO, a NIC's network (a vnet, applied
// before the NIC moves onto it), its boot delay, guest settings added while it runs (through its
// guest agent); and a tag's machines handed to another (rename, a pooled set's claim).

export interface ConfigurationOptions {
  options: ProxmoxDriverOptions;
  inventory: Inventory;
  sdn: Sdn;
  isos: IsoStorage;
  machines: Machines;
  /** Deploys under way (deploys.ts). */
  pending: ReadonlyMap<number, Pending>;
  /** The deploy's own delivery of a machine's guest settings, while it runs (deploys.ts). */
  delivery(vmid: number): Promise<void> | undefined;
  isClosed(): boolean;
  clock: Clock;
}

export function createConfiguration({
  options,
  inventory,
  sdn,
  isos,
  machines,
  pending,
  delivery,
  isClosed,
  clock,
}: ConfigurationOptions) {
  const api = options.client;
  const { log } = options;
  const { ownVm, announce, load } = machines;
  const settingsFile = options.guestSettingsFile ?? GUEST_SETTINGS_FILE;

  /** The networks a machine of the tag may go on: reserved vnets and the tag's own. */
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
      case 'guests': {
        // A Proxmox machine's settings live in its guest (PVE's config has no place for them
        // but root's fw_cfg, which a running QEMU cannot change): a stopped one cannot take any.
        if (vm.resource.status !== 'running') {
          throw new DriverError(
            change.kind === 'guests' && change.live ? 'unavailable' : 'invalid-state',
            'guest settings reach a Proxmox machine through its guest agent: start it first',
          );
        }
        const added = change.kind === 'guest' ? [change] : change.settings;
        const addition = {
          api,
          vm: vmPath(vm),
          text: guestSettingsText(added),
          file: settingsFile,
          clock,
          closed: isClosed,
          log,
        };
        // Added after the deploy's own settings, which its delivery writes whole once the agent
        // answers: a caller that needs them now cannot have them before.
        const first = delivery(vm.resource.vmid);
        if (change.kind === 'guests' && change.live) {
          if (first) {
            throw new DriverError('unavailable', 'the guest agent has not answered yet');
          }
          await pve(() => addThroughAgent(addition));
        } else {
          // The others are not held up by the agent.
          void (first ?? Promise.resolve())
            .then(() => addThroughAgent(addition))
            .catch((error: unknown) => {
              // A driver that closed meanwhile has nobody to tell.
              if (isClosed()) return;
              log?.warn(
                { err: error, vmid: vm.resource.vmid },
                'proxmox: guest settings not added',
              );
            });
        }
        break;
      }
    }
    inventory.invalidate();
    void announce(vm.resource.vmid, 'updated');
    return (await load(String(vm.resource.vmid)))!;
  }

  /**
   * Hands the machines of one tag to another (a pooled set claimed by a gamespace). The tag's
   * vnets change hands by their alias (sdn.ts retag), so every NIC stays on its bridge and its
   * MAC, and nothing waits for an SDN apply; each machine's PVE name, tags and description follow
   * the new tag (PVE changes those of a running VM at once). Running machines run on.
   */
  async function rename(fromTag: string, toTag: string): Promise<Machine[]> {
    if ([...pending.values()].some((p) => tagOf(p.meta.name) === fromTag)) {
      throw new DriverError('invalid-state', `machines of ${fromTag} are still being deployed`);
    }
    // Every machine of the tag as the cluster has it now, not as a listing of a moment ago.
    inventory.invalidate();
    const vms = (await pve(() => inventory.machines())).filter(
      (vm) => tagOf(vm.meta.name) === fromTag,
    );
    await pve(() => sdn.retag(fromTag, toTag));
    await Promise.all(
      vms.map(async (vm) => {
        const meta = {
          ...vm.meta,
          name: vmName(vm.meta.name, toTag),
          nets: vm.meta.nets.map((n) => (n && tagOf(n) === fromTag ? vmName(n, toTag) : n)),
        };
        const others = tagList(vm.resource.tags).filter(
          (t) => t !== OWN_TAG && t !== pveTagOf(fromTag),
        );
        await pve(() =>
          api.put(`${vmPath(vm)}/config`, {
            name: pveNameOf(meta.name),
            tags: [OWN_TAG, pveTagOf(toTag), ...others].join(';'),
            description: describeMachine(meta),
          }),
        );
        inventory.remember(vm.resource.vmid, meta);
      }),
    );
    inventory.invalidate();
    // Announced before the call returns: a caller's listener hears of each under its new name.
    await Promise.all(vms.map((vm) => announce(vm.resource.vmid, 'updated')));
    const renamed = await Promise.all(vms.map((vm) => load(String(vm.resource.vmid))));
    return renamed.filter((m): m is Machine => m !== null);
  }

  return { netOptionsOf, changeConfiguration, rename };
}
