import { describe, expect, it } from 'vitest';
import { isDue, progressOf, scaled, TASK_MS } from './tasks';

describe('sim tasks', () => {
  it('divides durations by the speed, and makes them instant at speed 0', () => {
    expect(scaled(TASK_MS.deploy, 1)).toBe(3_000);
    expect(scaled(TASK_MS.deploy, 10)).toBe(300);
    expect(scaled(TASK_MS.deploy, 0)).toBe(0);
  });

  it('computes progress from the clock, reaching 100 only when due', () => {
    expect(progressOf(1_000, 2_000, 1_000)).toBe(0);
    expect(progressOf(1_000, 2_000, 2_000)).toBe(50);
    expect(progressOf(1_000, 2_000, 2_999.9)).toBe(99);
    expect(progressOf(1_000, 2_000, 3_000)).toBe(100);
    expect(isDue(1_000, 2_000, 2_999)).toBe(false);
    expect(isDue(1_000, 0, 1_000)).toBe(true);
  });

  it('reads a copy queued for later as 0', () => {
    expect(progressOf(5_000, 1_000, 4_000)).toBe(0);
  });
});
