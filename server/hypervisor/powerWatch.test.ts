import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPowerWatch } from './powerWatch';

describe('power watch', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  const pollOf = () => {
    const poll = {
      looks: 0,
      begun: 0,
      everyMs: 100,
      check: async () => void poll.looks++,
      begin: () => void poll.begun++,
      failed: vi.fn(),
    };
    return poll;
  };

  it('looks from the first watch to the last one ending, at once and every turn', async () => {
    const poll = pollOf();
    const watch = createPowerWatch(poll);
    await vi.advanceTimersByTimeAsync(500);
    expect(poll.looks).toBe(0);

    const first = watch.watch();
    const second = watch.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(poll.looks).toBe(1);
    await vi.advanceTimersByTimeAsync(300);
    expect(poll.looks).toBe(4);

    first();
    first();
    await vi.advanceTimersByTimeAsync(100);
    expect(poll.looks).toBe(5);
    second();
    await vi.advanceTimersByTimeAsync(500);
    expect(poll.looks).toBe(5);

    // Watching again begins afresh.
    const third = watch.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(poll).toMatchObject({ looks: 6, begun: 2 });
    third();
  });

  it('stops at close, whoever still watches, and starts no more', async () => {
    const poll = pollOf();
    const watch = createPowerWatch(poll);
    watch.watch();
    await vi.advanceTimersByTimeAsync(0);
    watch.close();
    watch.watch();
    await vi.advanceTimersByTimeAsync(500);
    expect(poll.looks).toBe(1);
  });

  it('reports a look that failed and looks again at the next turn', async () => {
    const poll = pollOf();
    let fail = true;
    poll.check = async () => {
      poll.looks++;
      if (fail) throw new Error('unreachable');
    };
    const watch = createPowerWatch(poll);
    const end = watch.watch();
    await vi.advanceTimersByTimeAsync(0);
    expect(poll.failed).toHaveBeenCalledTimes(1);
    fail = false;
    await vi.advanceTimersByTimeAsync(100);
    expect(poll.looks).toBe(2);
    expect(poll.failed).toHaveBeenCalledTimes(1);
    end();
  });
});
