import { DriverError } from '../types';

// The caps on running machines and their memory. A machine is admitted before its QEMU starts,
// and a batch (a gamespace launch) is admitted whole before any of its machines is built, so that
// a launch beyond the caps is refused with a sentence and leaves nothing half-built. Room admitted
// and not yet running is reserved, and checks run one at a time, so that two launches cannot both
// take the last room. A warm image's build (warm.ts) runs a machine too: it is admitted the same
// way, and only when room for another machine of its size is left beside it, so that a build never
// takes the room a player's launch needs.

export interface Reservation {
  count: number;
  memoryMiB: number;
}

export interface CapacityOptions {
  maxRunning: number | null;
  maxMemoryMiB: number | null;
  /** Memory of each machine running now, MiB. */
  running(): Promise<number[]>;
}

export function createCapacity(options: CapacityOptions) {
  const { maxRunning, maxMemoryMiB } = options;
  const reservations = new Set<Reservation>();
  let queue: Promise<unknown> = Promise.resolve();

  const sum = (memories: readonly number[]) => memories.reduce((total, m) => total + m, 0);

  /** Room admitted and not yet running. */
  const reserved = (): Reservation => ({
    count: [...reservations].reduce((n, r) => n + r.count, 0),
    memoryMiB: [...reservations].reduce((total, r) => total + r.memoryMiB, 0),
  });

  /** `spare`: memories that must still fit once these are admitted, not reserved themselves. */
  async function admitNow(
    memories: number[],
    own?: Reservation,
    spare: number[] = [],
  ): Promise<Reservation> {
    const running = await options.running();
    const others = [...reservations].filter((r) => r !== own);
    const count = running.length + others.reduce((n, r) => n + r.count, 0);
    const memory = sum(running) + others.reduce((total, r) => total + r.memoryMiB, 0);
    const wanted = sum(memories);
    const besides = spare.length ? ` with room for ${spare.length} more left` : '';
    if (maxRunning !== null && count + memories.length + spare.length > maxRunning) {
      throw new DriverError(
        'capacity',
        `${count} of at most ${maxRunning} machines are running; ${memories.length} more do not fit${besides}`,
      );
    }
    if (maxMemoryMiB !== null && memory + wanted + sum(spare) > maxMemoryMiB) {
      throw new DriverError(
        'capacity',
        `${memory} of ${maxMemoryMiB} MiB of machine memory are in use; ${wanted} MiB more do not fit${besides}`,
      );
    }
    const reservation = { count: memories.length, memoryMiB: wanted };
    reservations.add(reservation);
    return reservation;
  }

  function queued(admission: () => Promise<Reservation>): Promise<Reservation> {
    const result = queue.then(admission);
    queue = result.catch(() => undefined);
    return result;
  }

  return {
    maxRunning,
    maxMemoryMiB,
    reserved,
    /**
     * Admits machines of these memories, or refuses saying what is in use; `own` is the batch's
     * own reservation, which does not count against its machines.
     */
    admit: (memories: number[], own?: Reservation): Promise<Reservation> =>
      queued(() => admitNow(memories, own)),
    /** Admits machines only when machines of the `spare` memories would still fit beside them. */
    admitLeaving: (memories: number[], spare: number[]): Promise<Reservation> =>
      queued(() => admitNow(memories, undefined, spare)),
    /** A started machine of the batch no longer needs its reserved room. */
    consume(batch: Reservation, memoryMiB: number): void {
      batch.count = Math.max(0, batch.count - 1);
      batch.memoryMiB = Math.max(0, batch.memoryMiB - memoryMiB);
    },
    release(reservation: Reservation): void {
      reservations.delete(reservation);
    },
  };
}

export type Capacity = ReturnType<typeof createCapacity>;
