import { fwCfgPath, GUEST_SETTINGS_FILE, guestSettingsText } from '../../guestFiles';
import type { GuestSetting } from '../../types';
import type { MachineFiles } from './terminal';

// The files of a simulated machine: its name, and its guest settings wherever a real guest finds
// them (guestFiles.ts), so that a lab whose flag is a guest setting can be played on the sim.

export function machineFiles(hostname: string, settings: readonly GuestSetting[]): MachineFiles {
  const files = new Map<string, string>([['/etc/hostname', `${hostname}\n`]]);
  for (const { key, value } of settings) files.set(fwCfgPath(key), value);
  if (settings.length > 0) files.set(GUEST_SETTINGS_FILE, guestSettingsText(settings));
  return files;
}
