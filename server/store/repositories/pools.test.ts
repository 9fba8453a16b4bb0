import { afterEach, describe, expect, it } from 'vitest';
import {
  createTestDatabase,
  testEngines,
  type TestDatabase,
} from '../../../tests/server/databases';
import { openStore, type Store } from '../db';
import { createPoolRepository } from './pools';

// Warm pools as stored: a claim hands a ready set to exactly one launch even when many launches
// of several server processes (here two stores, each with its own connections, on one
// database) claim at once; drained and claimed sets never meet.

describe.each(testEngines())('warm pools stored on %s', (engine) => {
  let database: TestDatabase;
  const stores: Store[] = [];
  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await database.cleanup();
  });

  /** Two repositories on one database, as two server processes have them. */
  const openTwo = async () => {
    database = await createTestDatabase(engine);
    const options = { url: database.url, schema: database.schema };
    stores.push(await openStore(options));
    stores.push(await openStore(options));
    return stores.map((s) => createPoolRepository(s.db));
  };

  const addReady = async (repo: ReturnType<typeof createPoolRepository>, count: number) => {
    for (let i = 0; i < count; i++) {
      const id = `set-${String(i).padStart(2, '0')}`;
      await repo.addSet({
        id,
        workspaceId: 'ws1',
        variant: 0,
        fingerprint: 'f',
        created: 1_000 + i,
      });
      expect(await repo.move(id, ['warming'], 'ready', 2_000)).toBe(true);
    }
  };

  it('hands each of 10 ready sets to exactly one of 40 concurrent claims', async () => {
    const [a, b] = await openTwo();
    await addReady(a!, 10);
    const claims = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 ? a! : b!).claim('ws1', 0, 'f', `gs-${i}`, 3_000),
      ),
    );
    const won = claims.filter((c) => c !== undefined);
    expect(won).toHaveLength(10);
    expect(new Set(won.map((c) => c.id)).size).toBe(10);
    expect(new Set(won.map((c) => c.claimedBy)).size).toBe(10);
    const sets = await a!.setsOf('ws1');
    expect(sets.every((s) => s.state === 'claimed')).toBe(true);
    // What each claim answered is what the store kept.
    for (const claim of won) {
      expect(sets.find((s) => s.id === claim.id)?.claimedBy).toBe(claim.claimedBy);
    }
  });

  it('claims the oldest ready set of the variant and templates, never one warming', async () => {
    const [repo] = await openTwo();
    await repo!.addSet({
      id: 'warm',
      workspaceId: 'ws1',
      variant: 0,
      fingerprint: 'f',
      created: 500,
    });
    await repo!.addSet({ id: 'old', workspaceId: 'ws1', variant: 0, fingerprint: 'e', created: 1 });
    await repo!.move('old', ['warming'], 'ready', 700);
    await repo!.addSet({
      id: 'v1',
      workspaceId: 'ws1',
      variant: 1,
      fingerprint: 'f',
      created: 600,
    });
    await repo!.move('v1', ['warming'], 'ready', 700);
    await addReady(repo!, 2);
    // 'old' is older but made from other templates: never claimed.
    expect((await repo!.claim('ws1', 0, 'f', 'gs-a', 3_000))?.id).toBe('set-00');
    expect((await repo!.claim('ws1', 1, 'f', 'gs-b', 3_000))?.id).toBe('v1');
    expect(await repo!.claim('ws1', 1, 'f', 'gs-c', 3_000)).toBeUndefined();
    expect(await repo!.claim('ws2', 0, 'f', 'gs-d', 3_000)).toBeUndefined();
  });

  it('drains only what no launch claimed, whichever comes first', async () => {
    const [a, b] = await openTwo();
    await addReady(a!, 6);
    const [drained, ...claims] = await Promise.all([
      a!.drain('ws1', { from: ['warming', 'ready', 'failed'], to: 'drained' }, 4_000),
      ...Array.from({ length: 6 }, (_, i) => b!.claim('ws1', 0, 'f', `gs-${i}`, 4_000)),
    ]);
    const claimed = claims.filter((c) => c !== undefined).map((c) => c.id);
    const drainedIds = drained!.map((s) => s.id);
    expect(claimed.filter((id) => drainedIds.includes(id))).toEqual([]);
    expect(claimed.length + drainedIds.length).toBe(6);
  });

  it('keeps the size and counts misses and recent claims', async () => {
    const [repo] = await openTwo();
    await repo!.setSize('ws1', 3, 1_000);
    await repo!.countMiss('ws1');
    await repo!.countMiss('ws1');
    await repo!.setSize('ws1', 4, 2_000);
    // A workspace without a pool counts nothing.
    await repo!.countMiss('ws2');
    expect(await repo!.setting('ws1')).toMatchObject({ size: 4, misses: 2 });
    expect(await repo!.setting('ws2')).toBeUndefined();
    await addReady(repo!, 3);
    await repo!.claim('ws1', 0, 'f', 'gs-old', 10_000);
    await repo!.claim('ws1', 0, 'f', 'gs-new', 20_000);
    expect(await repo!.counts('ws1', 15_000)).toEqual({
      warming: 0,
      ready: 1,
      claimed: 1,
      failed: 0,
      drained: 0,
    });
  });

  it('keeps scheduled launches by time', async () => {
    const [repo] = await openTwo();
    await repo!.addSchedule({ id: 's1', workspaceId: 'ws1', count: 20, at: 50_000, created: 1 });
    await repo!.addSchedule({ id: 's2', workspaceId: 'ws1', count: 5, at: 90_000, created: 1 });
    expect((await repo!.schedulesOf('ws1', 40_000, 60_000)).map((s) => s.id)).toEqual(['s1']);
    expect(await repo!.scheduledWorkspaces(60_000)).toEqual(['ws1']);
    await repo!.removeSchedulesBefore(60_000);
    expect((await repo!.schedulesOf('ws1', 0, 100_000)).map((s) => s.id)).toEqual(['s2']);
  });
});
