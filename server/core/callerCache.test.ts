import { describe, expect, it } from 'vitest';
import { createCallerCache, type Caller } from './callerCache';

const caller = (name: string): Caller => ({
  row: { id: name, name } as Caller['row'],
  signInDisabled: false,
});

describe('the callers kept between requests', () => {
  it('serves a caller until its time is up', () => {
    const cache = createCallerCache({ ttlMs: 1_000 });
    cache.set('a', caller('a'), cache.epoch(), 0);
    expect(cache.get('a', 999)).toEqual(caller('a'));
    expect(cache.get('a', 1_000)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('never stores what a read begun before a drop read', () => {
    const cache = createCallerCache({ ttlMs: 1_000 });
    const since = cache.epoch();
    cache.clear();
    cache.set('a', caller('a'), since, 0);
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set('a', caller('a'), cache.epoch(), 0);
    expect(cache.get('a', 1)).toBeDefined();
  });

  it('drops every caller at once', () => {
    const cache = createCallerCache({ ttlMs: 1_000 });
    cache.set('a', caller('a'), cache.epoch(), 0);
    cache.set('b', caller('b'), cache.epoch(), 0);
    cache.clear();
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('b', 1)).toBeUndefined();
  });

  it('keeps nothing with no time to keep it', () => {
    const cache = createCallerCache({ ttlMs: 0 });
    cache.set('a', caller('a'), cache.epoch(), 0);
    expect(cache.size).toBe(0);
  });

  it('holds at most its maximum, dropping the oldest', () => {
    const cache = createCallerCache({ ttlMs: 1_000, max: 2 });
    for (const id of ['a', 'b', 'c']) cache.set(id, caller(id), cache.epoch(), 0);
    expect(cache.size).toBe(2);
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)).toBeDefined();
  });
});
