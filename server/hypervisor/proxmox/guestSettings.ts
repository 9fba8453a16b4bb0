import type { Clock } from '../../clock';
import { fwCfgName } from '../guestFiles';
import type { MachineSpec } from '../types';
import { PveError, type PveClient } from './client';

// Guest settings (a template's guestinfo, a challenge's ##key## values) on a Proxmox cluster,
// without root: the QEMU guest agent writes them into the guest as a file once it answers. With
// root@pam's password the driver gives them through QEMU's fw_cfg instead (the VM's `args`, which
// PVE lets only root@pam itself set), as the qemu driver does.

export { GUEST_SETTINGS_FILE, guestSettingsText } from '../guestFiles';

/** QEMU's longest fw_cfg file name. */
const FW_CFG_NAME_MAX = 55;

/** A word of PVE's `args`, which it splits as a shell does. */
const shellWord = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The `args` that give a guest its settings as fw_cfg files `opt/{key}` (as the qemu driver
 * does; QEMU doubles a comma in an option value), and the keys too long for a fw_cfg name.
 */
export function fwCfgArgs(settings: MachineSpec['guestSettings']): {
  args: string;
  skipped: string[];
} {
  const words: string[] = [];
  const skipped: string[] = [];
  for (const { key, value } of settings) {
    const name = fwCfgName(key);
    if (name.length > FW_CFG_NAME_MAX) {
      skipped.push(key);
      continue;
    }
    words.push(
      '-fw_cfg',
      shellWord(`name=${name.replace(/,/g, ',,')},string=${value.replace(/,/g, ',,')}`),
    );
  }
  return { args: words.join(' '), skipped };
}

export interface AgentDelivery {
  api: Pick<PveClient, 'post'>;
  node: string;
  vmid: number;
  /** The file's text (guestSettingsText). */
  content: string;
  /** Where in the guest. */
  file: string;
  /** How often the agent is asked whether it runs yet, and for how long. */
  pollMs: number;
  giveUpMs: number;
  clock: Clock;
  /** The driver closed: stop asking. */
  closed(): boolean;
  log?: { warn(o: object, msg?: string): void };
}

/**
 * Writes the guest settings into the guest once its agent answers (it starts with the guest's
 * OS, seconds to minutes after the machine). A guest without the agent never gets them; that is
 * logged once the driver gives up.
 */
export async function deliverThroughAgent(delivery: AgentDelivery): Promise<void> {
  const { api, node, vmid, clock } = delivery;
  const path = `/nodes/${node}/qemu/${vmid}/agent`;
  const deadline = clock.now() + delivery.giveUpMs;
  while (!delivery.closed() && clock.now() < deadline) {
    try {
      await api.post(`${path}/ping`);
      await api.post(`${path}/file-write`, { file: delivery.file, content: delivery.content });
      return;
    } catch (error) {
      // The machine is gone: nobody to tell.
      if (error instanceof PveError && error.kind === 'not-found') return;
      await new Promise<void>((resolve) => clock.setTimeout(() => resolve(), delivery.pollMs));
    }
  }
  if (!delivery.closed()) {
    delivery.log?.warn(
      { vmid },
      'proxmox: the guest agent never answered; guest settings not written',
    );
  }
}
