import { describe, expect, it } from 'vitest';
import {
  applyEdits,
  applyEditorChanges,
  applyRemoteUpdate,
  confirmBatch,
  createReplica,
  decodeUpdate,
  deltaToEdits,
  fromBase64,
  isCrdtChanges,
  mergeUpdates,
  onLocalUpdates,
  onRemoteEdits,
  reconcile,
  replicaWithText,
  stateOf,
  takeBatch,
  textOf,
  textEdit,
  textOfUpdates,
  toBase64,
  type TextEdit,
} from './coedit';

/** Two replicas wired both ways: every local update of one is applied to the other at once. */
function pair(initial = '') {
  const a = replicaWithText(initial);
  const b = createReplica();
  applyRemoteUpdate(b, stateOf(a));
  onLocalUpdates(a, (update) => applyRemoteUpdate(b, update));
  onLocalUpdates(b, (update) => applyRemoteUpdate(a, update));
  return { a, b };
}

describe('applyEditorChanges', () => {
  it('applies a typed character, a deletion and a replacement', () => {
    const { text } = replicaWithText('hello world');
    applyEditorChanges(text, [{ rangeOffset: 5, rangeLength: 0, text: ',' }]);
    expect(text.toString()).toBe('hello, world');
    applyEditorChanges(text, [{ rangeOffset: 0, rangeLength: 7, text: '' }]);
    expect(text.toString()).toBe('world');
    applyEditorChanges(text, [{ rangeOffset: 0, rangeLength: 5, text: 'there' }]);
    expect(text.toString()).toBe('there');
  });

  it('applies the changes of one event relative to the text before it (multi-cursor)', () => {
    const { text } = replicaWithText('a b c');
    // Monaco lists them in any order; each offset refers to 'a b c'.
    applyEditorChanges(text, [
      { rangeOffset: 0, rangeLength: 1, text: 'AA' },
      { rangeOffset: 4, rangeLength: 1, text: 'CCC' },
      { rangeOffset: 2, rangeLength: 1, text: '' },
    ]);
    expect(text.toString()).toBe('AA  CCC');
  });

  it('makes one local update per event', () => {
    const replica = replicaWithText('abc');
    const updates: Uint8Array[] = [];
    onLocalUpdates(replica, (update) => updates.push(update));
    applyEditorChanges(replica.text, [
      { rangeOffset: 0, rangeLength: 0, text: 'x' },
      { rangeOffset: 3, rangeLength: 0, text: 'y' },
    ]);
    expect(updates).toHaveLength(1);
  });
});

describe('deltaToEdits', () => {
  it('turns retains, inserts and deletes into edits relative to the text before', () => {
    expect(deltaToEdits([{ retain: 2 }, { insert: 'xy' }, { retain: 3 }, { delete: 2 }])).toEqual([
      { offset: 2, deleteCount: 0, text: 'xy' },
      { offset: 5, deleteCount: 2, text: '' },
    ]);
  });

  it('joins a deletion and an insertion at one place into a replacement', () => {
    expect(deltaToEdits([{ retain: 1 }, { delete: 3 }, { insert: 'Z' }])).toEqual([
      { offset: 1, deleteCount: 3, text: 'Z' },
    ]);
    expect(deltaToEdits([{ insert: 'Z' }, { delete: 3 }])).toEqual([
      { offset: 0, deleteCount: 3, text: 'Z' },
    ]);
  });

  it('gives the remote replica edits that turn its editor text into the shared text', () => {
    const { a, b } = pair('The quick brown fox');
    let editorB = textOf(b);
    const received: TextEdit[][] = [];
    onRemoteEdits(b, (edits) => {
      received.push(edits);
      editorB = applyEdits(editorB, edits);
    });
    applyEditorChanges(a.text, [
      { rangeOffset: 16, rangeLength: 3, text: 'cat' },
      { rangeOffset: 4, rangeLength: 6, text: '' },
      { rangeOffset: 0, rangeLength: 0, text: '> ' },
    ]);
    expect(textOf(b)).toBe('> The brown cat');
    expect(editorB).toBe('> The brown cat');
    expect(received).toHaveLength(1);
  });

  it('does not report the replica’s own edits as remote', () => {
    const replica = replicaWithText('abc');
    const remote: TextEdit[][] = [];
    onRemoteEdits(replica, (edits) => remote.push(edits));
    applyEditorChanges(replica.text, [{ rangeOffset: 0, rangeLength: 1, text: 'z' }]);
    expect(remote).toEqual([]);
  });
});

describe('updates', () => {
  it('converge when applied in any order, duplicated', () => {
    const a = replicaWithText('base');
    const b = createReplica();
    applyRemoteUpdate(b, stateOf(a));
    const fromA: Uint8Array[] = [];
    const fromB: Uint8Array[] = [];
    onLocalUpdates(a, (u) => fromA.push(u));
    onLocalUpdates(b, (u) => fromB.push(u));
    applyEditorChanges(a.text, [{ rangeOffset: 4, rangeLength: 0, text: '-A' }]);
    applyEditorChanges(a.text, [{ rangeOffset: 0, rangeLength: 1, text: 'B' }]);
    applyEditorChanges(b.text, [{ rangeOffset: 4, rangeLength: 0, text: '+b' }]);
    for (const u of [...fromA].reverse()) applyRemoteUpdate(b, u);
    for (const u of [...fromB, ...fromB]) applyRemoteUpdate(a, u);
    expect(textOf(a)).toBe(textOf(b));
    expect(textOf(a)).toContain('-A');
    expect(textOf(a)).toContain('+b');
  });

  it('merge into one update with the same text', () => {
    const replica = createReplica();
    const updates: Uint8Array[] = [];
    onLocalUpdates(replica, (u) => updates.push(u));
    applyEditorChanges(replica.text, [{ rangeOffset: 0, rangeLength: 0, text: 'one' }]);
    applyEditorChanges(replica.text, [{ rangeOffset: 3, rangeLength: 0, text: ' two' }]);
    expect(textOfUpdates([mergeUpdates(updates)])).toBe('one two');
  });

  it('travel as base64 unchanged', () => {
    const bytes = stateOf(replicaWithText('ünïcödé ✓ '.repeat(5000)));
    expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    expect(textOfUpdates([fromBase64(toBase64(bytes))])).toBe('ünïcödé ✓ '.repeat(5000));
  });

  it('are written in standard base64, padded, whatever their length', () => {
    for (let length = 0; length <= 8; length++) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 97 + 200) & 0xff);
      expect(toBase64(bytes)).toBe(btoa(String.fromCharCode(...bytes)));
      expect(fromBase64(toBase64(bytes))).toEqual(bytes);
    }
  });

  it('tells our changes from reference change records', () => {
    expect(isCrdtChanges({ crdt: 'yjs', update: 'AAA=' })).toBe(true);
    expect(isCrdtChanges({ changes: [], timestamp: 1 })).toBe(false);
    expect(isCrdtChanges(null)).toBe(false);
  });
});

describe('a whole text saved by a client that does not co-edit', () => {
  it('becomes the smallest single edit', () => {
    expect(textEdit('hello world', 'hello brave world')).toEqual({
      offset: 6,
      deleteCount: 0,
      text: 'brave ',
    });
    expect(textEdit('abcdef', 'abef')).toEqual({ offset: 2, deleteCount: 2, text: '' });
    expect(textEdit('same', 'same')).toBeNull();
  });

  it('never splits a surrogate pair', () => {
    // 😀 and 😁 share their first UTF-16 unit.
    expect(textEdit('a 😀 b', 'a 😁 b')).toEqual({ offset: 2, deleteCount: 2, text: '😁' });
  });

  it('is reconciled into an update that editors merge with their own edits', () => {
    const server = replicaWithText('line one\n');
    const editor = createReplica();
    applyRemoteUpdate(editor, stateOf(server));
    applyEditorChanges(editor.text, [{ rangeOffset: 0, rangeLength: 0, text: '# ' }]);
    const update = reconcile(stateOf(server), 'line one\nline two\n');
    expect(update).not.toBeNull();
    applyRemoteUpdate(editor, update as Uint8Array);
    expect(textOf(editor)).toBe('# line one\nline two\n');
    expect(reconcile(stateOf(server), 'line one\n')).toBeNull();
  });
});

describe('updates received from elsewhere', () => {
  it('are decoded when they are base64 Yjs updates', () => {
    const update = stateOf(replicaWithText('text'));
    expect(decodeUpdate(toBase64(update))).toEqual(update);
  });

  it('are refused when they are not base64, or not Yjs updates', () => {
    expect(decodeUpdate('not base64!')).toBeNull();
    expect(decodeUpdate('')).toBeNull();
    expect(decodeUpdate('AAA')).toBeNull();
    expect(decodeUpdate(toBase64(new TextEncoder().encode('junk')))).toBeNull();
  });
});

describe('the outbox', () => {
  const update = (text: string) => {
    const replica = createReplica();
    let last: Uint8Array = new Uint8Array();
    onLocalUpdates(replica, (u) => (last = u));
    applyEditorChanges(replica.text, [{ rangeOffset: 0, rangeLength: 0, text }]);
    return toBase64(last);
  };

  it('sends nothing when empty', () => {
    expect(takeBatch([])).toBeNull();
  });

  it('sends everything as one merged update and forgets only what a batch carried', () => {
    const outbox = [
      { seq: 1, update: update('a') },
      { seq: 2, update: update('b') },
    ];
    const batch = takeBatch(outbox);
    expect(batch?.through).toBe(2);
    const later = [...outbox, { seq: 3, update: update('c') }];
    expect(confirmBatch(later, batch?.through ?? 0)).toEqual([later[2]]);
    const text = textOfUpdates([fromBase64(batch?.update ?? '')]);
    expect(text.split('').sort().join('')).toBe('ab');
  });
});
