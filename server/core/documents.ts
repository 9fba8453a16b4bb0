import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as Y from 'yjs';
import type { Db } from '../store/db';
import { DomainError, forbidden } from './errors';
import { actorRef, unknownArgument, type EventPayload } from './fields';
import { newId, newToken } from './ids';
import type { Actor } from './users';
import { forgetDocumentFile } from './documentFiles';

// Workspace documents (wire reference §1.6, §3 DocumentEvent): the markdown file that players and
// the workspace list read, and the co-editing log that editors converge on.
//
// Co-editing is a CRDT (Yjs) rather than the reference's relayed change records, which are not
// merged and do not converge. Each document is one Y.Doc whose text is `getText('markdown')`;
// every change is a Yjs update, and the document is the merge of its updates in any order, with
// duplicates harmless. The server keeps those updates in `document_updates` (the log), seeds the
// log from the markdown file the first time, and writes the file from the log on save.

/** The largest document, in characters (UTF-16 code units, as JavaScript counts them). */
export const MAX_DOCUMENT_CHARS = 1_000_000;
/** A document's log is merged into one row once it holds more rows than this. */
export const COMPACT_AFTER_ROWS = 500;
/** The Y.Text of a document's Y.Doc. */
export const TEXT_NAME = 'markdown';
/** The request header by which our SPA says that its edits are in the log already. */
export const CRDT_HEADER = 'x-document-crdt';

/** The payload of hub `Edited` that our SPA sends, and of the DOCUMENT.UPDATED it relays. */
export interface YjsChanges {
  crdt: 'yjs';
  /** A Yjs update (format v1), base64. */
  update: string;
}

export function isYjsChanges(value: unknown): value is YjsChanges {
  if (!value || typeof value !== 'object') return false;
  const { crdt, update } = value as { crdt?: unknown; update?: unknown };
  return crdt === 'yjs' && typeof update === 'string';
}

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
}

/** One edit that turns `from` into `to`: delete `remove` characters at `index`, insert `insert`. */
export interface TextEdit {
  index: number;
  remove: number;
  insert: string;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * The smallest single edit from `from` to `to` by common prefix and suffix, or null when they
 * are equal. The edit never splits a surrogate pair: Yjs would replace a split half with U+FFFD.
 */
export function textEdit(from: string, to: string): TextEdit | null {
  if (from === to) return null;
  const shorter = Math.min(from.length, to.length);
  let prefix = 0;
  while (prefix < shorter && from.charCodeAt(prefix) === to.charCodeAt(prefix)) prefix++;
  if (prefix > 0 && isHighSurrogate(from.charCodeAt(prefix - 1))) prefix--;
  let suffix = 0;
  while (
    suffix < shorter - prefix &&
    from.charCodeAt(from.length - 1 - suffix) === to.charCodeAt(to.length - 1 - suffix)
  ) {
    suffix++;
  }
  if (suffix > 0 && isLowSurrogate(from.charCodeAt(from.length - suffix))) suffix--;
  return {
    index: prefix,
    remove: from.length - prefix - suffix,
    insert: to.slice(prefix, to.length - suffix),
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of a base64 Yjs update; a 400 InvalidOperation when it is not one. */
export function decodeUpdate(base64: string): Uint8Array {
  const bad = () => new DomainError('InvalidOperation', 'the update is not a base64 Yjs update');
  if (!base64 || base64.length % 4 !== 0 || !BASE64.test(base64)) throw bad();
  const bytes = new Uint8Array(Buffer.from(base64, 'base64'));
  try {
    // Parses every struct: a malformed update would make every later merge of the log fail.
    Y.decodeUpdate(bytes);
  } catch {
    throw bad();
  }
  return bytes;
}

export const encodeUpdate = (update: Uint8Array): string => Buffer.from(update).toString('base64');

/** The text of the document that an update (a merge of the log) describes. */
export function textOfUpdate(update: Uint8Array): string {
  const doc = new Y.Doc();
  try {
    Y.applyUpdate(doc, update);
    return doc.getText(TEXT_NAME).toString();
  } finally {
    doc.destroy();
  }
}

/** The update of a new document holding `text`. */
export function updateOfText(text: string): Uint8Array {
  const doc = new Y.Doc();
  try {
    doc.getText(TEXT_NAME).insert(0, text);
    return Y.encodeStateAsUpdate(doc);
  } finally {
    doc.destroy();
  }
}

/**
 * The update that turns the document `state` (an update) into one whose text is `text`; null
 * when the text is that already.
 */
export function reconcile(state: Uint8Array, text: string): { update: Uint8Array | null } {
  const doc = new Y.Doc();
  try {
    Y.applyUpdate(doc, state);
    const ytext = doc.getText(TEXT_NAME);
    const before = ytext.toString();
    const edit = textEdit(before, text);
    if (!edit) return { update: null };
    let update: Uint8Array | null = null;
    doc.once('update', (u: Uint8Array) => (update = u));
    doc.transact(() => {
      if (edit.remove) ytext.delete(edit.index, edit.remove);
      if (edit.insert) ytext.insert(edit.index, edit.insert);
    });
    return { update };
  } finally {
    doc.destroy();
  }
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

export function createDocumentService(db: Db, options: DocumentServiceOptions) {
  const { docsDir, access, publisher } = options;
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

  async function rowCount(id: string): Promise<number> {
    const { n } = await db
      .selectFrom('documentUpdates')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('workspaceId', '=', id)
      .executeTakeFirstOrThrow();
    return Number(n);
  }

  async function logUpdates(id: string): Promise<Uint8Array[]> {
    const rows = await db
      .selectFrom('documentUpdates')
      .select('update')
      .where('workspaceId', '=', id)
      .execute();
    return rows.map((r) => new Uint8Array(Buffer.from(r.update, 'base64')));
  }

  /**
   * Starts an empty log from the markdown file. The seed has a fixed id, so when two servers
   * race only one seed is stored and both then read the same log.
   */
  async function seed(id: string): Promise<void> {
    const update = updateOfText(await readMarkdown(id));
    await db
      .insertInto('documentUpdates')
      .values({
        id: `seed:${id}`,
        workspaceId: id,
        update: encodeUpdate(update),
        whenCreated: Date.now(),
      })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  /** The merge of the whole log, seeding it first when it is empty. */
  async function merged(id: string): Promise<Uint8Array> {
    let updates = await logUpdates(id);
    if (updates.length === 0) {
      await serially(`seed:${id}`, () => seed(id));
      updates = await logUpdates(id);
    }
    return Y.mergeUpdates(updates);
  }

  /**
   * Replaces the rows merged so far by their merge, in one transaction: rows appended meanwhile
   * are not among the deleted ids, so they stay.
   */
  async function compact(id: string): Promise<void> {
    await db.transaction().execute(async (tx) => {
      const rows = await tx
        .selectFrom('documentUpdates')
        .select(['id', 'update'])
        .where('workspaceId', '=', id)
        .execute();
      if (rows.length <= COMPACT_AFTER_ROWS) return;
      const update = Y.mergeUpdates(
        rows.map((r) => new Uint8Array(Buffer.from(r.update, 'base64'))),
      );
      const ids = rows.map((r) => r.id);
      for (let i = 0; i < ids.length; i += COMPACT_AFTER_ROWS) {
        await tx
          .deleteFrom('documentUpdates')
          .where('id', 'in', ids.slice(i, i + COMPACT_AFTER_ROWS))
          .execute();
      }
      await tx
        .insertInto('documentUpdates')
        .values({
          id: newId(),
          workspaceId: id,
          update: encodeUpdate(update),
          whenCreated: Date.now(),
        })
        .execute();
    });
  }

  /** Appends an update (seeding an empty log first, so the file's text is not lost). */
  async function append(id: string, update: Uint8Array): Promise<void> {
    const before = await rowCount(id);
    if (before === 0) await serially(`seed:${id}`, () => seed(id));
    await db
      .insertInto('documentUpdates')
      .values({
        id: newId(),
        workspaceId: id,
        update: encodeUpdate(update),
        whenCreated: Date.now(),
      })
      .execute();
    if (before + 1 > COMPACT_AFTER_ROWS) await serially(`compact:${id}`, () => compact(id));
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
      return { update: encodeUpdate(await merged(ws)) };
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
          text = checkLength(textOfUpdate(await merged(ws)));
        } else {
          const { update } = reconcile(await merged(ws), sent);
          if (update) {
            await append(ws, update);
            const model: YjsChanges = { crdt: 'yjs', update: encodeUpdate(update) };
            publishDocument(actor, ws, 'DOCUMENT.UPDATED', model);
          }
        }
        await writeMarkdown(ws, text);
        publishDocument(actor, ws, 'DOCUMENT.SAVED', { text, timestamp: Date.now() });
      });
    },

    /**
     * The hub's `Edited` on channel `room`, before it relays the changes: a Yjs update for a
     * workspace document is appended to its log. Other payloads (the reference's change records)
     * and other channels (gamespaces) are only relayed.
     */
    async edited(room: string, changes: unknown, actor: Actor): Promise<void> {
      if (!isYjsChanges(changes) || !isSafeId(room) || !(await access.exists(room))) return;
      if (!(await access.canEdit(actor, room))) throw new DomainError('ActionForbidden');
      await append(room, decodeUpdate(changes.update));
    },

    /** A deleted workspace's document and log go with it. */
    async workspaceDeleted(id: string): Promise<void> {
      if (!isSafeId(id)) return;
      await rm(fileOf(id), { force: true });
      forgetDocumentFile(fileOf(id));
      await db.deleteFrom('documentUpdates').where('workspaceId', '=', id).execute();
    },
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
