import type { DriverStatus, MachineSpec } from '../../hypervisor';

// What a pooled set takes of the hypervisor's caps (running machines, their memory), and how many
// sets fit. A pooled set's machines count against the caps as a gamespace's do, and the keeper
// always leaves one launch's room (one set's machines) beside what runs: refilling a pool never
// locks a player's launch without a ready set out. A pool so holds at most one set fewer than the
// caps have room for, and a size beyond that is refused.

export interface Demand {
  machines: number;
  memoryMiB: number;
}

export const NO_DEMAND: Demand = { machines: 0, memoryMiB: 0 };

export const plus = (a: Demand, b: Demand): Demand => ({
  machines: a.machines + b.machines,
  memoryMiB: a.memoryMiB + b.memoryMiB,
});

/** What a set of these specs runs: the machines that start (all of them, kept together). */
export function demandOf(specs: readonly MachineSpec[], hostAffinity: boolean): Demand {
  const running = specs.filter((s) => s.autoStart || hostAffinity);
  return running.map((s) => ({ machines: 1, memoryMiB: s.memoryMiB })).reduce(plus, NO_DEMAND);
}

/** What the driver counts against its caps now: its running machines and the room it reserved. */
export const inUseOf = (status: DriverStatus): Demand => ({
  machines: status.running + (status.reserved?.machines ?? 0),
  memoryMiB: status.memoryMiBInUse + (status.reserved?.memoryMiB ?? 0),
});

/**
 * How many more sets of `demand` fit in the driver's caps beside `inUse`, one launch's room (a set
 * of the same demand) left over; beside NO_DEMAND: how many a pool could ever hold.
 */
export function setsThatFit(status: DriverStatus, demand: Demand, inUse: Demand): number {
  const fit = (cap: number | null, used: number, each: number) =>
    cap === null || each === 0 ? Number.POSITIVE_INFINITY : Math.floor((cap - used) / each);
  const sets = Math.min(
    fit(status.maxRunning, inUse.machines, demand.machines),
    fit(status.maxMemoryMiB, inUse.memoryMiB, demand.memoryMiB),
  );
  return Math.max(0, sets - 1);
}

/** The caps as a phrase: "6 machines and 4096 MiB". */
export function capsOf(status: DriverStatus): string {
  const caps = [
    status.maxRunning !== null ? `${status.maxRunning} machines` : null,
    status.maxMemoryMiB !== null ? `${status.maxMemoryMiB} MiB` : null,
  ].filter((c) => c !== null);
  return caps.join(' and ') || 'no cap';
}
