import { onPostgres, type Db } from '../db';
import { preparedRead } from '../prepared';
import type { PooledSetState, PooledSetTable, PoolScheduleTable, PoolTable } from '../schema';

// Warm pools (migration 007): a workspace's pool setting, its pooled machine sets and scheduled
// launches. Every change of a set's state is one conditional UPDATE on the states it may leave
// (the lifecycle is server/core/pools/pooledSet.ts), so that of several server processes
// sharing the database exactly one makes it.

export interface PoolCounts {
  warming: number;
  ready: number;
  claimed: number;
  failed: number;
  drained: number;
}

const NO_COUNTS: PoolCounts = { warming: 0, ready: 0, claimed: 0, failed: 0, drained: 0 };

/** Read at every player's launch (whether its workspace has a pool): compiled once. */
const settingOf = preparedRead((db: Db, workspaceId: string) =>
  db.selectFrom('pools').selectAll().where('workspaceId', '=', workspaceId),
);

export function createPoolRepository(db: Db) {
  const postgres = onPostgres(db);

  return {
    /** The workspace's pool setting, or undefined when none was ever set. */
    setting: async (workspaceId: string): Promise<PoolTable | undefined> =>
      (await settingOf(db, workspaceId))[0],

    /** Every pool setting, by workspace id. */
    settings: (): Promise<PoolTable[]> =>
      db.selectFrom('pools').selectAll().orderBy('workspaceId').execute(),

    /** Sets the pool's size, keeping its miss count. */
    async setSize(workspaceId: string, size: number, now: number): Promise<void> {
      await db
        .insertInto('pools')
        .values({ workspaceId, size, misses: 0, updated: now })
        .onConflict((oc) => oc.column('workspaceId').doUpdateSet({ size, updated: now }))
        .execute();
    },

    /** Forgets the pool of a workspace that is gone, and its scheduled launches. */
    async removeSetting(workspaceId: string): Promise<void> {
      await db.deleteFrom('pools').where('workspaceId', '=', workspaceId).execute();
      await db.deleteFrom('poolSchedules').where('workspaceId', '=', workspaceId).execute();
    },

    /** A launch found no ready set: counted for pools that exist. */
    async countMiss(workspaceId: string): Promise<void> {
      await db
        .updateTable('pools')
        .set((eb) => ({ misses: eb('misses', '+', 1) }))
        .where('workspaceId', '=', workspaceId)
        .execute();
    },

    /** Records a set whose machines are about to be deployed (state warming). */
    async addSet(
      row: Pick<PooledSetTable, 'id' | 'workspaceId' | 'variant' | 'fingerprint' | 'created'>,
    ) {
      await db
        .insertInto('poolSets')
        .values({ ...row, state: 'warming', changed: row.created, claimedAt: 0, claimedBy: '' })
        .execute();
    },

    set: (id: string): Promise<PooledSetTable | undefined> =>
      db.selectFrom('poolSets').selectAll().where('id', '=', id).executeTakeFirst(),

    /** The workspace's sets, oldest first. */
    setsOf: (workspaceId: string): Promise<PooledSetTable[]> =>
      db
        .selectFrom('poolSets')
        .selectAll()
        .where('workspaceId', '=', workspaceId)
        .orderBy('created')
        .orderBy('id')
        .execute(),

    /** Sets in one of the states that last changed before `before` (the janitor's stale sets). */
    changedBefore: (states: PooledSetState[], before: number): Promise<PooledSetTable[]> =>
      db
        .selectFrom('poolSets')
        .selectAll()
        .where('state', 'in', states)
        .where('changed', '<', before)
        .execute(),

    /** Sets per state of a workspace; `claimed` counts only claims since `claimedSince`. */
    async counts(workspaceId: string, claimedSince: number): Promise<PoolCounts> {
      const rows = await db
        .selectFrom('poolSets')
        .select((eb) => ['state', eb.fn.countAll().as('count')])
        .where('workspaceId', '=', workspaceId)
        .where((eb) => eb.or([eb('state', '!=', 'claimed'), eb('claimedAt', '>=', claimedSince)]))
        .groupBy('state')
        .execute();
      const counts = { ...NO_COUNTS };
      for (const row of rows) counts[row.state] = Number(row.count);
      return counts;
    },

    /**
     * Moves a set to `to` when it is in one of `from`: true when this call moved it (another
     * process, or a claim, may have moved it first).
     */
    async move(id: string, from: PooledSetState[], to: PooledSetState, now: number) {
      const moved = await db
        .updateTable('poolSets')
        .set({ state: to, changed: now })
        .where('id', '=', id)
        .where('state', 'in', from)
        .returning('id')
        .executeTakeFirst();
      return moved !== undefined;
    },

    /**
     * Claims the oldest ready set of the workspace, variant and fingerprint (what the
     * gamespace's machines are made from) for a gamespace, in one
     * statement: the set it answers is claimed by this call and no other. On PostgreSQL the
     * candidate is locked with SKIP LOCKED, so that claims arriving together each take another
     * set rather than all waiting on the oldest and all but one finding it gone; SQLite runs one
     * writer at a time, so its subquery and UPDATE see no other claim between them. The outer
     * `state = 'ready'` holds either way.
     */
    async claim(
      workspaceId: string,
      variant: number,
      fingerprint: string,
      gamespaceId: string,
      now: number,
    ): Promise<PooledSetTable | undefined> {
      const oldestReady = db
        .selectFrom('poolSets')
        .select('id')
        .where('workspaceId', '=', workspaceId)
        .where('variant', '=', variant)
        .where('fingerprint', '=', fingerprint)
        .where('state', '=', 'ready')
        .orderBy('created')
        .orderBy('id')
        .limit(1);
      return db
        .updateTable('poolSets')
        .set({ state: 'claimed', changed: now, claimedAt: now, claimedBy: gamespaceId })
        .where('id', '=', postgres ? oldestReady.forUpdate().skipLocked() : oldestReady)
        .where('state', '=', 'ready')
        .returningAll()
        .executeTakeFirst();
    },

    /**
     * Moves the workspace's sets in one of `from` (all, or those of `ids`) to `to` in one
     * statement, and answers them: a drain, which a set claimed meanwhile is not part of.
     */
    async drain(
      workspaceId: string,
      move: { from: PooledSetState[]; to: PooledSetState },
      now: number,
      ids?: string[],
    ): Promise<PooledSetTable[]> {
      if (ids?.length === 0) return [];
      let query = db
        .updateTable('poolSets')
        .set({ state: move.to, changed: now })
        .where('workspaceId', '=', workspaceId)
        .where('state', 'in', move.from);
      if (ids) query = query.where('id', 'in', ids);
      return query.returningAll().execute();
    },

    /** Forgets a set (its machines are gone, or belong to the gamespace that claimed it). */
    async remove(id: string): Promise<void> {
      await db.deleteFrom('poolSets').where('id', '=', id).execute();
    },

    /** Claimed sets claimed before `before`: kept only for the pool's counts. */
    async removeClaimedBefore(before: number): Promise<number> {
      const removed = await db
        .deleteFrom('poolSets')
        .where('state', '=', 'claimed')
        .where('claimedAt', '<', before)
        .returning('id')
        .execute();
      return removed.length;
    },

    async addSchedule(row: PoolScheduleTable): Promise<void> {
      await db.insertInto('poolSchedules').values(row).execute();
    },

    /** The workspace's scheduled launches whose time is in [from, to], soonest first. */
    schedulesOf: (workspaceId: string, from: number, to: number): Promise<PoolScheduleTable[]> =>
      db
        .selectFrom('poolSchedules')
        .selectAll()
        .where('workspaceId', '=', workspaceId)
        .where('at', '>=', from)
        .where('at', '<=', to)
        .orderBy('at')
        .execute(),

    /** Workspaces with a scheduled launch at or after `from`. */
    async scheduledWorkspaces(from: number): Promise<string[]> {
      const rows = await db
        .selectFrom('poolSchedules')
        .select('workspaceId')
        .distinct()
        .where('at', '>=', from)
        .execute();
      return rows.map((r) => r.workspaceId);
    },

    /** Schedules whose time is before `before`: past, and nothing raises a pool for them. */
    async removeSchedulesBefore(before: number): Promise<void> {
      await db.deleteFrom('poolSchedules').where('at', '<', before).execute();
    },
  };
}

export type PoolRepository = ReturnType<typeof createPoolRepository>;
