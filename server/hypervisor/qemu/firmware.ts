import { copyFile } from 'node:fs/promises';
import { join } from 'node:path';
import { exists } from './disks';

// UEFI firmware for machines whose template asks for it: Debian's OVMF (package ovmf), its code
// read-only and shared, its variables (boot entries, settings) a copy of their own per machine,
// kept in the machine's folder so that what the guest's installer wrote survives a restart.

/** Where Debian's ovmf package puts the 4 MiB firmware; OVMF_DIR moves it. */
export const OVMF_DIR = process.env.OVMF_DIR || '/usr/share/OVMF';
export const OVMF_CODE = 'OVMF_CODE_4M.fd';
export const OVMF_VARS = 'OVMF_VARS_4M.fd';

/** A machine's own copy of the variables. */
export const varsOf = (machineDir: string): string => join(machineDir, 'uefi-vars.fd');

/** Why this host cannot boot UEFI machines, or null when it can. */
export async function uefiMissing(dir = OVMF_DIR): Promise<string | null> {
  for (const file of [OVMF_CODE, OVMF_VARS]) {
    if (!(await exists(join(dir, file)))) {
      return (
        `It boots with UEFI, and this host has no UEFI firmware (${join(dir, file)} is ` +
        `missing): install the ovmf package (apt-get install ovmf).`
      );
    }
  }
  return null;
}

/** The firmware files of a machine: its variables are copied at its first start. */
export async function uefiFilesOf(
  machineDir: string,
  dir = OVMF_DIR,
): Promise<{ code: string; vars: string }> {
  const vars = varsOf(machineDir);
  if (!(await exists(vars))) await copyFile(join(dir, OVMF_VARS), vars);
  return { code: join(dir, OVMF_CODE), vars };
}
