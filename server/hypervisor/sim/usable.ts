import type { Clock, Timer } from '../../clock';
import type { DriverListener } from '../listeners';
import { DriverError, tagOf } from '../types';
import type { SimMachineRow } from './port';

// When a tag's simulated machines are usable (HypervisorDriver.untilUsable): once none of them
// has a task under way. A deploy's task ends with its machine running when its spec starts it,
// so a warm pool's set is ready once its machines run, not once they exist. The wait wakes when
// one of the tag's machines is announced (a task ended in this process) and when the first of
// their tasks falls due (a timer at that time: another process may be the one that ends it and
// announces it, and the read then ends it here at the latest); it never polls.

export interface UsableDeps {
  /** The tag's machines as they are now, their due tasks ended (a read ends them). */
  machinesOf(tag: string): Promise<SimMachineRow[]>;
  subscribe(listener: DriverListener): () => void;
  clock: Clock;
  /** Aborted when the driver closes: a wait under way then rejects. */
  closing: AbortSignal;
}

/**
 * Resolves once no machine of the tag has a task under way, or once the tag has none left (its
 * machines were removed, a drained set's: nothing to wait for). Rejects, not-found, when some of
 * the machines it found went meanwhile (the rest are no whole set), and unavailable when the
 * driver closes.
 */
export async function untilIdle(deps: UsableDeps, tag: string): Promise<void> {
  const { clock, closing } = deps;
  let wake: () => void = () => undefined;
  const unsubscribe = deps.subscribe((event) => {
    if (tagOf(event.machine.name) === tag) wake();
  });
  const onClose = () => wake();
  closing.addEventListener('abort', onClose);
  let timer: Timer | null = null;
  try {
    let found: SimMachineRow[] | null = null;
    for (;;) {
      if (closing.aborted) throw new DriverError('unavailable', 'the sim driver closed');
      // Armed before the read: an announcement during the read is not missed.
      const woken = new Promise<void>((resolve) => (wake = resolve));
      const rows = await deps.machinesOf(tag);
      found ??= rows;
      if (rows.length === 0) return;
      const gone = found.filter((f) => !rows.some((r) => r.id === f.id));
      if (gone.length > 0) {
        const names = gone.map((g) => g.name).join(', ');
        throw new DriverError('not-found', `${names} went while its tag was awaited`);
      }
      const pending = rows.filter((r) => r.taskId);
      if (pending.length === 0) return;
      const due = Math.min(...pending.map((r) => r.taskStarted + r.taskDuration));
      timer = clock.setTimeout(() => wake(), Math.max(0, due - clock.now()));
      await woken;
      clock.clearTimeout(timer);
      timer = null;
    }
  } finally {
    unsubscribe();
    closing.removeEventListener('abort', onClose);
    if (timer) clock.clearTimeout(timer);
  }
}
