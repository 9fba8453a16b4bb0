import { asyncScheduler, map, timer, type Observable, type SchedulerLike } from 'rxjs';

/** Countdowns move once a second (spec §4, §9: the gamespace state refreshes every 1000 ms). */
export const CLOCK_TICK_MS = 1_000;

export interface ClockTick {
  type: 'clock.ticked';
  /** The scheduler's time (epoch ms with the default scheduler). */
  now: number;
}

/** A tick at once, then one every `periodMs`, each carrying the time it was taken. */
export const clockTicks$ = (
  periodMs: number = CLOCK_TICK_MS,
  scheduler: SchedulerLike = asyncScheduler,
): Observable<ClockTick> =>
  timer(0, periodMs, scheduler).pipe(
    map(() => ({ type: 'clock.ticked' as const, now: scheduler.now() })),
  );
