import { DriverError } from '../types';

// The caps on running machines and their memory. A machine is admitted before its QEMU starts,
// and a batch (a gamespace launch) is admitted whole before any of its machines is built, so that
// a launch beyond the caps is refused with a sentence and leaves nothing half-built. Room admitted
// and not yet running is reserved, and checks run one at a time, so that two launches cannot both
// take the last room.

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

  async function admitNow(memories: number[], own?: Reservation): Promise<Reservation> {
    const running = await options.running();
    const others = [...reservations].filter((r) => r !== own);
    const count = running.length + others.reduce((n, r) => n + r.count, 0);
    const memory =
      running.reduce((sum, m) => sum + m, 0) + others.reduce((sum, r) => sum + r.memoryMiB, 0);
    const wanted = memories.reduce((sum, m) => sum + m, 0);
    if (maxRunning !== null && count + memories.length > maxRunning) {
      throw new DriverError(
        'capacity',
        `${count} of at most ${maxRunning} machines are running; ${memories.length} more do not fit`,
      );
    }
    if (maxMemoryMiB !== null && memory + wanted > maxMemoryMiB) {
      throw new DriverError(
        'capacity',
        `${memory} of ${maxMemoryMiB} MiB of machine memory are in use; ${wanted} MiB more do not fit`,
      );
    }
    const reservation = { count: memories.length, memoryMiB: wanted };
    reservations.add(reservation);
    return reservation;
  }

  return {
    maxRunning,
    maxMemoryMiB,
    /**
     * Admits machines of these memories, or refuses saying what is in use; `own` is the batch's
     * own reservation, which does not count against its machines.
     */
    admit(memories: number[], own?: Reservation): Promise<Reservation> {
      const result = queue.then(() => admitNow(memories, own));
      queue = result.catch(() => undefined);
      return result;
    },
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
