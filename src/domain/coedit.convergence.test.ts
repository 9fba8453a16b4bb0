import { describe, expect, it } from 'vitest';
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
  replicaWithText,
  stateOf,
  takeBatch,
  textOf,
  textOfUpdates,
  type EditorChange,
  type PendingUpdate,
  type Replica,
} from './coedit';

/**
 * The convergence proof of the co-editing contract: replicas edit at random while a hostile
 * network (random delays, reordering, duplicates) carries their batched updates, the server keeps
 * the log, saves happen and late joiners start from the log at random moments. Every replica,
 * every joiner and the saved text must end identical, and no keystroke may be lost.
 */

const RUNS = 3_000;
const STEPS = 40;
const AUTHORS = 3;
const SEED_TEXT = 'seed';

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
interface Author {
  replica: Replica;
  /** The editor model's text, changed by the user and by remote edits, as Monaco's would be. */
  editor: string;
  outbox: PendingUpdate[];
  seq: number;
}

function author(replica: Replica): Author {
  const a: Author = { replica, editor: textOf(replica), outbox: [], seq: 0 };
  onRemoteEdits(replica, (edits) => (a.editor = applyEdits(a.editor, edits)));
  onLocalUpdates(replica, (update) => {
    a.seq += 1;
    a.outbox.push({ seq: a.seq, update: Buffer.from(update).toString('base64') });
  });
  return a;
}

interface Message {
  to: Author;
  update: Uint8Array;
  deliverAt: number;
}

function runOnce(seed: number) {
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

  // The server's log starts with the seed of the stored file.
  const log: Uint8Array[] = [stateOf(replicaWithText(SEED_TEXT))];
  const join = (): Author => {
    const replica = createReplica();
    applyRemoteUpdate(replica, mergeUpdates(log));
    return author(replica);
  };
  const authors: Author[] = Array.from({ length: AUTHORS }, join);
  const joiners: Author[] = [];
  const saves: string[] = [];
  let network: Message[] = [];
  let now = 0;

  /** Edited: the server stores the batch, then relays it to everyone else in the group. */
  const flush = (from: Author) => {
    const batch = takeBatch(from.outbox);
    if (batch === null) return;
    const update = fromBase64(batch.update);
    log.push(update);
    for (const to of [...authors, ...joiners]) {
      if (to === from) continue;
      const copies = random() < 0.1 ? 2 : 1;
      for (let c = 0; c < copies; c++) network.push({ to, update, deliverAt: now + int(20) });
    }
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

  const deliverDue = () => {
    const due = network.filter((m) => m.deliverAt <= now);
    network = network.filter((m) => m.deliverAt > now);
    // Messages due at the same time arrive in any order.
    due.sort(() => random() - 0.5);
    for (const m of due) applyRemoteUpdate(m.to.replica, m.update);
  };

  for (let step = 0; step < STEPS; step++) {
    now += 1;
    const a = authors[int(AUTHORS)] as Author;
    edit(a);
    if (random() < 0.3) flush(authors[int(AUTHORS)] as Author);
    deliverDue();
    if (random() < 0.05) saves.push(textOfUpdates(log));
    if (random() < 0.03) joiners.push(join());
  }

  for (const a of authors) flush(a);
  now += 1_000;
  deliverDue();
  saves.push(textOfUpdates(log));

  return { authors, joiners, saves, inserted, deleted };
}

function check(seed: number): string | null {
  const { authors, joiners, saves, inserted, deleted } = runOnce(seed);
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

describe('co-editing convergence', () => {
  it(`converges without losing a keystroke in ${RUNS} random runs`, () => {
    for (let seed = 1; seed <= RUNS; seed++) {
      const failure = check(seed);
      if (failure !== null) expect.fail(`seed ${seed}: ${failure}`);
    }
    // About 5 s on an idle machine; the margin is for a machine shared with other test runs.
  }, 90_000);

  it('notices a lost update (the check is not vacuous)', () => {
    // Dropping one batch on the way to one replica must break convergence.
    const a = author(replicaWithText('x'));
    const b = author(createReplica());
    applyRemoteUpdate(b.replica, stateOf(a.replica));
    applyEditorChanges(a.replica.text, [{ rangeOffset: 1, rangeLength: 0, text: 'y' }]);
    expect(textOf(b.replica)).not.toBe(textOf(a.replica));
  });
});
