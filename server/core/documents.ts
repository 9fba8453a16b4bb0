import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  decodeUpdate,
  fromBase64,
  isCrdtChanges,
  mergeUpdates,
  reconcile,
  replicaWithText,
  stateOf,
  textOfUpdates,
  toBase64,
  type CrdtChanges,
} from '../../src/domain/coedit';
import { realClock, type Clock } from '../clock';
import type { DocumentRepository } from '../store/repositories/documents';
import { DomainError, forbidden } from './errors';
import { actorRef, unknownArgument, type EventPayload } from './fields';
import { newId, newToken } from './ids';
import type { Actor } from './actor';
import { forgetDocumentFile } from './documentFiles';

// Workspace documents (wire reference §1.6, §3 DocumentEvent): the markdown file that players and
// the workspace list read, and the co-editing log that editors converge on.
//
// Co-editing is a CRDT (Yjs) rather than the reference's relayed change records, which are not
// merged and do not converge; its rules are the SPA's too (src/domain/coedit.ts). Every change is
// a Yjs update, and the document is the merge of its updates in any order, with duplicates
// harmless. The server keeps those updates in `document_updates` (the log), seeds the log from
// the markdown file the first time, and writes the file from the log on save.

/** The largest document, in characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_DOCUMENT_CHARS = 1_000_000;
/** A document's log is merged into one row once it holds more rows than this. */
export const COMPACT_AFTER_ROWS = 500;
/** The request header by which our SPA says that its edits are in the log already. */
export const CRDT_HEADER = 'x-document-crdt';

/** Who may reach a workspace's document: the workspace service's rules (ws.CanEdit). */
export interface DocumentAccess {
  exists(workspaceId: string): Promise<boolean>;
  canEdit(actor: Actor, workspaceId: string): Promise<boolean>;
}

/** DocumentEvents to a workspace's hub group. */
export interface DocumentPublisher {
  publish(group: string, payload: EventPayload): void;
}

export interface DocumentServiceOptions {
  /** `{dataDir}/docs`: documents are `{workspaceId}.md` in it. */
  docsDir: string;
  access: DocumentAccess;
  publisher: DocumentPublisher;
  /** COMPACT_AFTER_ROWS unless given (tests compact short logs to exercise compaction). */
  compactAfterRows?: number;
  /** The server's time: when updates are logged and saves announced. */
  clock?: Clock;
}

/** The bytes of a base64 Yjs update; a 400 InvalidOperation when it is not one. */
function updateOf(base64: string): Uint8Array {
  const update = decodeUpdate(base64);
  if (!update) throw new DomainError('InvalidOperation', 'the update is not a base64 Yjs update');
  return update;
}

/** Workspace ids name files: anything but letters, digits, '-' and '_' names no document. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;
export const isSafeId = (id: unknown): id is string => typeof id === 'string' && SAFE_ID.test(id);

/** Writes a file by renaming a complete temporary file over it, so no reader sees half of it. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temp = `${path}.${newToken()}.tmp`;
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Runs tasks of the same key one after another (within this process). */
function keyedQueue() {
  const tails = new Map<string, Promise<unknown>>();
  return <T>(key: string, task: () => Promise<T>): Promise<T> => {
    const previous = tails.get(key) ?? Promise.resolve();
    const run = previous.then(task, task);
    const tail = run.catch(() => undefined);
    tails.set(key, tail);
    void tail.then(() => {
      if (tails.get(key) === tail) tails.delete(key);
    });
    return run;
  };
}

function documentText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body !== 'string') {
    throw new DomainError('InvalidOperation', 'the document must be sent as text/plain');
  }
  return body;
}

function checkLength(text: string): string {
  if (text.length > MAX_DOCUMENT_CHARS) {
    throw new DomainError(
      'InvalidOperation',
      `the document has ${text.length} characters; at most ${MAX_DOCUMENT_CHARS} are allowed`,
    );
  }
  return text;
}

export function createDocumentService(log: DocumentRepository, options: DocumentServiceOptions) {
  const { docsDir, access, publisher } = options;
  const compactAfterRows = options.compactAfterRows ?? COMPACT_AFTER_ROWS;
  const clock = options.clock ?? realClock;
  // Seeding, compaction and reconciliation of one document run one at a time in this process;
  // across processes the log's rules (insert-or-ignore seed, merge by ids) keep them safe.
  const serially = keyedQueue();

  const fileOf = (id: string) => join(docsDir, `${id}.md`);

  /** The workspace, or 400 ResourceNotFound; then ws.CanEdit, or 403. */
  async function authorize(actor: Actor, id: unknown): Promise<string> {
    if (!isSafeId(id) || !(await access.exists(id))) throw unknownArgument('id');
    if (!(await access.canEdit(actor, id))) throw forbidden();
    return id;
  }

  async function readMarkdown(id: string): Promise<string> {
    try {
      return await readFile(fileOf(id), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  }

  async function writeMarkdown(id: string, text: string): Promise<void> {
    await mkdir(docsDir, { recursive: true });
    await writeFileAtomic(fileOf(id), text);
    forgetDocumentFile(fileOf(id));
  }

  const logUpdates = async (id: string): Promise<Uint8Array[]> =>
    (await log.updates(id)).map(fromBase64);

  /**
   * Starts an empty log from the markdown file. The seed has a fixed id, so when two servers
   * race only one seed is stored and both then read the same log.
   */
  async function seed(id: string): Promise<void> {
    const update = stateOf(replicaWithText(await readMarkdown(id)));
    await log.appendOnce({
      id: `seed:${id}`,
      workspaceId: id,
      update: toBase64(update),
      whenCreated: clock.now(),
    });
  }

  /** The merge of the whole log, seeding it first when it is empty. */
  async function merged(id: string): Promise<Uint8Array> {
    let updates = await logUpdates(id);
    if (updates.length === 0) {
      await serially(`seed:${id}`, () => seed(id));
      updates = await logUpdates(id);
    }
    return mergeUpdates(updates);
  }

  /** Replaces the rows of a long log by their merge. */
  async function compact(id: string): Promise<void> {
    await log.replaceAll(id, (rows) => {
      if (rows.length <= compactAfterRows) return null;
      const update = mergeUpdates(rows.map((r) => fromBase64(r.update)));
      return { id: newId(), workspaceId: id, update: toBase64(update), whenCreated: clock.now() };
    });
  }

  /** Appends an update (seeding an empty log first, so the file's text is not lost). */
  async function append(id: string, update: Uint8Array): Promise<void> {
    const before = await log.count(id);
    if (before === 0) await serially(`seed:${id}`, () => seed(id));
    await log.append({
      id: newId(),
      workspaceId: id,
      update: toBase64(update),
      whenCreated: clock.now(),
    });
    if (before + 1 > compactAfterRows) await serially(`compact:${id}`, () => compact(id));
  }

  function publishDocument(actor: Actor, id: string, action: string, model: unknown) {
    publisher.publish(id, { action, actor: actorRef(actor), model });
  }

  return {
    /** GET /api/document/{id}: the saved markdown, '' when there is none. */
    async read(actor: Actor, id: unknown): Promise<string> {
      return readMarkdown(await authorize(actor, id));
    },

    /** GET /api/document/{id}/crdt: the merge of the log, as one base64 update. */
    async crdt(actor: Actor, id: unknown): Promise<{ update: string }> {
      const ws = await authorize(actor, id);
      return { update: toBase64(await merged(ws)) };
    },

    /**
     * PUT /api/document/{id}. From our SPA (`fromLog`), whose edits reached the log through the
     * hub before it saves, the file is written from the log and the body is not used. From any
     * other client the body is the truth: its difference from the log's text goes into the log
     * (and to the editors) as one Yjs update, so open editors converge on it. DOCUMENT.SAVED then
     * carries the saved text to the workspace's group.
     */
    async save(actor: Actor, id: unknown, body: unknown, fromLog: boolean): Promise<void> {
      const ws = await authorize(actor, id);
      const sent = checkLength(documentText(body));
      // Saves of one document run in turn, so the file ends with the last one and a reconcile
      // always starts from the log as the previous one left it.
      await serially(`save:${ws}`, async () => {
        let text = sent;
        if (fromLog) {
          text = checkLength(textOfUpdates([await merged(ws)]));
        } else {
          const update = reconcile(await merged(ws), sent);
          if (update) {
            await append(ws, update);
            const model: CrdtChanges = { crdt: 'yjs', update: toBase64(update) };
            publishDocument(actor, ws, 'DOCUMENT.UPDATED', model);
          }
        }
        await writeMarkdown(ws, text);
        publishDocument(actor, ws, 'DOCUMENT.SAVED', { text, timestamp: clock.now() });
      });
    },

    /**
     * The hub's `Edited` on channel `room`, before it relays the changes: a Yjs update for a
     * workspace document is appended to its log. Other payloads (the reference's change records)
     * and other channels (gamespaces) are only relayed.
     */
    async edited(room: string, changes: unknown, actor: Actor): Promise<void> {
      if (!isCrdtChanges(changes) || !isSafeId(room) || !(await access.exists(room))) return;
      if (!(await access.canEdit(actor, room))) throw new DomainError('ActionForbidden');
      await append(room, updateOf(changes.update));
    },

    /** A deleted workspace's document and log go with it. */
    async workspaceDeleted(id: string): Promise<void> {
      if (!isSafeId(id)) return;
      await rm(fileOf(id), { force: true });
      forgetDocumentFile(fileOf(id));
      await log.removeAll(id);
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
