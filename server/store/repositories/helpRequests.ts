import type { Db } from '../db';
import type { HelpRequestTable } from '../schema';

// Help requests (migration 011, server/core/helpRequests.ts). Changes are conditional on the
// request still being open, so that of two observers answering at once, or an answer and a
// cancel, one wins and the other is told it came too late.

/** How many closed requests a queue shows beside the open ones, newest closed first. */
export const CLOSED_SHOWN = 50;

type Change = Partial<
  Pick<
    HelpRequestTable,
    | 'status'
    | 'claimedById'
    | 'claimedByName'
    | 'claimedAt'
    | 'answer'
    | 'answeredById'
    | 'answeredByName'
    | 'closedAt'
  >
>;

export function createHelpRequestRepository(db: Db) {
  /** Open ones first, each part oldest first. */
  const queueOrder = (rows: HelpRequestTable[]) =>
    [...rows].sort(
      (a, b) =>
        Number(b.status === 'open') - Number(a.status === 'open') ||
        Number(a.raisedAt) - Number(b.raisedAt) ||
        a.id.localeCompare(b.id),
    );

  const withNumbers = (row: HelpRequestTable): HelpRequestTable => ({
    ...row,
    raisedAt: Number(row.raisedAt),
    claimedAt: Number(row.claimedAt),
    closedAt: Number(row.closedAt),
  });

  return {
    /** Adds an open request; a unique violation when the gamespace has one open already. */
    async insert(row: HelpRequestTable): Promise<void> {
      await db.insertInto('helpRequests').values(row).execute();
    },

    find: async (id: string): Promise<HelpRequestTable | undefined> => {
      const row = await db
        .selectFrom('helpRequests')
        .selectAll()
        .where('id', '=', id)
        .executeTakeFirst();
      return row && withNumbers(row);
    },

    /** The gamespace's open request, if any. */
    openOf: async (gamespaceId: string): Promise<HelpRequestTable | undefined> => {
      const row = await db
        .selectFrom('helpRequests')
        .selectAll()
        .where('gamespaceId', '=', gamespaceId)
        .where('status', '=', 'open')
        .executeTakeFirst();
      return row && withNumbers(row);
    },

    /** The open request of each of these gamespaces that has one (the wall's raised hands). */
    openIn: async (gamespaceIds: readonly string[]): Promise<HelpRequestTable[]> =>
      gamespaceIds.length === 0
        ? []
        : (
            await db
              .selectFrom('helpRequests')
              .selectAll()
              .where('gamespaceId', 'in', [...gamespaceIds])
              .where('status', '=', 'open')
              .execute()
          ).map(withNumbers),

    /** The gamespace's requests, oldest first. */
    ofGamespace: async (gamespaceId: string): Promise<HelpRequestTable[]> =>
      (
        await db
          .selectFrom('helpRequests')
          .selectAll()
          .where('gamespaceId', '=', gamespaceId)
          .orderBy('raisedAt')
          .orderBy('id')
          .execute()
      ).map(withNumbers),

    /**
     * A queue: every open request and the CLOSED_SHOWN last closed ones, of the workspaces named
     * (null: of all); open first, oldest first.
     */
    async queue(workspaceIds: readonly string[] | null): Promise<HelpRequestTable[]> {
      if (workspaceIds !== null && workspaceIds.length === 0) return [];
      let open = db.selectFrom('helpRequests').selectAll().where('status', '=', 'open');
      let closed = db
        .selectFrom('helpRequests')
        .selectAll()
        .where('status', '!=', 'open')
        .orderBy('closedAt', 'desc')
        .limit(CLOSED_SHOWN);
      if (workspaceIds !== null) {
        open = open.where('workspaceId', 'in', workspaceIds);
        closed = closed.where('workspaceId', 'in', workspaceIds);
      }
      const [o, c] = await Promise.all([open.execute(), closed.execute()]);
      return queueOrder([...o, ...c].map(withNumbers));
    },

    /** The workspaces with an open request. */
    openWorkspaces: async (): Promise<string[]> =>
      (
        await db
          .selectFrom('helpRequests')
          .select('workspaceId')
          .distinct()
          .where('status', '=', 'open')
          .execute()
      ).map((row) => row.workspaceId),

    /** The workspaces with a running gamespace (where a hand may be raised), in id order. */
    runningWorkspaces: async (now: number): Promise<string[]> =>
      (
        await db
          .selectFrom('gamespaces')
          .select('workspaceId')
          .distinct()
          .where('startTime', '>', 0)
          .where('endTime', '<=', 0)
          .where('expirationTime', '>', now)
          .where('workspaceId', 'is not', null)
          .orderBy('workspaceId')
          .execute()
      ).flatMap((row) => (row.workspaceId ? [row.workspaceId] : [])),

    /** Applies `change` if the request is still open; whether it did. */
    async changeOpen(id: string, change: Change): Promise<boolean> {
      const result = await db
        .updateTable('helpRequests')
        .set(change)
        .where('id', '=', id)
        .where('status', '=', 'open')
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

export type HelpRequestRepository = ReturnType<typeof createHelpRequestRepository>;
