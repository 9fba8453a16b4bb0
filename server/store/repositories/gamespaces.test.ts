import pg from 'pg';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTestDatabase,
  testEngines,
  type TestDatabase,
} from '../../../tests/server/databases';
import { openStore, type Store } from '../db';
import type { GamespaceTable, PlayerTable } from '../schema';
import { createGamespaceRepository } from './gamespaces';
import { createPlayerRepository } from './players';

// A launch's writes: the gamespace and its players stored together or not at all, and on
// PostgreSQL in one statement (one round trip, one commit), where thousands of launches at once
// otherwise hold the pool's connections across a transaction's four round trips; launches and
// starts arriving together in one statement, each with its own answer.

const gamespace = (id: string, workspaceId: string | null = null): GamespaceTable => ({
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
  workspaceId,
  variant: 0,
  playerCount: 2,
});

const player = (gamespaceId: string, subjectId: string, permission = 0): PlayerTable => ({
  gamespaceId,
  subjectId,
  subjectName: subjectId,
  permission,
});

describe.each(testEngines())('a launch stored on %s', (engine) => {
  let database: TestDatabase;
  let store: Store;
  afterEach(async () => {
    vi.restoreAllMocks();
    await store.close();
    await database.cleanup();
  });

  const open = async () => {
    database = await createTestDatabase(engine);
    store = await openStore({ url: database.url, schema: database.schema });
    return {
      gamespaces: createGamespaceRepository(store.db),
      players: createPlayerRepository(store.db),
    };
  };

  it('stores the gamespace with its players', async () => {
    const { gamespaces, players } = await open();
    await gamespaces.create(gamespace('g1'), [player('g1', 'p1', 1), player('g1', 'p2')]);
    expect(await gamespaces.find('g1')).toEqual(gamespace('g1'));
    expect((await players.of('g1')).map((p) => [p.subjectId, p.permission]).sort()).toEqual([
      ['p1', 1],
      ['p2', 0],
    ]);
    await gamespaces.create(gamespace('g2'), []);
    expect(await gamespaces.find('g2')).toEqual(gamespace('g2'));
  });

  it('stores neither the gamespace nor any player when a player cannot be stored', async () => {
    const { gamespaces, players } = await open();
    // The same player twice breaks the players' key.
    await expect(
      gamespaces.create(gamespace('g1'), [player('g1', 'p1'), player('g1', 'p1')]),
    ).rejects.toThrow();
    expect(await gamespaces.find('g1')).toBeUndefined();
    expect(await players.of('g1')).toEqual([]);
  });

  it('stores launches made together, refusing only the one that cannot be stored', async () => {
    const { gamespaces, players } = await open();
    await gamespaces.create(gamespace('g0'), [player('g0', 'p1', 1)]);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const results = await Promise.allSettled([
      gamespaces.create(gamespace('g1'), [player('g1', 'p1', 1)]),
      // The id of a stored gamespace.
      gamespaces.create(gamespace('g0'), [player('g0', 'p2', 1)]),
      gamespaces.create(gamespace('g2'), [player('g2', 'p2', 1), player('g2', 'p3')]),
    ]);
    // One statement for the three, then each on its own, as the first failed.
    if (engine === 'postgres') expect(sent).toHaveBeenCalledTimes(4);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await players.of('g0')).map((p) => p.subjectId)).toEqual(['p1']);
    expect((await players.of('g2')).map((p) => p.subjectId)).toEqual(['p2', 'p3']);
    expect(await gamespaces.find('g1')).toEqual(gamespace('g1'));
  });

  it('starts a gamespace once: of starts made together the first sets the time', async () => {
    const { gamespaces } = await open();
    for (const id of ['g1', 'g2', 'g3']) await gamespaces.create(gamespace(id), []);
    await gamespaces.markStarted('g3', 5);
    const sent = vi.spyOn(pg.Client.prototype, 'query');
    const [one, again, two, three] = await Promise.all([
      gamespaces.markStarted('g1', 10),
      gamespaces.markStarted('g1', 11),
      gamespaces.markStarted('g2', 12),
      gamespaces.markStarted('g3', 13),
    ]);
    if (engine === 'postgres') expect(sent).toHaveBeenCalledTimes(1);
    expect(one).toEqual({ ...gamespace('g1'), startTime: 10 });
    expect(again).toBeUndefined();
    expect(two).toEqual({ ...gamespace('g2'), startTime: 12 });
    expect(three).toBeUndefined();
    expect((await gamespaces.find('g3'))?.startTime).toBe(5);
  });

  if (engine === 'postgres') {
    it('sends the gamespace and its players in one statement', async () => {
      const { gamespaces } = await open();
      const sent = vi.spyOn(pg.Client.prototype, 'query');
      await gamespaces.create(gamespace('g1'), [player('g1', 'p1', 1), player('g1', 'p2')]);
      expect(sent).toHaveBeenCalledTimes(1);
    });
  }
});
