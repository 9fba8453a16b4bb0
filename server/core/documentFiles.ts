import { readFile, stat } from 'node:fs/promises';

// Workspace documents as the play page reads them: every player's page load reads its
// workspace's document, so the text is kept in memory and checked against the file's size and
// modification time at most once a second. A save through this process forgets it at once; one
// through another server process is seen within that second.

/** How long a read is trusted without looking at the file again. */
export const DOCUMENT_FRESH_MS = 1_000;
const MAX_DOCUMENTS = 1_000;

interface Entry {
  text: string;
  mtimeMs: number;
  size: number;
  checkedAt: number;
}

const documents = new Map<string, Entry>();

const MISSING = { mtimeMs: -1, size: -1 };

async function version(path: string): Promise<{ mtimeMs: number; size: number }> {
  try {
    const { mtimeMs, size } = await stat(path);
    return { mtimeMs, size };
  } catch {
    return MISSING;
  }
}

/** The file's text, '' when there is none, as read at `now` (the server's time). */
export async function readDocumentFile(path: string, now: number): Promise<string> {
  const entry = documents.get(path);
  if (entry && now - entry.checkedAt < DOCUMENT_FRESH_MS) return entry.text;
  const current = await version(path);
  if (entry && entry.mtimeMs === current.mtimeMs && entry.size === current.size) {
    entry.checkedAt = now;
    return entry.text;
  }
  let text = '';
  if (current !== MISSING) {
    try {
      text = await readFile(path, 'utf8');
    } catch {
      text = '';
    }
  }
  documents.delete(path);
  if (documents.size >= MAX_DOCUMENTS) documents.delete(documents.keys().next().value!);
  documents.set(path, { text, ...current, checkedAt: now });
  return text;
}

/** After this process wrote or removed the file. */
export function forgetDocumentFile(path: string): void {
  documents.delete(path);
}
