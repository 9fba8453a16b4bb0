import type { Clock } from '../../clock';
import { fwCfgName } from '../guestFiles';
import type { MachineSpec } from '../types';
import { PveError, type PveClient } from './client';
import { readGuestFile } from './guestAgent';

// Guest settings (a template's guestinfo, a challenge's ##key## values) on a Proxmox cluster,
// without root: the QEMU guest agent writes them into the guest as a file once it answers. With
// root@pam's password the driver gives them through QEMU's fw_cfg instead (the VM's `args`, which
// PVE lets only root@pam itself set), as the qemu driver does.
// Settings added to a running machine (a pooled machine claimed by a gamespace) go through the
// agent too: the file is written anew with the new lines after its own, then the image's hook
// runs, as the qemu driver's agent runs it (SETTINGS_HOOK).

export { GUEST_SETTINGS_FILE, guestSettingsText } from '../guestFiles';

/** The image-specific part of taking new guest settings, run when the image has it. */
export const SETTINGS_HOOK = '/etc/topoplay/settings';
/** How long a running machine's agent may take to take new guest settings, its hook included. */
export const AGENT_SETTINGS_MS = 5_000;
/** Between asks whether the hook has ended. */
const EXEC_POLL_MS = 50;

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

export interface AgentAddition {
  api: Pick<PveClient, 'get' | 'post'>;
  /** The VM's path in the API (machines.ts vmPath). */
  vm: string;
  /** The lines added (guestSettingsText). */
  text: string;
  /** Where in the guest. */
  file: string;
  clock: Clock;
  /** The driver closed: stop waiting for the hook. */
  closed(): boolean;
  log?: { warn(o: object, msg?: string): void };
}

/**
 * Adds guest settings to a running guest through its agent: the settings file is read and
 * written again with the new lines after its own (a key set again takes its last value, as at a
 * start), then the image's hook runs when it has one, and is waited for. Rejects when the agent
 * does not answer: the guest does not have the settings then.
 */
export async function addThroughAgent(addition: AgentAddition): Promise<void> {
  const { api, clock } = addition;
  const agent = `${addition.vm}/agent`;
  await api.post(`${agent}/ping`);
  // A guest that never had settings has no file yet.
  const before = (await readGuestFile(api, addition.vm, addition.file))?.toString('utf8') ?? '';
  const lead = before && !before.endsWith('\n') ? `${before}\n` : before;
  await api.post(`${agent}/file-write`, { file: addition.file, content: lead + addition.text });
  const { pid } = await api.post<{ pid: number }>(`${agent}/exec`, {
    command: ['/bin/sh', '-c', `[ ! -x ${SETTINGS_HOOK} ] || exec ${SETTINGS_HOOK}`],
  });
  const deadline = clock.now() + AGENT_SETTINGS_MS;
  for (;;) {
    const status = await api.get<{ exited: boolean | number; exitcode?: number }>(
      `${agent}/exec-status`,
      { pid },
    );
    if (status.exited) {
      // The settings are in the guest; a hook that failed is the image's to answer for.
      if (status.exitcode) {
        addition.log?.warn(
          { vm: addition.vm, exitcode: status.exitcode },
          'proxmox: the settings hook failed',
        );
      }
      return;
    }
    if (addition.closed()) throw new PveError('network', 'the proxmox driver closed');
    if (clock.now() >= deadline) {
      throw new PveError('timeout', `the settings hook of ${addition.vm} did not end in time`, {
        path: `${agent}/exec-status`,
      });
    }
    await new Promise<void>((resolve) => clock.setTimeout(() => resolve(), EXEC_POLL_MS));
  }
}
