import {
  applyEdits,
  applyEditorChanges,
  applyRemoteUpdate,
  confirmBatch,
  createReplica,
  fromBase64,
  mergeUpdates,
  onLocalUpdates,
  onRemoteEdits,
  reconcile,
  replicaWithText,
  stateOf,
  textOf,
  textOfUpdates,
  toBase64,
  takeBatch,
  type EditorChange,
  type PendingUpdate,
  type Replica,
} from '../coedit';

/**
 * The randomized convergence proof of the co-editing contract, run against a server given as a
 * port: the domain's tests give it an in-memory log (src/domain/coedit.convergence.test.ts), the
 * server's tests its document service over a real store (server/core). Replicas edit at random
 * while a hostile network (random delays, reordering, duplicates) carries their batched updates,
 * the server keeps the log, saves happen, a client that does not co-edit saves whole texts, and
 * late joiners start from the log at random moments. Every replica, every joiner and the saved
 * text must end identical, and no keystroke may be lost.
 */

/** The text of the stored document before anyone edits it. */
export const SEED_TEXT = 'seed';

/** The server's side of the contract, one document; the simulation awaits each call in turn. */
export interface SimulatedServer {
  /** The hub's `Edited`: stores an author's batch, which the simulation relays to the others. */
  edited(update: Uint8Array): Promise<void>;
  /** The merge of the log, as a late joiner loads it. */
  state(): Promise<Uint8Array>;
  /** Our SPA's save: the file is written from the log. Answers the saved text. */
  save(): Promise<string>;
  /**
   * A save of a whole text by a client that does not co-edit (a reference client): answers the
   * update the server relays to the editors, null when the text was the log's already.
   */
  put(text: string): Promise<Uint8Array | null>;
}

/** A server that keeps the log in memory and uses the domain's functions as ours does. */
export function memoryServer(seedText = SEED_TEXT): SimulatedServer {
  const log: Uint8Array[] = [stateOf(replicaWithText(seedText))];
  return {
    edited: async (update) => void log.push(update),
    state: async () => mergeUpdates(log),
    save: async () => textOfUpdates(log),
    async put(text) {
      const update = reconcile(mergeUpdates(log), text);
      if (update) log.push(update);
      return update;
    },
  };
}

export interface SimulationOptions {
  steps?: number;
  authors?: number;
  /** How often a step is a reference client's save of a whole text (0 for none). */
  putRate?: number;
}

/** mulberry32: a small seeded PRNG, so that a failing run can be replayed from its seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A replica as the SPA runs it: the editor's own copy of the text beside the shared text. */
export interface Author {
  replica: Replica;
  /** The editor model's text, changed by the user and by remote edits, as Monaco's would be. */
  editor: string;
  outbox: PendingUpdate[];
  seq: number;
}

export function author(replica: Replica): Author {
  const a: Author = { replica, editor: textOf(replica), outbox: [], seq: 0 };
  onRemoteEdits(replica, (edits) => (a.editor = applyEdits(a.editor, edits)));
  onLocalUpdates(replica, (update) => {
    a.seq += 1;
    a.outbox.push({ seq: a.seq, update: toBase64(update) });
  });
  return a;
}

interface Message {
  to: Author;
  update: Uint8Array;
  deliverAt: number;
}

async function runOnce(seed: number, server: SimulatedServer, options: SimulationOptions) {
  const { steps = 40, authors: authorCount = 3, putRate = 0 } = options;
  const random = prng(seed);
  const int = (n: number) => Math.floor(random() * n);

  // Unique characters: each typed character can be traced to the end.
  let nextChar = 0x4e00;
  const inserted: string[] = [];
  const deleted = new Set<string>();
  const typeChars = () => {
    const s = Array.from({ length: 1 + int(3) }, () => String.fromCharCode(nextChar++)).join('');
    inserted.push(...s);
    return s;
  };

  const join = async (): Promise<Author> => {
    const replica = createReplica();
    applyRemoteUpdate(replica, await server.state());
    return author(replica);
  };
  const authors: Author[] = [];
  for (let i = 0; i < authorCount; i++) authors.push(await join());
  const joiners: Author[] = [];
  const saves: string[] = [];
  let network: Message[] = [];
  let now = 0;

  /** Sends an update from the server to everyone in the group but `from`. */
  const relay = (update: Uint8Array, from: Author | null) => {
    for (const to of [...authors, ...joiners]) {
      if (to === from) continue;
      const copies = random() < 0.1 ? 2 : 1;
      for (let c = 0; c < copies; c++) network.push({ to, update, deliverAt: now + int(20) });
    }
  };

  /** Edited: the server stores the batch, then relays it to everyone else in the group. */
  const flush = async (from: Author) => {
    const batch = takeBatch(from.outbox);
    if (batch === null) return;
    const update = fromBase64(batch.update);
    await server.edited(update);
    relay(update, from);
    from.outbox = confirmBatch(from.outbox, batch.through);
  };

  const edit = (a: Author) => {
    const length = a.editor.length;
    const changes: EditorChange[] = [];
    if (length > 0 && random() < 0.35) {
      const offset = int(length);
      const rangeLength = 1 + int(Math.min(5, length - offset));
      for (const c of a.editor.slice(offset, offset + rangeLength)) deleted.add(c);
      changes.push({ rangeOffset: offset, rangeLength, text: random() < 0.3 ? typeChars() : '' });
    } else {
      changes.push({ rangeOffset: int(length + 1), rangeLength: 0, text: typeChars() });
    }
    // Sometimes a second cursor types in the same event, before the first change's range.
    const first = changes[0] as EditorChange;
    if (first.rangeOffset > 0 && random() < 0.1) {
      changes.push({ rangeOffset: int(first.rangeOffset), rangeLength: 0, text: typeChars() });
      // Monaco lists an event's changes in no particular order.
      if (random() < 0.5) changes.reverse();
    }
    // The editor changes its own text first, then reports the event (as Monaco does).
    a.editor = [...changes]
      .sort((x, y) => y.rangeOffset - x.rangeOffset)
      .reduce(
        (text, ch) =>
          text.slice(0, ch.rangeOffset) + ch.text + text.slice(ch.rangeOffset + ch.rangeLength),
        a.editor,
      );
    applyEditorChanges(a.replica.text, changes);
  };

  /**
   * A reference client loads the log's text, changes one run of it (typing, deleting or
   * replacing) and saves the whole text; the server relays the difference to the editors.
   */
  const put = async () => {
    const text = textOfUpdates([await server.state()]);
    const offset = int(text.length + 1);
    const deleteCount = random() < 0.5 ? int(Math.min(5, text.length - offset) + 1) : 0;
    const typed = deleteCount === 0 || random() < 0.5 ? typeChars() : '';
    for (const c of text.slice(offset, offset + deleteCount)) deleted.add(c);
    const update = await server.put(
      text.slice(0, offset) + typed + text.slice(offset + deleteCount),
    );
    if (update) relay(update, null);
  };

  const deliverDue = () => {
    const due = network.filter((m) => m.deliverAt <= now);
    network = network.filter((m) => m.deliverAt > now);
    // Messages due at the same time arrive in any order.
    due.sort(() => random() - 0.5);
    for (const m of due) applyRemoteUpdate(m.to.replica, m.update);
  };

  for (let step = 0; step < steps; step++) {
    now += 1;
    // Without puts no number is drawn for them, so seeds replay the runs they always did.
    if (putRate > 0 && random() < putRate) await put();
    else edit(authors[int(authorCount)] as Author);
    if (random() < 0.3) await flush(authors[int(authorCount)] as Author);
    deliverDue();
    if (random() < 0.05) saves.push(await server.save());
    if (random() < 0.03) joiners.push(await join());
  }

  for (const a of authors) await flush(a);
  now += 1_000;
  deliverDue();
  saves.push(await server.save());

  return { authors, joiners, saves, inserted, deleted };
}

/** Runs the simulation of `seed`: null when everything converged, else what went wrong. */
export async function simulate(
  seed: number,
  server: SimulatedServer,
  options: SimulationOptions = {},
): Promise<string | null> {
  const { authors, joiners, saves, inserted, deleted } = await runOnce(seed, server, options);
  const expected = textOf((authors[0] as Author).replica);
  for (const [i, a] of [...authors, ...joiners].entries()) {
    if (textOf(a.replica) !== expected) return `replica ${i} differs`;
    if (a.editor !== expected) return `editor ${i} differs from the shared text`;
  }
  if (saves[saves.length - 1] !== expected) return 'the saved text differs';
  const counts = new Map<string, number>();
  for (const c of expected) counts.set(c, (counts.get(c) ?? 0) + 1);
  for (const c of inserted) {
    const present = counts.get(c) ?? 0;
    if (deleted.has(c) ? present !== 0 : present !== 1) {
      return `character U+${c.charCodeAt(0).toString(16)} present ${present} times`;
    }
  }
  return null;
}
