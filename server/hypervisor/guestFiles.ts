import type { GuestSetting } from './types';

// Where a Linux guest finds its settings (a template's guestinfo, a challenge's ##key## values),
// by how the drivers deliver them. The qemu driver, and the proxmox one when it has root, give
// them as QEMU fw_cfg files, which the tiny image reads at boot; the proxmox driver otherwise
// writes them through the guest agent into one file. The sim's shell answers from the same
// places, so that a lab can be tried before it runs on a real hypervisor.

/** QEMU's fw_cfg files as a Linux guest sees them (the qemu_fw_cfg module). */
export const FW_CFG_BY_NAME = '/sys/firmware/qemu_fw_cfg/by_name';

/** A setting's fw_cfg name: `opt/guestinfo.{key}` (QEMU reserves names outside `opt/`). */
export const fwCfgName = (key: string): string => `opt/${key}`;

/** Where a guest reads a setting given through fw_cfg. */
export const fwCfgPath = (key: string): string => `${FW_CFG_BY_NAME}/${fwCfgName(key)}/raw`;

/** The file the proxmox driver writes through the guest agent. */
export const GUEST_SETTINGS_FILE = '/etc/topoplay-guestinfo';

/** That file's text: one `key=value` line per setting. */
export const guestSettingsText = (settings: readonly GuestSetting[]): string =>
  settings.map((s) => `${s.key}=${s.value.replace(/[\r\n]+/g, ' ')}\n`).join('');
