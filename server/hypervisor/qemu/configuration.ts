import { DriverError, type Machine, type MachineChange } from '../types';
import { exists } from './disks';
import { inside, machineFiles, type QemuLayout } from './layout';
import type { Serialized } from './locks';
import type { QemuMachines } from './machines';
import { CDROM_DEVICE } from './processes';
import { qmp } from './qmp';
import { writeRecord } from './records';
import type { SwitchClient } from './switch';

// Changes to a qemu machine's configuration: its ISO (live through QEMU's monitor), a NIC's
// network (a move on the switch), its boot delay and its guest settings (given at its next start).

export interface QemuConfigurationOptions {
  layout: QemuLayout;
  /** Nets a privileged caller may put a NIC on as they are. */
  reserved: string[];
  machines: QemuMachines;
  serialized: Serialized;
  switchClient: SwitchClient;
}

export function createQemuConfiguration(options: QemuConfigurationOptions) {
  const { layout, reserved, machines, serialized, switchClient } = options;
  const { pidOf, toMachine, required, portOf } = machines;

  async function changeConfiguration(
    id: string,
    change: MachineChange,
    privileged: boolean,
  ): Promise<Machine> {
    const record = required(id);
    return serialized(record.id, async () => {
      const running = (await pidOf(record)) !== null;
      const files = machineFiles(layout, record.id);
      switch (change.kind) {
        case 'iso': {
          const path = change.path.trim();
          const full = path ? inside(layout.isos, path, 'ISO') : null;
          if (full && !(await exists(full))) {
            throw new DriverError('invalid-request', `no ISO ${path}`);
          }
          if (running) {
            await (full
              ? qmp(files.qmp, 'blockdev-change-medium', {
                  id: CDROM_DEVICE,
                  filename: full,
                  format: 'raw',
                  'read-only-mode': 'read-only',
                })
              : qmp(files.qmp, 'eject', { id: CDROM_DEVICE, force: true }));
          }
          record.iso = path || null;
          break;
        }
        case 'net': {
          const nic = record.nics.find((n) => n.index === change.nic);
          if (!nic) throw new DriverError('invalid-request', `no NIC ${change.nic}`);
          const network = change.network;
          const allowed =
            network === '' ||
            network.endsWith(`#${record.tag}`) ||
            (privileged && reserved.includes(network));
          if (!allowed)
            throw new DriverError('invalid-request', `network ${network} is not this lab's`);
          await switchClient.move(portOf(record, nic.index), network);
          nic.network = network;
          break;
        }
        case 'boot':
          record.bootDelaySeconds = change.delaySeconds;
          break;
        case 'guest':
          // Guest settings reach the machine through fw_cfg and its cloud-init seed, both made
          // anew when it starts next (the seed's new instance-id has cloud-init apply them).
          record.guestSettings = [
            ...record.guestSettings,
            { key: change.key, value: change.value },
          ];
          break;
      }
      await writeRecord(layout, record);
      return toMachine(record);
    });
  }

  return changeConfiguration;
}
