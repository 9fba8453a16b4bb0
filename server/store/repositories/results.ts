import type { Db } from '../db';
import type { GamespaceTable, PlayerTable } from '../schema';
import { inStateOrder } from './players';

// Results: every gamespace of a workspace, or of one subject, with its players, as the results
// table and a player's history read them. Two statements whatever the number of gamespaces (the
// gamespaces, then all their players by a join on the same condition), never one per gamespace.
// The grader key is not read: no answer built from these rows may carry it.

/** The columns a result is made of. */
export type ResultRow = Pick<
  GamespaceTable,
  | 'id'
  | 'name'
  | 'managerId'
  | 'managerName'
  | 'whenCreated'
  | 'startTime'
  | 'endTime'
  | 'expirationTime'
  | 'challenge'
  | 'workspaceId'
  | 'variant'
>;

const COLUMNS = [
  'g.id',
  'g.name',
  'g.managerId',
  'g.managerName',
  'g.whenCreated',
  'g.startTime',
  'g.endTime',
  'g.expirationTime',
  'g.challenge',
  'g.workspaceId',
  'g.variant',
] as const;

export interface ResultRows {
  /** Newest first. */
  games: ResultRow[];
  /** Each gamespace's players, in the game state's order. */
  players: Map<string, PlayerTable[]>;
}

function grouped(players: PlayerTable[]): Map<string, PlayerTable[]> {
  const by = new Map<string, PlayerTable[]>();
  for (const p of players.sort(inStateOrder)) {
    const list = by.get(p.gamespaceId);
    if (list) list.push(p);
    else by.set(p.gamespaceId, [p]);
  }
  return by;
}

export function createResultRepository(db: Db) {
  /** The gamespaces the subject manages or plays in, as a condition on `g`. */
  const ofMember = (subjectId: string) =>
    db
      .selectFrom('gamespaces as g')
      .where((eb) =>
        eb.or([
          eb('g.managerId', '=', subjectId),
          eb.exists(
            eb
              .selectFrom('players as m')
              .select('m.subjectId')
              .whereRef('m.gamespaceId', '=', 'g.id')
              .where('m.subjectId', '=', subjectId),
          ),
        ]),
      );

  return {
    /** Every gamespace of the workspace, running and ended. */
    async ofWorkspace(workspaceId: string): Promise<ResultRows> {
      const [games, players] = await Promise.all([
        db
          .selectFrom('gamespaces as g')
          .select(COLUMNS)
          .where('g.workspaceId', '=', workspaceId)
          .orderBy('g.whenCreated', 'desc')
          .orderBy('g.id')
          .execute(),
        db
          .selectFrom('players as p')
          .innerJoin('gamespaces as g', 'g.id', 'p.gamespaceId')
          .selectAll('p')
          .where('g.workspaceId', '=', workspaceId)
          .execute(),
      ]);
      return { games, players: grouped(players) };
    },

    /** Every gamespace the subject manages or plays in, running and ended. */
    async ofSubject(subjectId: string): Promise<ResultRows> {
      const [games, players] = await Promise.all([
        ofMember(subjectId)
          .select(COLUMNS)
          .orderBy('g.whenCreated', 'desc')
          .orderBy('g.id')
          .execute(),
        db
          .selectFrom('players as p')
          .selectAll('p')
          .where('p.gamespaceId', 'in', ofMember(subjectId).select('g.id'))
          .execute(),
      ]);
      return { games, players: grouped(players) };
    },
  };
}

export type ResultRepository = ReturnType<typeof createResultRepository>;
