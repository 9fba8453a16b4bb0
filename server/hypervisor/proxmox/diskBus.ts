import type { MachineSpec } from '../types';

// The bus of a clone's disks, as its template names it: a base image's disk is wherever its admin
// put it (scsi0, virtio0, ...); a template whose disk controller says `sata` or `ide` (a guest
// without virtio or SCSI drivers) gets that disk moved there after the clone, as PVE's own GUI
// does it: the drive is detached (PVE keeps its volume as an unused disk) and attached again on
// the other bus, and the boot order follows it.

type Bus = 'sata' | 'ide';

/** The bus a template's controller asks for; null: leave the disk where the base image has it. */
function wantedBus(controller: string | null): Bus | null {
  if (controller && /^(sata|ahci)$/i.test(controller)) return 'sata';
  if (controller && /^(ide|ata)$/i.test(controller)) return 'ide';
  return null;
}

/** Slots a moved disk may take, in order (ide2 is the ISO drive's). */
const SLOTS: Record<Bus, string[]> = {
  sata: ['sata0', 'sata1', 'sata2', 'sata3', 'sata4', 'sata5'],
  ide: ['ide0', 'ide1', 'ide3'],
};

const isDrive = (key: string, value: unknown): value is string =>
  /^(ide|sata|scsi|virtio)\d+$/.test(key) &&
  typeof value === 'string' &&
  !/(^|,)media=cdrom(,|$)/.test(value) &&
  !/cloudinit/.test(value);

/** The config's disks in the guest's order: those in the boot order first, then by key. */
export function disksInOrder(config: Record<string, unknown>): string[] {
  const keys = Object.keys(config)
    .filter((key) => isDrive(key, config[key]))
    .sort();
  const order = /(?:^|,)order=([^,]*)/.exec(String(config.boot ?? ''))?.[1]?.split(';') ?? [];
  return [...order.filter((key) => keys.includes(key)), ...keys.filter((k) => !order.includes(k))];
}

export interface DiskMove {
  from: string;
  to: string;
  /** The disk's volume, attached again at `to`. */
  volume: string;
}

/**
 * The moves that put spec disk i (the clone's i-th disk) on the bus its controller names, into
 * slots neither the config nor `taken` (keys the deploy sets) uses; and the boot order after them.
 */
export function diskMoves(
  config: Record<string, unknown>,
  spec: MachineSpec,
  taken: readonly string[],
): { moves: DiskMove[]; boot: string | null } {
  const disks = disksInOrder(config);
  const used = new Set([...Object.keys(config), ...taken, 'ide2']);
  const moves: DiskMove[] = [];
  for (const disk of spec.disks) {
    const bus = wantedBus(disk.controller);
    const from = disks[disk.index];
    if (!bus || !from || from.startsWith(bus)) continue;
    const to = SLOTS[bus].find((slot) => !used.has(slot));
    if (!to) continue;
    used.add(to);
    moves.push({ from, to, volume: String(config[from]).split(',')[0]! });
  }
  if (moves.length === 0) return { moves, boot: null };
  const order = /(?:^|,)order=([^,]*)/.exec(String(config.boot ?? ''))?.[1]?.split(';') ?? [];
  const renamed = order.map((key) => moves.find((m) => m.from === key)?.to ?? key);
  const first = moves.find((m) => m.from === disks[0])?.to;
  const boot = renamed.length > 0 ? renamed : first ? [first] : [];
  return { moves, boot: boot.length > 0 ? `order=${boot.join(';')}` : null };
}
