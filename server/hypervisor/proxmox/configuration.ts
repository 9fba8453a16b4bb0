import {
  DriverError,
  isolatedNet,
  netOptions,
  tagOf,
  type Machine,
  type MachineChange,
} from '../types';
import { bridgesOf, reservedNets } from './bridges';
import type { Inventory } from './inventory';
import type { IsoStorage } from './isoStorage';
import { pve, vmPath, type Machines } from './machines';
import { describeMachine, isoVolumeOf, netOfAlias } from './names';
import type { ProxmoxDriverOptions } from './options';
import type { Sdn } from './sdn';

// Changes to a deployed machine's configuration: its ISO, a NIC's network (a vnet, applied
// before the NIC moves onto it), its boot delay. Guest settings go in at deploy only.

export interface ConfigurationOptions {
  options: ProxmoxDriverOptions;
  inventory: Inventory;
  sdn: Sdn;
  isos: IsoStorage;
  machines: Machines;
}

export function createConfiguration({
  options,
  inventory,
  sdn,
  isos,
  machines,
}: ConfigurationOptions) {
  const api = options.client;
  const { ownVm, announce, load } = machines;

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
      case 'guests':
        throw new DriverError(
          'unsupported',
          'guest settings of a deployed Proxmox machine cannot be changed',
        );
    }
    inventory.invalidate();
    void announce(vm.resource.vmid, 'updated');
    return (await load(String(vm.resource.vmid)))!;
  }

  return { netOptionsOf, changeConfiguration };
}
