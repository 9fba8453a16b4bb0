import { sql } from 'kysely';
import { createBatcher } from '../batch';
import { onPostgres, type Db } from '../db';
import { preparedRead } from '../prepared';
import type { GamespaceTable, PlayerTable } from '../schema';
import { contains, startsWith } from './search';

// Gamespaces: the rows that launching, playing, grading, the janitor and the lists read and
// write. Their players are the players repository's, except where a unit of work stores or
// removes a gamespace together with its players.

/** What a gamespace list reads (see GamespaceService.list). */
export interface GamespaceQuery {
  /** Only those not ended nor expired at `now`. */
  active: boolean;
  /** Only those ended or expired at `now` (a filter of our own; ignored with `active`). */
  inactive?: boolean;
  now: number;
  /** Only those this subject manages or plays in. */
  memberId?: string;
  /** Already lowercase: in the name, the manager's name, or the start of the id. */
  term?: string;
}

/** Read on every call about a gamespace. */
const byId = preparedRead((db: Db, id: string) =>
  db.selectFrom('gamespaces').selectAll().where('id', '=', id),
);

/**
 * The subject's newest gamespace of the workspace that has not ended nor expired at `now`, as
 * manager or player: read on every launch. Both sides in one statement (a round trip less), each
 * still by index.
 */
const activeFor = preparedRead((db: Db, workspaceId: string, subjectId: string, now: number) => {
  const managed = db
    .selectFrom('gamespaces as g')
    .selectAll('g')
    .where('g.managerId', '=', subjectId)
    .where('g.workspaceId', '=', workspaceId)
    .where('g.endTime', '<=', 0)
    .where('g.expirationTime', '>', now);
  const played = db
    .selectFrom('players as p')
    .innerJoin('gamespaces as g', 'g.id', 'p.gamespaceId')
    .selectAll('g')
    .where('p.subjectId', '=', subjectId)
    .where('g.workspaceId', '=', workspaceId)
    .where('g.endTime', '<=', 0)
    .where('g.expirationTime', '>', now);
  return db
    .selectFrom(managed.unionAll(played).as('a'))
    .selectAll()
    .orderBy('whenCreated', 'desc')
    .limit(1);
});

/** How many gamespaces the manager has started and not ended: read on every launch (its limit). */
const runningManagedBy = preparedRead((db: Db, managerId: string) =>
  db
    .selectFrom('gamespaces')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('managerId', '=', managerId)
    .where('startTime', '>', 0)
    .where('endTime', '<=', 0),
);

interface PendingLaunches {
  count: number;
  lastActivity: number;
  stored: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Workspaces' launch counts. Each launch used to add one to its workspace's row inside its own
 * transaction, so the launches of one lab queued on that row's lock, each until its commit was
 * on disk: on PostgreSQL 5,000 players starting one lab together took a minute, almost all of it
 * waiting there. Now a workspace has at most one update under way; the launches that arrive
 * meanwhile are added together by the next one. The counts are statistics: a launch whose
 * gamespace was stored counts even if its update fails (the launch answers the error).
 */
function createLaunchCounter(db: Db) {
  const running = new Map<string, Promise<void>>();
  const next = new Map<string, PendingLaunches>();

  function flush(workspaceId: string) {
    const batch = next.get(workspaceId);
    if (!batch || running.has(workspaceId)) return;
    next.delete(workspaceId);
    const update = db
      .updateTable('workspaces')
      .set((eb) => ({
        launchCount: eb('launchCount', '+', batch.count),
        lastActivity: batch.lastActivity,
      }))
      .where('id', '=', workspaceId)
      .execute()
      .then(batch.resolve, batch.reject)
      .finally(() => {
        running.delete(workspaceId);
        flush(workspaceId);
      });
    running.set(workspaceId, update);
  }

  return {
    add(workspaceId: string, when: number): Promise<void> {
      let batch = next.get(workspaceId);
      if (!batch) {
        let resolve!: () => void;
        let reject!: (error: unknown) => void;
        const stored = new Promise<void>((res, rej) => {
          resolve = res;
          reject = rej;
        });
        batch = { count: 0, lastActivity: 0, stored, resolve, reject };
        next.set(workspaceId, batch);
      }
      batch.count++;
      batch.lastActivity = Math.max(batch.lastActivity, when);
      const { stored } = batch;
      flush(workspaceId);
      return stored;
    },
  };
}

const launchCounters = new WeakMap<Db, ReturnType<typeof createLaunchCounter>>();
const launchCounter = (db: Db) => {
  let counter = launchCounters.get(db);
  if (!counter) launchCounters.set(db, (counter = createLaunchCounter(db)));
  return counter;
};

/** A launch's gamespace and its players (at least one). */
interface Launch {
  row: GamespaceTable;
  players: readonly PlayerTable[];
}

/**
 * A launch's gamespace and players in one statement on PostgreSQL (a data-modifying WITH): a
 * transaction of two inserts held a connection across four round trips, and thousands of
 * launches queued for the pool.
 */
async function insertLaunch(db: Db, launch: Launch): Promise<void> {
  await db
    .with('g', (q) => q.insertInto('gamespaces').values(launch.row))
    .insertInto('players')
    .values([...launch.players])
    .execute();
}

/**
 * The launches that arrive together, in one statement and one commit (batch.ts); when it fails,
 * each launch is stored on its own and answers its own error.
 */
function createLaunchInserts(db: Db) {
  return createBatcher<Launch, void>(
    async (launches) => {
      await db
        .with('g', (q) => q.insertInto('gamespaces').values(launches.map((l) => l.row)))
        .insertInto('players')
        .values(launches.flatMap((l) => l.players))
        .execute();
      return launches.map(() => ({ value: undefined }));
    },
    (launch) => insertLaunch(db, launch),
  );
}

interface Start {
  id: string;
  startTime: number;
}

/** Sets the start time unless set already: the row when this call set it. */
const startOne = (db: Db, { id, startTime }: Start): Promise<GamespaceTable | undefined> =>
  db
    .updateTable('gamespaces')
    .set({ startTime })
    .where('id', '=', id)
    .where('startTime', '<=', 0)
    .returningAll()
    .executeTakeFirst();

/**
 * The starts that arrive together, in one UPDATE on PostgreSQL. Of two calls for one gamespace
 * the first sets it, as if they had come one after the other.
 */
function createStarts(db: Db) {
  return createBatcher<Start, GamespaceTable | undefined>(
    async (calls) => {
      const first = new Map<string, number>();
      calls.forEach((call, i) => {
        if (!first.has(call.id)) first.set(call.id, i);
      });
      const ids = [...first.keys()];
      const times = ids.map((id) => calls[first.get(id)!]!.startTime);
      const { rows } = await sql<GamespaceTable>`
        update gamespaces as g set start_time = v.start_time
        from unnest(${ids}::text[], ${times}::int8[]) as v(id, start_time)
        where g.id = v.id and g.start_time <= 0
        returning g.*`.execute(db);
      const set = new Map(rows.map((row) => [row.id, row]));
      return calls.map((call, i) => ({
        value: first.get(call.id) === i ? set.get(call.id) : undefined,
      }));
    },
    (call) => startOne(db, call),
  );
}

const batchers = new WeakMap<
  Db,
  { launches: ReturnType<typeof createLaunchInserts>; starts: ReturnType<typeof createStarts> }
>();
/** The batchers of a database on PostgreSQL; none on SQLite, where a statement is a call. */
const batchersOf = (db: Db) => {
  if (!onPostgres(db)) return undefined;
  let found = batchers.get(db);
  if (!found) {
    batchers.set(db, (found = { launches: createLaunchInserts(db), starts: createStarts(db) }));
  }
  return found;
};

export function createGamespaceRepository(db: Db) {
  return {
    async find(id: string): Promise<GamespaceTable | undefined> {
      return (await byId(db, id))[0];
    },

    async exists(id: string): Promise<boolean> {
      const row = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('id', '=', id)
        .executeTakeFirst();
      return !!row;
    },

    /** The id of the gamespace whose grader key has this hash (its agent's credential). */
    async withGraderKey(hash: string): Promise<string | undefined> {
      const row = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('graderKey', '=', hash)
        .executeTakeFirst();
      return row?.id;
    },

    /** The names of the gamespaces among `ids` that exist. */
    async namesOf(ids: readonly string[]): Promise<Array<Pick<GamespaceTable, 'id' | 'name'>>> {
      if (ids.length === 0) return [];
      return db.selectFrom('gamespaces').select(['id', 'name']).where('id', 'in', ids).execute();
    },

    /** The gamespaces of these workspaces, by name. */
    async ofWorkspaces(workspaceIds: readonly string[]): Promise<GamespaceTable[]> {
      if (workspaceIds.length === 0) return [];
      return db
        .selectFrom('gamespaces')
        .selectAll()
        .where('workspaceId', 'in', workspaceIds)
        .orderBy('name')
        .execute();
    },

    /**
     * How many gamespaces of the workspace are not ended and not expired at `now`; one without an
     * expiration yet (0) counts, unlike for isActive.
     */
    async countUnexpiredIn(workspaceId: string, now: number): Promise<number> {
      const { n } = await db
        .selectFrom('gamespaces')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspaceId', '=', workspaceId)
        .where('endTime', '=', 0)
        .where((eb) => eb.or([eb('expirationTime', '=', 0), eb('expirationTime', '>', now)]))
        .executeTakeFirstOrThrow();
      return Number(n);
    },

    /**
     * A gamespace of the workspace, not ended nor expired at `now`, that the subject manages or
     * plays: the newest. Looked up from the subject's side (the gamespaces they manage, their
     * player rows), both by index, so a launch costs the same with one gamespace of the
     * workspace or thousands.
     */
    async activeOf(
      workspaceId: string,
      subjectId: string,
      now: number,
    ): Promise<GamespaceTable | undefined> {
      return (await activeFor(db, workspaceId, subjectId, now))[0];
    },

    /** Gamespaces the subject manages that started and did not end. */
    async countRunningManagedBy(managerId: string): Promise<number> {
      const [row] = await runningManagedBy(db, managerId);
      return Number(row?.n ?? 0);
    },

    /** Started, not ended and not expired at `now` (isActive). */
    async countActive(now: number): Promise<number> {
      const row = await db
        .selectFrom('gamespaces')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('startTime', '>', 0)
        .where('endTime', '<=', 0)
        .where('expirationTime', '>', now)
        .executeTakeFirstOrThrow();
      return Number(row.count);
    },

    /** The gamespaces a query selects, newest first. */
    search(query: GamespaceQuery): Promise<GamespaceTable[]> {
      let q = db.selectFrom('gamespaces as g').selectAll('g');
      if (query.active) {
        q = q.where('g.endTime', '<=', 0).where('g.expirationTime', '>', query.now);
      } else if (query.inactive) {
        q = q.where((eb) =>
          eb.or([eb('g.endTime', '>', 0), eb('g.expirationTime', '<=', query.now)]),
        );
      }
      const { term, memberId } = query;
      if (term) {
        q = q.where((eb) =>
          eb.or([
            contains('g.name', term),
            contains('g.managerName', term),
            startsWith('g.id', term),
          ]),
        );
      }
      if (memberId !== undefined) {
        q = q.where((eb) =>
          eb.or([
            eb('g.managerId', '=', memberId),
            eb.exists(
              eb
                .selectFrom('players as p')
                .select('p.subjectId')
                .whereRef('p.gamespaceId', '=', 'g.id')
                .where('p.subjectId', '=', memberId),
            ),
          ]),
        );
      }
      return q.orderBy('g.whenCreated', 'desc').execute();
    },

    /** The gamespaces the subject is a player of, newest first. */
    playedBy(subjectId: string): Promise<GamespaceTable[]> {
      return db
        .selectFrom('gamespaces as g')
        .selectAll('g')
        .where('g.id', 'in', (eb) =>
          eb.selectFrom('players').select('gamespaceId').where('subjectId', '=', subjectId),
        )
        .orderBy('g.whenCreated', 'desc')
        .orderBy('g.id')
        .execute();
    },

    /**
     * A launch: the gamespace and its players as one unit of work, then its workspace's launch
     * count and last activity, counted together with the other launches of that workspace under
     * way (see launchCounter); resolves once both are stored.
     */
    async create(row: GamespaceTable, players: readonly PlayerTable[]): Promise<void> {
      const batched = batchersOf(db);
      if (players.length === 0) {
        await db.insertInto('gamespaces').values(row).execute();
      } else if (batched) {
        await batched.launches({ row, players });
      } else {
        await db.transaction().execute(async (tx) => {
          await tx.insertInto('gamespaces').values(row).execute();
          await tx
            .insertInto('players')
            .values([...players])
            .execute();
        });
      }
      if (row.workspaceId !== null) {
        await launchCounter(db).add(row.workspaceId, row.whenCreated);
      }
    },

    /**
     * Sets the start time unless the gamespace started already (it is set only once); answers
     * the row when this call set it.
     */
    markStarted(id: string, startTime: number): Promise<GamespaceTable | undefined> {
      const batched = batchersOf(db);
      return batched ? batched.starts({ id, startTime }) : startOne(db, { id, startTime });
    },

    async setExpiration(id: string, expirationTime: number): Promise<void> {
      await db.updateTable('gamespaces').set({ expirationTime }).where('id', '=', id).execute();
    },

    async setEndTime(id: string, endTime: number): Promise<void> {
      await db.updateTable('gamespaces').set({ endTime }).where('id', '=', id).execute();
    },

    /** The gamespace, its players, its event log and its help requests, together. */
    async remove(id: string): Promise<void> {
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom('players').where('gamespaceId', '=', id).execute();
        await tx.deleteFrom('gameEvents').where('gamespaceId', '=', id).execute();
        await tx.deleteFrom('helpRequests').where('gamespaceId', '=', id).execute();
        await tx.deleteFrom('gamespaces').where('id', '=', id).execute();
      });
    },

    /**
     * Reads the row under a lock that holds across server processes, lets `change` compute new
     * values, writes them and commits; undefined when there is no such gamespace. The lock is
     * SELECT ... FOR UPDATE on PostgreSQL; on SQLite a first write takes the database's single
     * write lock before the row is read, so no other process reads the same row meanwhile.
     * Whatever `change` throws rolls the transaction back.
     */
    changeLocked<T>(
      id: string,
      change: (row: GamespaceTable) => { set: Partial<GamespaceTable> | null; result: T },
    ): Promise<{ row: GamespaceTable; result: T } | undefined> {
      return db.transaction().execute(async (trx) => {
        let query = trx.selectFrom('gamespaces').selectAll().where('id', '=', id);
        if (onPostgres(db)) {
          query = query.forUpdate();
        } else {
          await trx
            .updateTable('gamespaces')
            .set({ cleaned: sql<0 | 1>`cleaned` })
            .where('id', '=', id)
            .execute();
        }
        const row = await query.executeTakeFirst();
        if (!row) return undefined;
        const { set, result } = change(row);
        if (!set) return { row, result };
        await trx.updateTable('gamespaces').set(set).where('id', '=', id).execute();
        return { row: { ...row, ...set }, result };
      });
    },

    /**
     * Ends the unended gamespaces past their expiration plus their grace at `now`: their end
     * time becomes their expiration time. Answers their ids.
     */
    async endExpired(now: number): Promise<string[]> {
      const rows = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('endTime', '<=', 0)
        .where('expirationTime', '>', 0)
        .where(sql<boolean>`expiration_time + cleanup_grace_minutes * 60000 < ${now}`)
        .execute();
      const ids = rows.map((r) => r.id);
      if (ids.length > 0) {
        await db
          .updateTable('gamespaces')
          .set((eb) => ({ endTime: eb.ref('expirationTime') }))
          .where('id', 'in', ids)
          .where('endTime', '<=', 0)
          .execute();
      }
      return ids;
    },

    /** Ended gamespaces whose machines have not been deleted yet. */
    async endedUncleaned(): Promise<string[]> {
      const rows = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('endTime', '>', 0)
        .where('cleaned', '=', 0)
        .execute();
      return rows.map((r) => r.id);
    },

    /**
     * Gamespaces whose time ran out (not ended yet: the janitor ends them after the player's
     * grace) and whose machines were not removed yet.
     */
    async expiredUncleaned(now: number): Promise<string[]> {
      const rows = await db
        .selectFrom('gamespaces')
        .select('id')
        .where('endTime', '<=', 0)
        .where('cleaned', '=', 0)
        .where('expirationTime', '>', 0)
        .where('expirationTime', '<=', now)
        .execute();
      return rows.map((r) => r.id);
    },

    /** Claims the cleanup of a gamespace (cleaned 0 -> 1 in one statement): true for one caller. */
    async claimCleanup(id: string): Promise<boolean> {
      const claim = await db
        .updateTable('gamespaces')
        .set({ cleaned: 1 })
        .where('id', '=', id)
        .where('cleaned', '=', 0)
        .executeTakeFirst();
      return Number(claim.numUpdatedRows) === 1;
    },

    /** Gives a claim back, for the next run to try again. */
    async releaseCleanup(id: string): Promise<void> {
      await db.updateTable('gamespaces').set({ cleaned: 0 }).where('id', '=', id).execute();
    },
  };
}

export type GamespaceRepository = ReturnType<typeof createGamespaceRepository>;
