import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { realClock } from '../clock';

// Uploads (ISO files, guide images) are written under a hidden `.upload-*` name beside their
// target and renamed once complete; a failed upload removes its own. A process killed mid-upload
// cannot, so on start-up the server removes what such a process left.

export const STAGING_PREFIX = '.upload-';

/**
 * Leftovers older than this are removed. An upload in progress on another server sharing the
 * data folder writes more often than that (a stalled one is dropped after BODY_IDLE_TIMEOUT_MS),
 * so only dead ones are this old.
 */
export const STALE_STAGING_MS = 10 * 60_000;

/** When an entry or, for a folder, anything directly in it last changed. */
async function lastChange(path: string): Promise<number> {
  const info = await stat(path);
  let latest = info.mtimeMs;
  if (info.isDirectory()) {
    for (const entry of await readdir(path)) {
      latest = Math.max(latest, (await stat(join(path, entry))).mtimeMs);
    }
  }
  return latest;
}

/**
 * Removes the stale `.upload-*` entries in the folders of `root` (`{root}/{folder}/.upload-*`);
 * returns how many. A missing root has none.
 */
export async function removeStaleStaging(
  root: string,
  now = realClock.now(),
  staleMs = STALE_STAGING_MS,
): Promise<number> {
  let removed = 0;
  let folders: string[];
  try {
    folders = (await readdir(root, { withFileTypes: true }))
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  for (const folder of folders) {
    const dir = join(root, folder);
    for (const entry of await readdir(dir)) {
      if (!entry.startsWith(STAGING_PREFIX)) continue;
      const path = join(dir, entry);
      try {
        if (now - (await lastChange(path)) < staleMs) continue;
        await rm(path, { recursive: true, force: true });
        removed++;
      } catch (error) {
        // Removed meanwhile (its upload finished or failed): nothing left to do.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
    }
  }
  return removed;
}
