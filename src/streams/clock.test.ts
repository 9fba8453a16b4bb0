import { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import { CLOCK_TICK_MS, clockTicks$ } from './clock';

const scheduler = () => new TestScheduler((actual, expected) => expect(actual).toEqual(expected));

describe('clockTicks$', () => {
  it('ticks at once and then every CLOCK_TICK_MS with the time of each tick', () => {
    const test = scheduler();
    test.run(({ expectObservable }) => {
      expectObservable(clockTicks$(CLOCK_TICK_MS, test), `^ ${2 * CLOCK_TICK_MS + 1}ms !`).toBe(
        `a ${CLOCK_TICK_MS - 1}ms b ${CLOCK_TICK_MS - 1}ms c`,
        {
          a: { type: 'clock.ticked', now: 0 },
          b: { type: 'clock.ticked', now: CLOCK_TICK_MS },
          c: { type: 'clock.ticked', now: 2 * CLOCK_TICK_MS },
        },
      );
    });
    expect(CLOCK_TICK_MS).toBe(1_000);
  });
});
