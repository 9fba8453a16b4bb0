import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { EMPTY_TAG } from './types';

// The ISO files machines of a tag may mount (wire reference §4.9): those of the tag's own folder
// and of the public folder (the zero GUID), as paths relative to the ISO folder. Every driver
// lists them the same way.

async function isoFilesIn(root: string, folder: string): Promise<string[]> {
  try {
    const entries = await readdir(join(root, folder), { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && e.name.toLowerCase().endsWith('.iso'))
      .map((e) => `${folder}/${e.name}`);
  } catch (error) {
    if ((error as { code?: string }).code === 'ENOENT') return [];
    throw error;
  }
}

/** ISO files of the tag's folder and the public folder under `isosRoot`, sorted. */
export async function isoFilesOf(isosRoot: string, tag: string): Promise<string[]> {
  // A tag is an id; anything else (a path) must not reach the file system.
  const own = /^[\w-]+$/.test(tag) && tag !== EMPTY_TAG;
  const folders = own ? [tag, EMPTY_TAG] : [EMPTY_TAG];
  const lists = await Promise.all(folders.map((f) => isoFilesIn(isosRoot, f)));
  return lists.flat().sort();
}
