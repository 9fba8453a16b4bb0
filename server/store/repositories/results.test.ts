import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createTestDatabase,
  testEngines,
  type TestDatabase,
} from '../../../tests/server/databases';
import { openStore, type Store } from '../db';
import type { GamespaceTable, PlayerTable, WorkspaceTable } from '../schema';
import { createResultRepository } from './results';

// The results' reads: a workspace's gamespaces (500 of them, with two players each) and a
// subject's, in two statements whatever their number, each with its own players and nobody
// else's, and without the grader key.

const GAMES = 500;

const workspace = (id: string): WorkspaceTable => ({
  id,
  name: id,
  description: '',
  tags: '',
  author: '',
  audience: '',
  shareCode: id,
  templateScope: '',
  isPublished: 0,
  templateLimit: 0,
  hostAffinity: 0,
  useUplinkSwitch: 0,
  durationMinutes: 0,
  launchCount: 0,
  lastActivity: 0,
  challenge: '',
  whenCreated: 0,
});

const gamespace = (id: string, workspaceId: string, whenCreated: number): GamespaceTable => ({
  id,
  name: 'Blue Lab',
  managerId: `m-${id}`,
  managerName: 'Manager',
  graderKey: 'secret-hash',
  whenCreated,
  startTime: whenCreated,
  endTime: 0,
  expirationTime: whenCreated + 3_600_000,
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

describe.each(testEngines())('results read on %s', (engine) => {
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
    const db = store.db;
    await db
      .insertInto('workspaces')
      .values([workspace('w1'), workspace('w2')])
      .execute();
    const games = Array.from({ length: GAMES }, (_, i) => gamespace(`g${i}`, 'w1', 1_000 + i));
    const players = games.flatMap((g, i) => [
      player(g.id, `m-${g.id}`, 255),
      player(g.id, i % 2 ? 'alice' : `p-${i}`),
    ]);
    // In chunks: SQLite takes at most so many values in one statement.
    for (let i = 0; i < games.length; i += 100) {
      await db
        .insertInto('gamespaces')
        .values(games.slice(i, i + 100))
        .execute();
    }
    for (let i = 0; i < players.length; i += 200) {
      await db
        .insertInto('players')
        .values(players.slice(i, i + 200))
        .execute();
    }
    await db
      .insertInto('gamespaces')
      .values(gamespace('other', 'w2', 5_000))
      .execute();
    await db
      .insertInto('players')
      .values([player('other', 'm-other', 255), player('other', 'bob')])
      .execute();
    return createResultRepository(db);
  };

  it("reads a workspace's 500 gamespaces and their players in two statements", async () => {
    const results = await open();
    const statements = vi.spyOn(store.db.getExecutor(), 'executeQuery');
    const { games, players } = await results.ofWorkspace('w1');
    expect(statements).toHaveBeenCalledTimes(2);
    expect(games).toHaveLength(GAMES);
    // Newest first, without the grader key.
    expect(games[0]!.id).toBe(`g${GAMES - 1}`);
    expect(games[0]).not.toHaveProperty('graderKey');
    expect(games.some((g) => g.id === 'other')).toBe(false);
    expect(players.size).toBe(GAMES);
    expect(players.get('g3')!.map((p) => p.subjectId)).toEqual(['alice', 'm-g3']);
    expect(players.has('other')).toBe(false);
  });

  it("reads a subject's gamespaces, as player or manager, and only theirs", async () => {
    const results = await open();
    const statements = vi.spyOn(store.db.getExecutor(), 'executeQuery');
    const played = await results.ofSubject('alice');
    expect(statements).toHaveBeenCalledTimes(2);
    expect(played.games).toHaveLength(GAMES / 2);
    expect(played.games.every((g) => Number(g.id.slice(1)) % 2 === 1)).toBe(true);
    // Their teammates come with them; nobody of another gamespace does.
    expect([...played.players.keys()].sort()).toEqual(played.games.map((g) => g.id).sort());
    const managed = await results.ofSubject('m-other');
    expect(managed.games.map((g) => g.id)).toEqual(['other']);
    expect(managed.players.get('other')!.map((p) => p.subjectId)).toEqual(['bob', 'm-other']);
    expect((await results.ofSubject('nobody')).games).toEqual([]);
  });
});
