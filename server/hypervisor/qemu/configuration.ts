import { tagOf, vmName } from '../naming';
import { DriverError, type DriverEvent, type Machine, type MachineChange } from '../types';
import { callAgent, settingsLine } from './guestAgent';
import { exists } from './disks';
import { inside, machineFiles, type QemuLayout } from './layout';
import type { Serialized } from './locks';
import type { QemuMachines } from './machines';
import { CDROM_DEVICE } from './processes';
import { qmp } from './qmp';
import { writeRecord, type MachineRecord } from './records';
import type { SwitchClient } from './switch';

// Changes to a qemu machine's configuration: its ISO (live through QEMU's monitor), a NIC's
// network (a move on the switch), its boot delay and its guest settings (given at every start, and
// to a running machine through its guest agent); and a tag's machines handed to another (retag).

/** How long a running machine's agent may take to answer new guest settings. */
export const AGENT_SETTINGS_MS = 5_000;
/** The longest `settings` line a guest's serial port takes whole (a tty line holds 4095). */
const MAX_SETTINGS_LINE = 4_000;

export interface QemuConfigurationOptions {
  layout: QemuLayout;
  /** Nets a privileged caller may put a NIC on as they are. */
  reserved: string[];
  machines: QemuMachines;
  serialized: Serialized;
  switchClient: SwitchClient;
  emit(event: DriverEvent): void;
  log?: { warn(o: object, msg?: string): void };
}

export function createQemuConfiguration(options: QemuConfigurationOptions) {
  const { layout, reserved, machines, serialized, switchClient, emit } = options;
  const { records, pidOf, toMachine, required, portOf } = machines;

  /**
   * The running machine's guest settings, all of them, through its agent. Images without the
   * agent (imported disks) never answer: they take the settings at their next start.
   */
  async function deliverSettings(record: MachineRecord, live: boolean): Promise<void> {
    const line = settingsLine(record.guestSettings);
    try {
      if (line.length > MAX_SETTINGS_LINE) {
        throw new DriverError(
          'invalid-request',
          `the guest settings are too long for a running machine (${line.length} of ${MAX_SETTINGS_LINE} characters)`,
        );
      }
      await callAgent(machineFiles(layout, record.id).agent, {
        line,
        answer: 'TOPOPLAY settings',
        timeoutMs: AGENT_SETTINGS_MS,
      });
    } catch (error) {
      // Kept for its next start either way; a caller that needs them now is told.
      if (live) throw error;
      options.log?.warn(
        { machine: record.id, err: error },
        'guest settings reach the machine at its next start',
      );
    }
  }

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
        case 'guests': {
          // Guest settings reach the machine through fw_cfg and its cloud-init seed, both made
          // anew when it starts next (the seed's new instance-id has cloud-init apply them), and
          // a running machine through its agent, in one call for all of them.
          const added = change.kind === 'guest' ? [change] : change.settings;
          record.guestSettings = [
            ...record.guestSettings,
            ...added.map(({ key, value }) => ({ key, value })),
          ];
          await writeRecord(layout, record);
          // A caller that needs them now waits for the agent; the others are not held up by an
          // image that has none.
          const live = change.kind === 'guests' && change.live === true;
          if (running && live) await deliverSettings(record, true);
          else if (running) void deliverSettings(record, false);
          break;
        }
      }
      await writeRecord(layout, record);
      return toMachine(record);
    });
  }

  /**
   * Hands the machines of one tag to another (a pooled set claimed by a gamespace): their names
   * and their NICs on the tag's isolated nets follow the tag, reserved nets stay; the machines run
   * on, their NICs moved on the switch to the new tag's segments. Each is announced as updated.
   */
  async function rename(fromTag: string, toTag: string): Promise<Machine[]> {
    const ofTag = [...records.values()].filter((r) => r.tag === fromTag);
    const renamed = await Promise.all(
      ofTag.map((record) =>
        serialized(record.id, async () => {
          record.name = vmName(record.name, toTag);
          record.tag = toTag;
          for (const nic of record.nics) {
            if (tagOf(nic.network) !== fromTag) continue;
            nic.network = vmName(nic.network, toTag);
            await switchClient.move(portOf(record, nic.index), nic.network);
          }
          await writeRecord(layout, record);
          return toMachine(record);
        }),
      ),
    );
    for (const machine of renamed) emit({ type: 'updated', machine });
    return renamed;
  }

  return { changeConfiguration, rename };
}
