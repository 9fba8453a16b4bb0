import * as Y from 'yjs';

/**
 * The co-editing core of the workspace document (spec §4 "Document editing"), shared by the SPA
 * and the server. We merge with a CRDT (Yjs) rather than the reference's change records and their
 * 10 s transform log: the reference relays keystrokes without merging them, so two authors typing
 * at once can end with different texts. Yjs updates are commutative, associative and idempotent,
 * so any delivery order, any duplicate and any late joiner converge on the same text.
 *
 * Nothing here knows the editor or the network: the editor's changes come in as offsets, the
 * text's changes go out as offsets, and updates travel as base64 strings.
 */

/** The name of the document's text inside its Y.Doc (the co-editing contract). */
export const DOCUMENT_TEXT = 'markdown';

/** The transaction origin of the user's own edits; anything else came from elsewhere. */
export const LOCAL_ORIGIN = 'local';
/** The transaction origin of updates received from the hub or the server. */
export const REMOTE_ORIGIN = 'remote';

/**
 * One change of a Monaco content-change event: `rangeLength` characters at `rangeOffset` were
 * replaced by `text`. All the changes of one event are relative to the text before the event.
 */
export interface EditorChange {
  rangeOffset: number;
  rangeLength: number;
  text: string;
}

/**
 * One edit for the editor's model: `deleteCount` characters at `offset` become `text`. The edits
 * of one list are relative to the text before any of them, ascending and non-overlapping, as
 * Monaco's `applyEdits` takes them.
 */
export interface TextEdit {
  offset: number;
  deleteCount: number;
  text: string;
}

/** A document's replica: its Y.Doc and the shared text in it. */
export interface Replica {
  doc: Y.Doc;
  text: Y.Text;
}

/** The payload of a hub `Edited` call and of DOCUMENT.UPDATED in the co-editing contract. */
export interface CrdtChanges {
  crdt: 'yjs';
  /** A Yjs update (format v1), base64. */
  update: string;
}

export function createReplica(): Replica {
  // A fixed guid: it only names sub-documents, which we have none of, and the random one costs
  // about thirty calls to the system's random source per document.
  const doc = new Y.Doc({ guid: DOCUMENT_TEXT });
  return { doc, text: doc.getText(DOCUMENT_TEXT) };
}

export const textOf = (replica: Replica): string => replica.text.toString();

/**
 * Applies one editor content-change event to the shared text as one local transaction. The
 * changes are applied from the last offset to the first, so that each one's offsets still refer
 * to the text before the event.
 */
export function applyEditorChanges(
  text: Y.Text,
  changes: readonly EditorChange[],
  origin: unknown = LOCAL_ORIGIN,
): void {
  const ordered = [...changes].sort((a, b) => b.rangeOffset - a.rangeOffset);
  const apply = () => {
    for (const { rangeOffset, rangeLength, text: inserted } of ordered) {
      if (rangeLength > 0) text.delete(rangeOffset, rangeLength);
      if (inserted !== '') text.insert(rangeOffset, inserted);
    }
  };
  if (text.doc) text.doc.transact(apply, origin);
  else apply();
}

/** A Y.Text event's delta: retained, inserted and deleted runs, in text order. */
export type TextDelta = ReadonlyArray<{
  retain?: number;
  insert?: unknown;
  delete?: number;
}>;

/**
 * A Y.Text event's delta as editor edits relative to the text before the event. A deletion and
 * an insertion that meet at one place become one replacement.
 */
export function deltaToEdits(delta: TextDelta): TextEdit[] {
  const edits: TextEdit[] = [];
  // The position in the text before the event: retained and deleted runs move it, inserts do not.
  let position = 0;
  const add = (deleteCount: number, text: string) => {
    const last = edits[edits.length - 1];
    if (last && last.offset + last.deleteCount === position) {
      last.deleteCount += deleteCount;
      last.text += text;
    } else {
      edits.push({ offset: position, deleteCount, text });
    }
  };
  for (const op of delta) {
    if (op.retain !== undefined) {
      position += op.retain;
    } else if (op.delete !== undefined) {
      add(op.delete, '');
      position += op.delete;
    } else if (typeof op.insert === 'string') {
      add(0, op.insert);
    }
  }
  return edits;
}

/** Applies edits (relative to `text`, as `deltaToEdits` makes them) to a plain string. */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  let result = text;
  for (const { offset, deleteCount, text: inserted } of [...edits].sort(
    (a, b) => b.offset - a.offset,
  )) {
    result = result.slice(0, offset) + inserted + result.slice(offset + deleteCount);
  }
  return result;
}

/**
 * Calls `listener` with the editor edits of every change of the text that did not come from the
 * user's own edits (remote updates, a loaded or resynced state). Returns the unsubscribe.
 */
export function onRemoteEdits(replica: Replica, listener: (edits: TextEdit[]) => void): () => void {
  const observer = (event: Y.YTextEvent, transaction: Y.Transaction) => {
    if (transaction.origin === LOCAL_ORIGIN) return;
    const edits = deltaToEdits(event.delta as TextDelta);
    if (edits.length > 0) listener(edits);
  };
  replica.text.observe(observer);
  return () => replica.text.unobserve(observer);
}

/** Calls `listener` with the update of every local transaction. Returns the unsubscribe. */
export function onLocalUpdates(
  replica: Replica,
  listener: (update: Uint8Array) => void,
): () => void {
  const { doc } = replica;
  const handler = (update: Uint8Array, origin: unknown) => {
    if (origin === LOCAL_ORIGIN) listener(update);
  };
  // Yjs encodes a transaction's update only when someone listens for updates, just after
  // `afterTransactionCleanup`: listening from a local transaction to the next one that is not
  // spares encoding every remote update only to drop it.
  let listening = false;
  const follow = (transaction: Y.Transaction) => {
    const local = transaction.origin === LOCAL_ORIGIN;
    if (local === listening) return;
    listening = local;
    if (local) doc.on('update', handler);
    else doc.off('update', handler);
  };
  doc.on('afterTransactionCleanup', follow);
  return () => {
    doc.off('afterTransactionCleanup', follow);
    if (listening) doc.off('update', handler);
    listening = false;
  };
}

/** Merges a received update into the replica (idempotent: a duplicate changes nothing). */
export function applyRemoteUpdate(replica: Replica, update: Uint8Array): void {
  Y.applyUpdate(replica.doc, update, REMOTE_ORIGIN);
}

/** The replica's whole state as one update, for a late joiner or the server's log. */
export const stateOf = (replica: Replica): Uint8Array => Y.encodeStateAsUpdate(replica.doc);

/** Several updates as one (the order does not matter). */
export const mergeUpdates = (updates: readonly Uint8Array[]): Uint8Array =>
  Y.mergeUpdates([...updates]);

/** The text a list of updates describes, as the server writes it to the document file. */
export function textOfUpdates(updates: readonly Uint8Array[]): string {
  const replica = createReplica();
  for (const update of updates) Y.applyUpdate(replica.doc, update);
  return textOf(replica);
}

/** A replica holding `text`, as the server seeds an empty log from the stored markdown file. */
export function replicaWithText(text: string): Replica {
  const replica = createReplica();
  if (text !== '') replica.text.insert(0, text);
  return replica;
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
    offset: prefix,
    deleteCount: from.length - prefix - suffix,
    text: to.slice(prefix, to.length - suffix),
  };
}

/**
 * The update that turns the document `state` (an update) into one whose text is `text`, or null
 * when its text is that already: how the server takes in a whole text saved by a client that
 * does not co-edit (a reference client's PUT), so that open editors converge on it.
 */
export function reconcile(state: Uint8Array, text: string): Uint8Array | null {
  const replica = createReplica();
  try {
    applyRemoteUpdate(replica, state);
    const edit = textEdit(textOf(replica), text);
    if (!edit) return null;
    let update: Uint8Array | null = null;
    const stop = onLocalUpdates(replica, (u) => (update = u));
    applyEditorChanges(replica.text, [
      { rangeOffset: edit.offset, rangeLength: edit.deleteCount, text: edit.text },
    ]);
    stop();
    return update;
  } finally {
    replica.doc.destroy();
  }
}

// Base64 in browsers and Node alike. Encoding goes through a table rather than btoa: btoa takes a
// string of one character per byte, and building that string costs a hundred times more than the
// encoding (half a second for the log of a large document, which the server encodes on every
// load). Decoding through atob is fast enough.
const BASE64_CODES = new TextEncoder().encode(
  'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
);
const PAD = 0x3d;
const ascii = new TextDecoder();

export function toBase64(bytes: Uint8Array): string {
  const code = (sextet: number) => BASE64_CODES[sextet & 63] as number;
  const out = new Uint8Array(Math.ceil(bytes.length / 3) * 4);
  let o = 0;
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n =
      ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number);
    out[o++] = code(n >>> 18);
    out[o++] = code(n >>> 12);
    out[o++] = code(n >>> 6);
    out[o++] = code(n);
  }
  if (i < bytes.length) {
    const two = i + 1 < bytes.length;
    const n = ((bytes[i] as number) << 16) | (two ? (bytes[i + 1] as number) << 8 : 0);
    out[o++] = code(n >>> 18);
    out[o++] = code(n >>> 12);
    out[o++] = two ? code(n >>> 6) : PAD;
    out[o++] = PAD;
  }
  return ascii.decode(out);
}

export function fromBase64(base64: string): Uint8Array {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * The bytes of a base64 Yjs update received from elsewhere, or null when it is not one. Every
 * struct is parsed: a malformed update stored in the server's log would make every later merge of
 * the log fail.
 */
export function decodeUpdate(base64: string): Uint8Array | null {
  if (!base64 || base64.length % 4 !== 0 || !BASE64.test(base64)) return null;
  const bytes = fromBase64(base64);
  try {
    Y.decodeUpdate(bytes);
  } catch {
    return null;
  }
  return bytes;
}

/** Whether a DOCUMENT.UPDATED model is ours (a Yjs update); reference change records are not. */
export const isCrdtChanges = (model: unknown): model is CrdtChanges =>
  typeof model === 'object' &&
  model !== null &&
  (model as Record<string, unknown>).crdt === 'yjs' &&
  typeof (model as Record<string, unknown>).update === 'string';

// ---------------------------------------------------------------------------------------------
// The outbox of local updates: each gets a sequence number; a batch sends everything so far as
// one merged update, and its confirmation removes what it carried. Numbers rather than counts,
// because a save's flush and a batch may be in flight at once and confirm in any order.

export interface PendingUpdate {
  seq: number;
  /** base64 */
  update: string;
}

export interface Batch {
  /** The highest sequence number the batch carries. */
  through: number;
  /** The merged update, base64. */
  update: string;
}

/** Everything in the outbox as one update; null when there is nothing to send. */
export function takeBatch(outbox: readonly PendingUpdate[]): Batch | null {
  const last = outbox[outbox.length - 1];
  if (last === undefined) return null;
  const update =
    outbox.length === 1
      ? last.update
      : toBase64(mergeUpdates(outbox.map((pending) => fromBase64(pending.update))));
  return { through: last.seq, update };
}

/** The outbox without what a confirmed batch carried. */
export const confirmBatch = (outbox: readonly PendingUpdate[], through: number): PendingUpdate[] =>
  outbox.filter((pending) => pending.seq > through);
