import type { Db } from '../db';
import type { ConsoleRecordingTable } from '../schema';

// Console recordings (migration 009): a row per recorded console session. The stream itself is
// a file under the data folder of the server that bridged the console (server/console/recordings.ts).

export function createRecordingRepository(db: Db) {
  return {
    async insert(row: ConsoleRecordingTable): Promise<void> {
      await db.insertInto('consoleRecordings').values(row).execute();
    },

    /** Ends a recording: its end, length and whether the cap cut it. */
    async finish(
      id: string,
      values: Pick<ConsoleRecordingTable, 'endedAt' | 'durationMs' | 'bytes' | 'truncated'>,
    ): Promise<void> {
      await db.updateTable('consoleRecordings').set(values).where('id', '=', id).execute();
    },

    find: (id: string): Promise<ConsoleRecordingTable | undefined> =>
      db.selectFrom('consoleRecordings').selectAll().where('id', '=', id).executeTakeFirst(),

    /** A gamespace's recordings, oldest first. */
    ofGamespace: (gamespaceId: string): Promise<ConsoleRecordingTable[]> =>
      db
        .selectFrom('consoleRecordings')
        .selectAll()
        .where('gamespaceId', '=', gamespaceId)
        .orderBy('startedAt')
        .orderBy('id')
        .execute(),

    /** Recordings still open (endedAt 0): after a stop, those no session is writing any more. */
    open: (): Promise<ConsoleRecordingTable[]> =>
      db.selectFrom('consoleRecordings').selectAll().where('endedAt', '=', 0).execute(),

    /** Recordings begun before `time`. */
    startedBefore: (time: number): Promise<ConsoleRecordingTable[]> =>
      db.selectFrom('consoleRecordings').selectAll().where('startedAt', '<', time).execute(),

    /** Every recording's file, for the sweep of files without a row. */
    files: async (): Promise<Set<string>> =>
      new Set(
        (await db.selectFrom('consoleRecordings').select('file').execute()).map((r) => r.file),
      ),

    async remove(ids: readonly string[]): Promise<void> {
      if (ids.length === 0) return;
      await db.deleteFrom('consoleRecordings').where('id', 'in', ids).execute();
    },
  };
}

export type RecordingRepository = ReturnType<typeof createRecordingRepository>;
