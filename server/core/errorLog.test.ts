import { describe, expect, it } from 'vitest';
import { createErrorLog, ERROR_LOG_CAPACITY } from './errorLog';

describe('errorLog', () => {
  it('keeps the newest entries up to its capacity, oldest first', () => {
    let now = 1_000;
    const log = createErrorLog({ now: () => now });
    for (let i = 0; i < ERROR_LOG_CAPACITY + 5; i++) {
      now += 1;
      log.record(new Error(`failure ${i}`));
    }
    const entries = log.since(null);
    expect(entries).toHaveLength(ERROR_LOG_CAPACITY);
    expect(entries[0]!.message).toBe('failure 5');
    expect(entries.at(-1)!.message).toBe(`failure ${ERROR_LOG_CAPACITY + 4}`);
  });

  it('answers only entries strictly after since, with time, level, message and stack', () => {
    let now = Date.UTC(2025, 0, 1);
    const log = createErrorLog({ now: () => now });
    log.record(new Error('first'), 'req-1');
    const cut = now;
    now += 10;
    log.record('not an Error');
    expect(log.since(cut)).toEqual([
      {
        timestamp: new Date(cut + 10).toISOString(),
        level: 'error',
        message: 'not an Error',
        stackTrace: expect.stringContaining('not an Error'),
        requestId: null,
      },
    ]);
    expect(log.since(null)[0]).toMatchObject({ message: 'first', requestId: 'req-1' });
  });
});
