import type { Random } from '../transforms';

/**
 * Test support: a tiny property runner. Each run gets its own seeded generator (mulberry32), so a
 * failure names the seed that reproduces it and every run of the suite sees the same cases.
 */

/** A deterministic generator of floats in [0, 1) from a 32-bit seed. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A Random (the transforms' source of randomness) driven by a seed. */
export function seededRandom(seed: number): Random & { next: () => number } {
  const next = mulberry32(seed);
  return {
    next,
    bytes: (n) => Uint8Array.from({ length: n }, () => Math.floor(next() * 256)),
    int: (min, max) => (max <= min ? min : min + Math.floor(next() * (max - min))),
  };
}

export const RUNS = 200;

/** Checks `property` for `runs` seeds; a failure is rethrown with its seed. */
export function forAll(
  property: (random: ReturnType<typeof seededRandom>, seed: number) => void,
  runs = RUNS,
) {
  for (let seed = 1; seed <= runs; seed++) {
    try {
      property(seededRandom(seed), seed);
    } catch (error) {
      throw new Error(`property failed for seed ${seed}: ${(error as Error).message}`, {
        cause: error,
      });
    }
  }
}
