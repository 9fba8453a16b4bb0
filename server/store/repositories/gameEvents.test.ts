import { sql } from 'kysely';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTestDatabase,
  testEngines,
  type TestDatabase,
} from '../../../tests/server/databases';
import { realClock } from '../../clock';
import { createGameEventLog } from '../../core/gameEventLog';
import { openStore, type Store } from '../db';
import type { GamespaceTable } from '../schema';
import { createGameEventRepository } from './gameEvents';
import { createGamespaceRepository } from './gamespaces';

// A gamespace's event log as stored (migration 008): read back per gamespace, oldest first and in
// recording order within a millisecond, optional fields absent rather than empty; deleted with
// its gamespace; recording that fails is logged and never rejects.

const gamespace = (id: string): GamespaceTable => ({
  id,
  name: 'Blue Lab',
  managerId: 'p1',
  managerName: 'One',
  graderKey: '',
  whenCreated: 1_000,
  startTime: 0,
  endTime: 0,
  expirationTime: 3_600_000,
  cleanupGraceMinutes: 0,
  cleaned: 0,
  allowReset: 1,
  challenge: '{}',
  workspaceId: null,
  variant: 0,
  playerCount: 1,
});

describe.each(testEngines())('the game event log stored on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;
  afterEach(async () => {
    await store.close();
    await database.cleanup();
  });

  const open = async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
    const repositories = {
      gameEvents: createGameEventRepository(store.db),
      gamespaces: createGamespaceRepository(store.db),
    };
    const warn = vi.fn();
    const log = createGameEventLog(repositories, { clock: realClock, log: { warn } });
    return { ...repositories, log, warn };
  };

  it('tells when the latest event of each gamespace asked about happened, in one read', async () => {
    const { log, gameEvents } = await open();
    await log.record({ gamespaceId: 'g1', kind: 'deploy', at: 1_000 });
    await log.record({ gamespaceId: 'g1', kind: 'console.open', at: 7_000 });
    await log.record({ gamespaceId: 'g1', kind: 'console.close', at: 4_000 });
    await log.record({ gamespaceId: 'g2', kind: 'deploy', at: 2_000 });
    await log.record({ gamespaceId: 'g3', kind: 'deploy', at: 9_000 });
    // g3 is not asked about; g4 has no events.
    expect(await gameEvents.latestOf(['g1', 'g2', 'g4'])).toEqual(
      new Map([
        ['g1', 7_000],
        ['g2', 2_000],
      ]),
    );
    expect(await gameEvents.latestOf([])).toEqual(new Map());
  });

  it('reads a gamespace’s events back oldest first, with what was recorded and no more', async () => {
    const { log } = await open();
    await log.record({ gamespaceId: 'g1', kind: 'console.open', at: 5_000, actorId: 'u1' });
    await log.record({
      gamespaceId: 'g1',
      kind: 'submission',
      at: 3_000,
      actorId: 'u1',
      actorName: 'Ann',
      detail: 'Question set 1: 1 of 2 correct, 50 of 100 points',
      score: 50,
    });
    await log.record({ gamespaceId: 'g2', kind: 'deploy', at: 4_000, machineId: 'm1' });
    await log.record({
      gamespaceId: 'g1',
      kind: 'deploy',
      at: 1_000,
      machineId: 'vm-1',
      machineName: 'kali',
    });

    const events = await log.list('g1');
    expect(events.map((e) => [e.kind, e.at])).toEqual([
      ['deploy', 1_000],
      ['submission', 3_000],
      ['console.open', 5_000],
    ]);
    const [deploy, submission, open1] = events;
    expect(deploy).toEqual({
      id: deploy!.id,
      gamespaceId: 'g1',
      kind: 'deploy',
      at: 1_000,
      machineId: 'vm-1',
      machineName: 'kali',
    });
    expect(submission).toMatchObject({ actorName: 'Ann', score: 50 });
    expect(submission!.detail).toBe('Question set 1: 1 of 2 correct, 50 of 100 points');
    expect(open1).not.toHaveProperty('score');
    expect(open1).not.toHaveProperty('actorName');
    expect(await log.list('g3')).toEqual([]);
  });

  it('keeps the recording order of events of the same millisecond', async () => {
    const { log } = await open();
    const kinds = ['console.close', 'console.open', 'clipboard.paste', 'console.close'] as const;
    for (const kind of kinds) await log.record({ gamespaceId: 'g1', kind, at: 7_000 });
    expect((await log.list('g1')).map((e) => e.kind)).toEqual(kinds);
  });

  it('takes the time from its clock when the event has none', async () => {
    const { log } = await open();
    const before = realClock.now();
    await log.record({ gamespaceId: 'g1', kind: 'complete' });
    const [event] = await log.list('g1');
    expect(event!.at).toBeGreaterThanOrEqual(before);
    expect(event!.at).toBeLessThanOrEqual(realClock.now());
  });

  it('deletes a gamespace’s events with the gamespace, and only its', async () => {
    const { log, gamespaces } = await open();
    await gamespaces.create(gamespace('g1'), []);
    await gamespaces.create(gamespace('g2'), []);
    await log.record({ gamespaceId: 'g1', kind: 'deploy' });
    await log.record({ gamespaceId: 'g2', kind: 'deploy' });
    await gamespaces.remove('g1');
    expect(await log.list('g1')).toEqual([]);
    expect(await log.list('g2')).toHaveLength(1);
    await log.removeFor('g2');
    expect(await log.list('g2')).toEqual([]);
  });

  it('logs a recording that fails and resolves all the same', async () => {
    const { log, warn } = await open();
    await store.close();
    await expect(log.record({ gamespaceId: 'g1', kind: 'deploy' })).resolves.toBeUndefined();
    expect(warn).toHaveBeenCalledWith(
      expect.objectContaining({ gamespaceId: 'g1', kind: 'deploy' }),
      'recording a game event failed',
    );
    store = await openStore({ url: database.url, schema: database.schema });
  });

  it.runIf(engine === 'sqlite')('reads a gamespace’s events through its index', async () => {
    await open();
    const plan = await sql<{ detail: string }>`
      explain query plan select * from game_events where gamespace_id = ${'g1'} order by at, id
    `.execute(store.db);
    expect(plan.rows.map((r) => r.detail).join('\n')).toMatch(/USING INDEX game_events_gamespace/);
  });
});
