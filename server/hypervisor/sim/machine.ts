import {
  untagged,
  type GuestSetting,
  type Machine,
  type MachineOperation,
  type MachineQuestion,
  type MachineStatus,
  type PowerState,
} from '../types';
import { deployTaskOfRow, isDeploying } from './deploys';
import type { SimMachineRow } from './port';
import { progressOf } from './tasks';

// A kept sim machine as the driver's Machine.

export const HOST = 'sim';

/**
 * What the SPA offers for a simulated machine. Revert is left out as for proxmox (the product
 * spec offers it on vSphere only), though the driver still carries out a revert that an API
 * client asks for, as the reference's mock hypervisor does.
 */
export const OPERATIONS: readonly MachineOperation[] = ['start', 'stop', 'save', 'delete', 'reset'];

export const nicsOf = (row: Pick<SimMachineRow, 'nics'>): string[] =>
  JSON.parse(row.nics) as string[];

/**
 * The guest settings a machine was given, from its `key=value` lines: at deploy, then one line
 * per change, so that a key given again has its last value.
 */
export function guestSettingsOf(row: Pick<SimMachineRow, 'guestSettings'>): GuestSetting[] {
  const settings = new Map<string, string>();
  for (const line of row.guestSettings.split('\n')) {
    const at = line.indexOf('=');
    if (at > 0) settings.set(line.slice(0, at), line.slice(at + 1));
  }
  return [...settings].map(([key, value]) => ({ key, value }));
}

function questionOf(row: SimMachineRow): MachineQuestion | null {
  return row.question ? (JSON.parse(row.question) as MachineQuestion) : null;
}

export function toMachine(row: SimMachineRow, now: number): Machine {
  const status = row.status as MachineStatus;
  const state = row.state as PowerState;
  return {
    id: row.id,
    name: row.name,
    host: HOST,
    path: `[sim] ${row.tag}/${untagged(row.name)}`,
    reference: '',
    diskPath: row.diskPath,
    stats: `${status} | ${state}`,
    status,
    state,
    question: questionOf(row),
    task: isDeploying(row)
      ? deployTaskOfRow(row, now)
      : row.taskId
        ? {
            id: row.taskId,
            name: row.taskName,
            progress: progressOf(row.taskStarted, row.taskDuration, now),
            started: row.taskStarted,
          }
        : null,
    tags: null,
    isTemplate: false,
    nics: nicsOf(row).map((network, index) => ({ index, network })),
  };
}
