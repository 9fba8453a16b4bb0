import { describe, expect, it } from 'vitest';
import type { GameState } from '../gamespaces';
import type { GamespaceTable } from '../../store/schema';
import { createStateCache } from './stateCache';

const row = (id: string, over: Partial<GamespaceTable> = {}) =>
  ({
    id,
    managerId: 'm',
    startTime: 1,
    endTime: 0,
    expirationTime: 1_000_000,
    ...over,
  }) as GamespaceTable;
const entry = (id: string, isActive = true, over: Partial<GamespaceTable> = {}) => ({
  row: row(id, over),
  players: [],
  state: { id, isActive } as GameState,
});

describe('kept game states', () => {
  it('serves a state until the time to live, then reads again', () => {
    const cache = createStateCache({ ttlMs: 1_000 });
    cache.set(entry('g'), { now: 100, since: cache.epoch() });
    expect(cache.get('g', 1_099)?.state.id).toBe('g');
    expect(cache.get('g', 1_100)).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keeps an active state no longer than its expiration, where it turns inactive', () => {
    const cache = createStateCache({ ttlMs: 1_000 });
    cache.set(entry('g', true, { expirationTime: 500 }), { now: 100, since: cache.epoch() });
    expect(cache.get('g', 499)).toBeDefined();
    expect(cache.get('g', 500)).toBeUndefined();
    // An inactive one has no such boundary.
    cache.set(entry('h', false, { expirationTime: 500 }), { now: 100, since: cache.epoch() });
    expect(cache.get('h', 900)).toBeDefined();
  });

  it("keeps a workspace preview's topology until its workspace changes or its time is up", () => {
    const cache = createStateCache({ ttlMs: 1_000 });
    const topology = [{ name: 'gw', networks: ['lan', 'dmz'] }];
    cache.keepPreview('ws', topology, { now: 0, since: cache.epoch() });
    cache.keepPreview('other', topology, { now: 0, since: cache.epoch() });
    expect(cache.preview('ws', 999)).toBe(topology);
    expect(cache.preview('ws', 1_000)).toBeUndefined();
    cache.keepPreview('ws', topology, { now: 0, since: cache.epoch() });
    cache.forget('ws');
    expect(cache.preview('ws', 1)).toBeUndefined();
    expect(cache.preview('other', 1)).toBe(topology);
    // A read begun before its workspace changed (a template hidden since) is not kept.
    const since = cache.epoch();
    cache.forget('ws');
    cache.keepPreview('ws', topology, { now: 2, since });
    expect(cache.preview('ws', 3)).toBeUndefined();
  });

  it('drops a state at once when its gamespace changes', () => {
    const cache = createStateCache();
    cache.set(entry('g'), { now: 0, since: cache.epoch() });
    cache.set(entry('h'), { now: 0, since: cache.epoch() });
    cache.forget('g');
    expect(cache.get('g', 1)).toBeUndefined();
    expect(cache.get('h', 1)).toBeDefined();
  });

  it('never stores a read that began before a change of the same gamespace', () => {
    const cache = createStateCache();
    const since = cache.epoch();
    cache.forget('g');
    cache.set(entry('g'), { now: 0, since });
    expect(cache.get('g', 1)).toBeUndefined();
    // Changes of other gamespaces do not stop it, and a read begun afterwards is stored.
    const again = cache.epoch();
    cache.forget('other');
    cache.set(entry('g'), { now: 0, since: again });
    expect(cache.get('g', 1)).toBeDefined();
  });

  it('stays safe when its record of changes is cleared to bound its memory', () => {
    const cache = createStateCache({ max: 3 });
    const since = cache.epoch();
    for (const id of ['a', 'b', 'c', 'd']) cache.forget(id);
    // 'a' was forgotten from the record, but the read began before it was cleared.
    cache.set(entry('a'), { now: 0, since });
    expect(cache.get('a', 1)).toBeUndefined();
    cache.set(entry('a'), { now: 0, since: cache.epoch() });
    expect(cache.get('a', 1)).toBeDefined();
  });

  it('holds at most `max` states, dropping the oldest', () => {
    const cache = createStateCache({ max: 2 });
    for (const id of ['a', 'b', 'c']) cache.set(entry(id), { now: 0, since: cache.epoch() });
    expect(cache.get('a', 1)).toBeUndefined();
    expect(cache.get('c', 1)).toBeDefined();
    expect(cache.size).toBe(2);
  });

  it('keeps nothing with a time to live of 0', () => {
    const cache = createStateCache({ ttlMs: 0 });
    cache.set(entry('g'), { now: 0, since: cache.epoch() });
    expect(cache.get('g', 0)).toBeUndefined();
  });
});

describe('kept game states and their workspace', () => {
  const inWorkspace = (id: string, workspaceId: string) =>
    entry(id, true, { workspaceId } as Partial<GamespaceTable>);

  it("drops every kept gamespace of a workspace on a message to the workspace's group", () => {
    const cache = createStateCache();
    cache.set(inWorkspace('g1', 'w'), { now: 0, since: cache.epoch() });
    cache.set(inWorkspace('g2', 'w'), { now: 0, since: cache.epoch() });
    cache.set(inWorkspace('g3', 'v'), { now: 0, since: cache.epoch() });
    cache.forget('w');
    expect(cache.get('g1', 1)).toBeUndefined();
    expect(cache.get('g2', 1)).toBeUndefined();
    expect(cache.get('g3', 1)).toBeDefined();
  });

  it('never stores a read that began before a change of its workspace', () => {
    const cache = createStateCache();
    const since = cache.epoch();
    cache.forget('w');
    cache.set(inWorkspace('g1', 'w'), { now: 0, since });
    expect(cache.get('g1', 1)).toBeUndefined();
  });
});
