import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock, type Clock } from '../clock';
import type { ArchiveRepository } from '../store/repositories/archives';
import { DomainError } from './errors';
import { buildArchive, importArchive, readArchive, type ParsedArchive } from './workspaceArchive';

// Export and import of workspaces as a zip (wire reference §1.8; the layout is in
// workspaceArchive.ts): to the data folder, from it, downloaded, or uploaded. Administrators
// only, which the routes hold to.

/** `yyyyMMddHHmmss` in UTC, as the reference names its exports. */
const stamp = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(0, 14);

export function createArchiveService(
  repository: ArchiveRepository,
  options: { dataDir: string; docsDir: string; clock?: Clock },
) {
  const { dataDir, docsDir } = options;
  const clock = options.clock ?? realClock;

  return {
    /** The archive of the given workspaces (`["all"]`: every one); unknown ids are left out. */
    build: (ids: string[]): Promise<Uint8Array> => buildArchive(repository, docsDir, ids),

    /** POST /api/admin/export: the archive, written to the data folder's `_export`. */
    async exportToDataDir(ids: string[]): Promise<void> {
      const zip = await buildArchive(repository, docsDir, ids);
      const folder = join(dataDir, '_export');
      await mkdir(folder, { recursive: true });
      await writeFile(join(folder, `${stamp(new Date(clock.now()))}_export.zip`), zip);
    },

    /**
     * GET /api/admin/import: every `*export.zip` in the data folder, each renamed `.imported`
     * once read. One that is refused stays as it is and is reported as "{file}: {why}" among the
     * results.
     */
    async importFromDataDir(): Promise<string[]> {
      const names = (await readdir(dataDir).catch(() => [] as string[])).filter((n) =>
        n.endsWith('export.zip'),
      );
      const results: string[] = [];
      for (const name of names.sort()) {
        const path = join(dataDir, name);
        let archive: ParsedArchive;
        try {
          archive = readArchive(await readFile(path));
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          results.push(`${name}: ${error.message}`);
          continue;
        }
        results.push(...(await importArchive(repository, docsDir, archive)));
        await rename(path, `${path}.imported`);
      }
      return results;
    },

    /**
     * POST /api/admin/upload: every archive is read and checked before the first is imported;
     * answers the ids of the workspaces added (those already here are skipped).
     */
    async importUploads(files: Uint8Array[]): Promise<string[]> {
      const archives = files.map(readArchive);
      const results: string[] = [];
      for (const archive of archives) {
        results.push(...(await importArchive(repository, docsDir, archive)));
      }
      return results;
    },
  };
}

export type ArchiveService = ReturnType<typeof createArchiveService>;
