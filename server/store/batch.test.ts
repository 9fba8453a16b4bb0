import { describe, expect, it } from 'vitest';
import { createBatcher, type Outcome } from './batch';

/** A batcher over doubling, recording what each batch and each single call got. */
function doubling(options: { maxInFlight?: number; maxSize?: number } = {}) {
  const batches: number[][] = [];
  const singles: number[] = [];
  const open: Array<() => void> = [];
  let held = false;
  const run = async (calls: number[]): Promise<Array<Outcome<number>>> => {
    batches.push(calls);
    if (held) await new Promise<void>((resolve) => open.push(resolve));
    if (calls.includes(13)) throw new Error('the statement failed');
    return calls.map((n) => (n < 0 ? { error: new Error(`negative ${n}`) } : { value: n * 2 }));
  };
  const single = async (n: number) => {
    singles.push(n);
    if (n === 13) throw new Error('thirteen');
    return n * 2;
  };
  const call = createBatcher(run, single, options);
  return {
    call,
    batches,
    singles,
    hold: () => (held = true),
    release: () => {
      held = false;
      open.splice(0).forEach((resolve) => resolve());
    },
  };
}

describe('createBatcher', () => {
  it('runs the calls made together as one batch, each answered its own value', async () => {
    const b = doubling();
    expect(await Promise.all([1, 2, 3].map(b.call))).toEqual([2, 4, 6]);
    expect(b.batches).toEqual([[1, 2, 3]]);
    expect(b.singles).toEqual([]);
  });

  it('runs a call made alone on its own', async () => {
    const b = doubling();
    expect(await b.call(4)).toBe(8);
    expect(b.batches).toEqual([]);
    expect(b.singles).toEqual([4]);
  });

  it('rejects only the call whose outcome is an error', async () => {
    const b = doubling();
    const results = await Promise.allSettled([1, -1, 2].map(b.call));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('negative -1');
  });

  it('runs every call of a batch that fails as a whole on its own, with its own answer', async () => {
    const b = doubling();
    const results = await Promise.allSettled([1, 13, 2].map(b.call));
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('thirteen') },
      { status: 'fulfilled', value: 4 },
    ]);
    expect(b.singles).toEqual([1, 13, 2]);
  });

  it('holds the calls made while the batches under way are at their limit, for one next batch', async () => {
    const b = doubling({ maxInFlight: 1 });
    b.hold();
    const first = Promise.all([1, 2].map(b.call));
    await expect.poll(() => b.batches.length).toBe(1);
    const later = Promise.all([3, 4, 5].map(b.call));
    await new Promise((resolve) => setImmediate(resolve));
    expect(b.batches).toEqual([[1, 2]]);
    b.release();
    expect(await first).toEqual([2, 4]);
    expect(await later).toEqual([6, 8, 10]);
    expect(b.batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('takes at most maxSize calls into one batch', async () => {
    const b = doubling({ maxSize: 2, maxInFlight: 5 });
    expect(await Promise.all([1, 2, 3, 4, 5].map(b.call))).toEqual([2, 4, 6, 8, 10]);
    expect(b.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(b.singles).toEqual([5]);
  });
});
