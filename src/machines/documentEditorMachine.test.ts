import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  createActor,
  createMachine,
  fromEventObservable,
  fromPromise,
  SimulatedClock,
} from 'xstate';
import {
  applyEdits,
  applyEditorChanges,
  applyRemoteUpdate,
  createReplica,
  fromBase64,
  mergeUpdates,
  onLocalUpdates,
  replicaWithText,
  stateOf,
  textOfUpdates,
  toBase64,
  type TextEdit,
} from '../domain/coedit';
import {
  CURSOR_THROTTLE_MS,
  documentCursorsMachine,
  type CursorPositions,
} from './documentCursorsMachine';
import {
  documentEditorMachine,
  EDIT_IDLE_MS,
  LOADING_MESSAGE,
  type DocumentEditorSnapshot,
  type DocumentSourceEvent,
} from './documentEditorMachine';
import {
  selectAreImagesShown,
  selectCanRequestSave,
  selectImageManager,
  selectIsDocumentLoading,
  selectDocumentCursors,
  selectDocumentOutbox,
  selectDocumentText,
  selectIsReadOnly,
  selectIsSaved,
  selectIsUnsaved,
  selectReadOnlyMessage,
  selectRemoteCursors,
} from './documentEditorMachine.selectors';
import { documentLogMachine } from './documentLogMachine';
import { imageManagerMachine } from './imageManagerMachine';
import {
  AUTOSAVE_IDLE_MS,
  documentOutboxMachine,
  EDIT_BATCH_MS,
  SAVE_RETRY_MS,
  SAVED_INDICATOR_MS,
} from './documentOutboxMachine';
import type { DocumentFile } from '../domain/documentFiles';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

/** A server: the update log, the stored file, and what each call did. */
function startDocument({ initial = 'Hello' }: { initial?: string } = {}) {
  const clock = new SimulatedClock();
  const hub = new Subject<DocumentSourceEvent>();
  const log: string[] = [toBase64(stateOf(replicaWithText(initial)))];
  const calls: string[] = [];
  const saves: Array<{ text: string; stored: string }> = [];
  const cursors: CursorPositions[] = [];
  let file = initial;
  /** While set, loads wait for the test to settle them. */
  let pendingLoad: Deferred<{ update: string }> | null = null;
  let holdLoads = false;
  let failSaves = 0;
  let failEdits = false;

  const actor = createActor(
    documentEditorMachine.provide({
      actors: {
        documentEvents: fromEventObservable(() => hub),
        log: documentLogMachine.provide({
          actors: {
            loadCrdt: fromPromise(async () => {
              calls.push('loadCrdt');
              if (holdLoads) {
                pendingLoad = deferred();
                return pendingLoad.promise;
              }
              return { update: toBase64(fromBase64ToMerged(log)) };
            }),
          },
        }),
        outbox: documentOutboxMachine.provide({
          actors: {
            sendEdits: fromPromise(async ({ input }) => {
              calls.push('Edited');
              if (failEdits) {
                throw new Error('Cannot send data if the connection is not connected');
              }
              log.push(input.update);
            }),
            saveDocument: fromPromise(async ({ input }) => {
              calls.push('save');
              if (failSaves > 0) {
                failSaves -= 1;
                throw { status: 0, message: 'Failed to fetch' };
              }
              if (input.update) log.push(input.update);
              // The server writes the log's text, whatever the body says.
              file = textOfUpdates(log.map(fromBase64));
              saves.push({ text: input.text, stored: file });
            }),
          },
        }),
        cursors: documentCursorsMachine.provide({
          actions: { broadcastCursor: (_, { cursor }) => void cursors.push(cursor) },
        }),
        images: imageManagerMachine.provide({
          actors: {
            listImages: fromPromise(async () => [IMAGE]),
            uploadImage: fromPromise<DocumentFile, { workspaceId: string; file: File }>(
              () => new Promise(() => undefined),
            ),
            deleteImage: fromPromise(() => new Promise(() => undefined)),
          },
        }),
      },
    }),
    { clock, input: { workspaceId: 'ws-1' } },
  );
  // The editor model, as the view keeps it: remote edits are applied to it.
  let editor = '';
  actor.on('document.remotelyEdited', ({ edits }: { edits: TextEdit[] }) => {
    editor = applyEdits(editor, edits);
  });
  // What the image manager asked the editor model to insert at the cursor.
  const inserted: string[] = [];
  actor.on('image.inserted', ({ markdown }) => void inserted.push(markdown));
  actor.start();

  const snapshot = () => actor.getSnapshot();
  // The save indicator and the pending updates are the outbox's, a child of the editor.
  const outbox = () => {
    const ref = selectDocumentOutbox(snapshot());
    if (!ref) throw new Error('no outbox');
    return ref.getSnapshot();
  };
  const remoteCursors = () => {
    const ref = selectDocumentCursors(snapshot());
    if (!ref) throw new Error('no cursors');
    return selectRemoteCursors(ref.getSnapshot());
  };
  return {
    actor,
    clock,
    outbox,
    remoteCursors,
    inserted,
    calls,
    saves,
    cursors,
    log,
    file: () => file,
    editor: () => editor,
    snapshot,
    receive: (event: DocumentSourceEvent) => hub.next(event),
    holdLoads: () => {
      holdLoads = true;
    },
    finishLoad: async () => {
      holdLoads = false;
      pendingLoad?.resolve({ update: toBase64(fromBase64ToMerged(log)) });
      await flush();
    },
    failNextSaves: (n: number) => {
      failSaves = n;
    },
    failEdits: (fail: boolean) => {
      failEdits = fail;
    },
    /** Opens the tab, lets the document load and mounts the editor. */
    open: async () => {
      actor.send({ type: 'editor.opened' });
      await flush();
      actor.send({ type: 'editor.ready' });
    },
    /** The user types `text` at `offset` (the editor changes first, as Monaco does). */
    type: (offset: number, text: string, at = 1_000) => {
      editor = editor.slice(0, offset) + text + editor.slice(offset);
      actor.send({
        type: 'editor.changed',
        changes: [{ rangeOffset: offset, rangeLength: 0, text }],
        at,
      });
    },
    /** Time passes, and the promise actors deliver. */
    wait: async (ms: number) => {
      clock.increment(ms);
      await flush();
    },
  };
}

/** The one file of the workspace's document folder. */
const IMAGE: DocumentFile = { filename: 'net.png', url: '/docs/ws-1/net.png' };

/** The server's merged log (GET document/{id}/crdt). */
const fromBase64ToMerged = (log: string[]) => mergeUpdates(log.map(fromBase64));

/** Another author's edit on top of the server's log: `text` inserted at `offset`. */
function remoteEdit(log: string[], offset: number, text: string): string {
  const replica = createReplica();
  applyRemoteUpdate(replica, fromBase64ToMerged(log));
  let update: Uint8Array = new Uint8Array();
  onLocalUpdates(replica, (u) => (update = u));
  applyEditorChanges(replica.text, [{ rangeOffset: offset, rangeLength: 0, text }]);
  return toBase64(update);
}

describe('documentEditorMachine: loading', () => {
  it('loads nothing until the tab opens, then loads at once, while the editor loads', async () => {
    const d = startDocument();
    await d.wait(10_000);
    expect(d.calls).toEqual([]);
    d.actor.send({ type: 'editor.opened' });
    await flush();
    expect(d.calls).toEqual(['loadCrdt']);
    expect(selectDocumentText(d.snapshot())).toBe('Hello');
    expect(d.editor()).toBe('Hello');
  });

  it('is read-only with the loading message until the log is merged, and writable at once', async () => {
    const d = startDocument();
    d.holdLoads();
    d.actor.send({ type: 'editor.opened' });
    d.actor.send({ type: 'editor.ready' });
    expect(selectIsReadOnly(d.snapshot())).toBe(true);
    expect(selectReadOnlyMessage(d.snapshot())).toBe(LOADING_MESSAGE);
    await d.wait(60_000);
    expect(selectIsReadOnly(d.snapshot())).toBe(true);
    await d.finishLoad();
    expect(selectIsReadOnly(d.snapshot())).toBe(false);
    expect(selectReadOnlyMessage(d.snapshot())).toBeNull();
    expect(!selectIsReadOnly(d.snapshot()) && selectCanRequestSave(d.outbox())).toBe(true);
  });

  it('is loading until both the log is merged and the editor is mounted, in either order', async () => {
    const logFirst = startDocument();
    logFirst.actor.send({ type: 'editor.opened' });
    await flush();
    expect(selectIsReadOnly(logFirst.snapshot())).toBe(false);
    expect(selectIsDocumentLoading(logFirst.snapshot())).toBe(true);
    logFirst.actor.send({ type: 'editor.ready' });
    expect(selectIsDocumentLoading(logFirst.snapshot())).toBe(false);

    const editorFirst = startDocument();
    editorFirst.holdLoads();
    editorFirst.actor.send({ type: 'editor.opened' });
    editorFirst.actor.send({ type: 'editor.ready' });
    expect(selectIsDocumentLoading(editorFirst.snapshot())).toBe(true);
    await editorFirst.finishLoad();
    expect(selectIsDocumentLoading(editorFirst.snapshot())).toBe(false);
    expect(editorFirst.editor()).toBe('Hello');
  });

  it('takes a mounted editor as an opened tab when it says so first', async () => {
    const d = startDocument();
    d.actor.send({ type: 'editor.ready' });
    d.actor.send({ type: 'editor.opened' });
    await flush();
    expect(d.calls).toEqual(['loadCrdt']);
    expect(selectIsDocumentLoading(d.snapshot())).toBe(false);
    expect(selectIsReadOnly(d.snapshot())).toBe(false);
  });

  it('merges the updates that arrived while loading, after the loaded state', async () => {
    const d = startDocument({ initial: 'ab' });
    d.holdLoads();
    d.actor.send({ type: 'editor.opened' });
    // Someone types while we load; their update is also in the log we will get.
    const update = remoteEdit(d.log, 1, 'X');
    d.log.push(update);
    d.receive({ type: 'document.updatedRemotely', update });
    await flush();
    const late = remoteEdit(d.log, 3, 'Y');
    d.receive({ type: 'document.updatedRemotely', update: late });
    await d.finishLoad();
    // The first came twice (buffered and in the log): duplicates are harmless.
    expect(selectDocumentText(d.snapshot())).toBe('aXbY');
    expect(d.editor()).toBe('aXbY');
  });

  it('starts from an empty document when the load fails (spec §8)', async () => {
    const d = startDocument();
    const failing = createActor(
      documentEditorMachine.provide({
        actors: {
          documentEvents: fromEventObservable(() => new Subject<DocumentSourceEvent>()),
          log: documentLogMachine.provide({
            actors: {
              loadCrdt: fromPromise<{ update: string }, { workspaceId: string }>(async () => {
                throw { status: 500, message: 'Error' };
              }),
            },
          }),
        },
      }),
      { clock: d.clock, input: { workspaceId: 'ws-1' } },
    ).start();
    failing.send({ type: 'editor.opened' });
    await flush();
    expect(failing.getSnapshot().matches({ document: { active: { content: 'open' } } })).toBe(true);
    expect(selectDocumentText(failing.getSnapshot())).toBe('');
    failing.stop();
  });
});

describe('documentEditorMachine: editing and saving', () => {
  it('sends edits in 500 ms batches with Edited, merged into one update', async () => {
    const d = startDocument();
    await d.open();
    d.type(5, ' w');
    await d.wait(100);
    d.type(7, 'o');
    await d.wait(EDIT_BATCH_MS - 101);
    expect(d.calls).toEqual(['loadCrdt']);
    await d.wait(1);
    expect(d.calls).toEqual(['loadCrdt', 'Edited']);
    expect(textOfUpdates(d.log.map(fromBase64))).toBe('Hello wo');
    expect(d.outbox().context.outbox).toEqual([]);
  });

  it('keeps edits the hub could not take and sends them with a later batch', async () => {
    const d = startDocument();
    await d.open();
    d.failEdits(true);
    d.type(5, '!');
    await d.wait(EDIT_BATCH_MS);
    expect(d.outbox().context.outbox).toHaveLength(1);
    d.failEdits(false);
    await d.wait(EDIT_BATCH_MS);
    expect(d.outbox().context.outbox).toEqual([]);
    expect(textOfUpdates(d.log.map(fromBase64))).toBe('Hello!');
  });

  it('marks the user editing until 3 s without an edit', async () => {
    const d = startDocument();
    await d.open();
    d.type(0, 'a');
    expect(d.snapshot().hasTag('editing')).toBe(true);
    await d.wait(EDIT_IDLE_MS - 1);
    d.type(0, 'b');
    await d.wait(EDIT_IDLE_MS - 1);
    expect(d.snapshot().hasTag('editing')).toBe(true);
    await d.wait(1);
    expect(d.snapshot().hasTag('editing')).toBe(false);
  });

  it('autosaves 5 s after the last change, flushing first, and flashes the indicator 4 s', async () => {
    const d = startDocument();
    await d.open();
    d.type(5, '!');
    await d.wait(AUTOSAVE_IDLE_MS - 1);
    d.type(6, '?');
    await d.wait(AUTOSAVE_IDLE_MS - 1);
    expect(d.saves).toEqual([]);
    await d.wait(1);
    expect(d.saves).toEqual([{ text: 'Hello!?', stored: 'Hello!?' }]);
    expect(d.file()).toBe('Hello!?');
    expect(selectIsSaved(d.outbox())).toBe(true);
    await d.wait(SAVED_INDICATOR_MS - 1);
    expect(selectIsSaved(d.outbox())).toBe(true);
    await d.wait(1);
    expect(selectIsSaved(d.outbox())).toBe(false);
  });

  it('saves on Save with the edits not yet batched', async () => {
    const d = startDocument();
    await d.open();
    d.type(0, '# ');
    d.actor.send({ type: 'document.saveRequested' });
    await flush();
    expect(d.calls).toEqual(['loadCrdt', 'save']);
    expect(d.file()).toBe('# Hello');
    expect(d.outbox().context.outbox).toEqual([]);
  });

  it('saves again when the text changed while a save was in flight', async () => {
    const d = startDocument();
    await d.open();
    d.type(5, '1');
    d.actor.send({ type: 'document.saveRequested' });
    d.type(6, '2');
    await flush();
    expect(selectIsSaved(d.outbox())).toBe(false);
    await d.wait(AUTOSAVE_IDLE_MS);
    expect(d.file()).toBe('Hello12');
  });

  it('keeps the text after a failed save, shows it unsaved, and retries with back-off', async () => {
    const d = startDocument();
    await d.open();
    d.failNextSaves(2);
    d.type(5, '!');
    await d.wait(AUTOSAVE_IDLE_MS);
    expect(selectIsUnsaved(d.outbox())).toBe(true);
    expect(selectDocumentText(d.snapshot())).toBe('Hello!');
    await d.wait(SAVE_RETRY_MS(0));
    expect(d.calls.filter((c) => c === 'save')).toHaveLength(2);
    await d.wait(SAVE_RETRY_MS(1) - 1);
    expect(d.calls.filter((c) => c === 'save')).toHaveLength(2);
    await d.wait(1);
    expect(selectIsUnsaved(d.outbox())).toBe(false);
    expect(selectIsSaved(d.outbox())).toBe(true);
    expect(d.file()).toBe('Hello!');
  });

  it('caps the retry delay at 30 s', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map(SAVE_RETRY_MS)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000,
    ]);
  });
});

describe('documentEditorMachine: other authors', () => {
  it('merges remote updates and gives the editor their edits', async () => {
    const d = startDocument();
    await d.open();
    d.type(0, '>');
    d.receive({ type: 'document.updatedRemotely', update: remoteEdit(d.log, 5, ' Ada') });
    expect(selectDocumentText(d.snapshot())).toBe('>Hello Ada');
    expect(d.editor()).toBe('>Hello Ada');
  });

  it('resyncs on a newer saved text while not editing, without losing local edits', async () => {
    const d = startDocument();
    await d.open();
    d.type(0, 'A', 1_000);
    // An update we never received reached the log; its author saved.
    d.log.push(remoteEdit(d.log, 5, ' B'));
    await d.wait(EDIT_IDLE_MS);
    d.receive({ type: 'document.savedRemotely', text: 'Hello B', timestamp: 2_000 });
    await flush();
    expect(d.calls.filter((c) => c === 'loadCrdt')).toHaveLength(2);
    expect(selectDocumentText(d.snapshot())).toBe('AHello B');
    expect(d.editor()).toBe('AHello B');
    // The resync merged the text rather than replacing it: typing may go on.
    expect(selectIsReadOnly(d.snapshot())).toBe(false);
  });

  it('ignores a saved text while editing, one older than the last change, or one equal to ours', async () => {
    const d = startDocument();
    await d.open();
    d.type(0, 'A', 5_000);
    d.receive({ type: 'document.savedRemotely', text: 'other', timestamp: 6_000 });
    await d.wait(EDIT_IDLE_MS);
    d.receive({ type: 'document.savedRemotely', text: 'other', timestamp: 4_000 });
    d.receive({ type: 'document.savedRemotely', text: 'AHello', timestamp: 9_000 });
    await flush();
    expect(d.calls.filter((c) => c === 'loadCrdt')).toHaveLength(1);
  });

  it('resyncs after the hub reconnects', async () => {
    const d = startDocument();
    await d.open();
    d.log.push(remoteEdit(d.log, 0, 'Missed '));
    d.receive({ type: 'hub.reconnected' });
    await flush();
    expect(selectDocumentText(d.snapshot())).toBe('Missed Hello');
  });

  it('sends cursor moves at most once a second, the latest one last', async () => {
    const d = startDocument();
    await d.open();
    const at = (column: number) => ({ positions: [{ lineNumber: 1, column }] });
    d.actor.send({ type: 'editor.cursorMoved', ...at(1) });
    d.actor.send({ type: 'editor.cursorMoved', ...at(2) });
    d.actor.send({ type: 'editor.cursorMoved', ...at(3) });
    expect(d.cursors).toEqual([at(1)]);
    await d.wait(CURSOR_THROTTLE_MS);
    expect(d.cursors).toEqual([at(1), at(3)]);
    await d.wait(CURSOR_THROTTLE_MS * 3);
    expect(d.cursors).toHaveLength(2);
  });

  it('shows other people’s cursors with their names', async () => {
    const d = startDocument();
    await d.open();
    const positions = { positions: [{ lineNumber: 2, column: 4 }] };
    d.receive({ type: 'document.cursorMovedRemotely', actorId: 'u-ada', name: 'Ada', positions });
    d.receive({ type: 'document.cursorMovedRemotely', actorId: 'u-x', name: 'X', positions: 7 });
    expect(d.remoteCursors()).toEqual([
      { actorId: 'u-ada', name: 'Ada', positions: positions.positions },
    ]);
  });

  it('keeps the document when the tab closes, and is writable once its editor is back', async () => {
    const d = startDocument();
    await d.open();
    d.type(5, '!');
    d.actor.send({ type: 'editor.closed' });
    d.actor.send({ type: 'editor.opened' });
    expect(selectIsDocumentLoading(d.snapshot())).toBe(true);
    d.actor.send({ type: 'editor.ready' });
    expect(selectIsDocumentLoading(d.snapshot())).toBe(false);
    expect(selectIsReadOnly(d.snapshot())).toBe(false);
    expect(selectDocumentText(d.snapshot())).toBe('Hello!');
    expect(d.calls.filter((c) => c === 'loadCrdt')).toHaveLength(1);
  });
});

describe('documentEditorMachine: the image manager', () => {
  it('runs a manager while the panel is open, and hands the markdown it inserts to the editor', async () => {
    const d = startDocument();
    expect(selectImageManager(d.snapshot())).toBeUndefined();
    d.actor.send({ type: 'images.toggleRequested' });
    expect(selectAreImagesShown(d.snapshot())).toBe(true);
    await flush();
    const manager = selectImageManager(d.snapshot());
    expect(manager?.getSnapshot().context.workspaceId).toBe('ws-1');
    manager?.send({ type: 'image.insertRequested', filename: 'net.png' });
    expect(d.inserted).toEqual(['![net.png](/docs/ws-1/net.png)']);
    d.actor.send({ type: 'images.toggleRequested' });
    expect(selectImageManager(d.snapshot())).toBeUndefined();
    expect(manager?.getSnapshot().status).toBe('stopped');
  });

  it('closes the panel, and stops its manager, when the tab closes', async () => {
    const d = startDocument();
    await d.open();
    d.actor.send({ type: 'images.toggleRequested' });
    d.actor.send({ type: 'editor.closed' });
    expect(selectAreImagesShown(d.snapshot())).toBe(false);
    expect(selectImageManager(d.snapshot())).toBeUndefined();
  });
});

describe('documentEditorMachine reachability', () => {
  it('reaches every state', () => {
    expect(
      unreachedStateIds(documentEditorMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as DocumentEditorSnapshot;
          return JSON.stringify([snapshot.value, context.buffered.length > 0]);
        },
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [
          {
            type: 'replica.remotelyEdited',
            edits: [{ offset: 0, deleteCount: 0, text: 'x' }],
            text: 'x',
            resync: true,
          },
          { type: 'replica.locallyUpdated', update: 'AA==', text: 'x' },
          { type: 'document.logLoaded', update: null, resync: false },
          { type: 'image.inserted', markdown: '![a.png](/docs/ws-1/a.png)' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the save rule (spec §4: autosave 5 s after the last change and on Save,
 * the indicator for 4 s, a failed save kept and retried), driving the real actor.
 */
describe('documentEditorMachine against the save model', () => {
  type ModelEvent =
    | { type: 'EDIT' }
    | { type: 'SAVE' }
    | { type: 'IDLE' }
    | { type: 'FAIL_NEXT' }
    | { type: 'RETRY' };

  const model = createMachine({
    types: {} as { events: ModelEvent; context: { failNext: boolean } },
    id: 'saveModel',
    context: { failNext: false },
    initial: 'clean',
    states: {
      clean: { on: { EDIT: 'dirty', SAVE: 'saved', FAIL_NEXT: 'cleanFailing' } },
      cleanFailing: { on: { EDIT: 'dirtyFailing', SAVE: 'unsaved' } },
      dirty: { on: { EDIT: 'dirty', IDLE: 'saved', SAVE: 'saved', FAIL_NEXT: 'dirtyFailing' } },
      dirtyFailing: { on: { IDLE: 'unsaved', SAVE: 'unsaved' } },
      unsaved: { on: { EDIT: 'unsaved', RETRY: 'saved' } },
      saved: { on: { EDIT: 'dirty', IDLE: 'clean' } },
    },
  });

  it('agrees with the outbox it drives', () => {
    const after = (delay: string, state: string) =>
      `xstate.after.${delay}.documentOutbox.document.open.save.${state}`;
    expect(
      modelDisagreements(model, documentOutboxMachine, {
        states: {
          clean: 'document.open.save.clean',
          cleanFailing: 'document.open.save.clean',
          dirty: 'document.open.save.dirty',
          dirtyFailing: 'document.open.save.dirty',
          unsaved: 'document.open.save.failed',
          saved: 'document.open.save.saved',
        },
        events: {
          EDIT: 'replica.locallyUpdated',
          SAVE: 'document.saveRequested',
          IDLE: [after('autosaveIdle', 'dirty'), after('savedIndicator', 'saved')],
          // The server's, not the outbox's: the next save fails.
          FAIL_NEXT: [],
          RETRY: after('saveRetry', 'failed'),
        },
        // Paths start with the document open; the save in flight and the batching of edits:
        // the outbox's own tests.
        unmodelledStates: [
          'updates',
          'document.loading',
          'document.open.save.saving',
          'document.open.sync',
        ],
        unmodelledEvents: ['document.opened', 'replica.remotelyEdited'],
      }),
    ).toEqual([]);
  });

  type Driver = ReturnType<typeof startDocument>;
  const expectations: Record<string, (d: Driver) => void> = {
    clean: (d) => {
      expect(d.outbox().matches({ document: { open: { save: 'clean' } } })).toBe(true);
    },
    cleanFailing: (d) => {
      expect(d.outbox().matches({ document: { open: { save: 'clean' } } })).toBe(true);
    },
    dirty: (d) => {
      expect(d.outbox().matches({ document: { open: { save: 'dirty' } } })).toBe(true);
    },
    dirtyFailing: (d) => {
      expect(d.outbox().matches({ document: { open: { save: 'dirty' } } })).toBe(true);
    },
    unsaved: (d) => {
      expect(selectIsUnsaved(d.outbox())).toBe(true);
    },
    saved: (d) => {
      expect(selectIsSaved(d.outbox())).toBe(true);
      expect(d.file()).toBe(selectDocumentText(d.snapshot()));
    },
  };

  for (const path of modelPaths(model)) {
    it(`${path.description}`, async () => {
      const d = startDocument();
      await d.open();
      let typed = 0;
      for (const step of path.steps) {
        switch (step.event.type) {
          case 'EDIT':
            d.type(0, String(typed++ % 10));
            break;
          case 'SAVE':
            d.actor.send({ type: 'document.saveRequested' });
            await flush();
            break;
          case 'IDLE':
            await d.wait(
              d.outbox().matches({ document: { open: { save: 'saved' } } })
                ? SAVED_INDICATOR_MS
                : AUTOSAVE_IDLE_MS,
            );
            break;
          case 'FAIL_NEXT':
            d.failNextSaves(1);
            break;
          case 'RETRY':
            await d.wait(SAVE_RETRY_MS(0));
            break;
        }
        const check = expectations[String(step.state.value)];
        check?.(d);
      }
    });
  }
});

/**
 * Model-based test of the editor's modes (issue 27: the log loads as the tab opens, alongside
 * Monaco; read-only until the log is merged and writable from then on, a resync included; loading
 * until the log is merged and the editor mounted, in either order; the document and its edits
 * outlive a closed tab) and of the image panel (its manager runs while it is open; a closed tab
 * closes it), driving the real actor.
 */
describe('documentEditorMachine against the editor model', () => {
  type ModelEvent =
    | { type: 'OPEN' }
    | { type: 'READY' }
    | { type: 'LOADED' }
    | { type: 'CLOSE' }
    | { type: 'RESYNC' }
    | { type: 'TOGGLE_IMAGES' };

  // The states name what is there: the log (loading or merged) and the editor (mounting, shown or
  // hidden with its tab).
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'documentEditorModel',
    initial: 'closed',
    states: {
      closed: { on: { OPEN: 'loading', READY: 'loadingShown', TOGGLE_IMAGES: 'closedWithImages' } },
      closedWithImages: { on: { TOGGLE_IMAGES: 'closed' } },
      loading: { on: { LOADED: 'mounting', READY: 'loadingShown', CLOSE: 'loadingHidden' } },
      loadingShown: { on: { LOADED: 'writable', CLOSE: 'loadingHidden' } },
      loadingHidden: { on: { OPEN: 'loading', READY: 'loadingShown', LOADED: 'hidden' } },
      mounting: { on: { READY: 'writable', CLOSE: 'hidden', TOGGLE_IMAGES: 'mountingWithImages' } },
      mountingWithImages: { on: { TOGGLE_IMAGES: 'mounting', CLOSE: 'hidden' } },
      writable: { on: { CLOSE: 'hidden', RESYNC: 'writable' } },
      hidden: { on: { OPEN: 'mounting', READY: 'writable' } },
    },
  });

  const content = 'document.active.content';
  const view = 'document.active.view';

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, documentEditorMachine, {
        states: {
          closed: ['document.closed', 'images.hidden'],
          closedWithImages: ['document.closed', 'images.shown'],
          loading: [`${content}.loading`, `${view}.opening`],
          loadingShown: [`${content}.loading`, `${view}.shown`],
          loadingHidden: [`${content}.loading`, `${view}.hidden`],
          mounting: [`${content}.open`, `${view}.opening`],
          mountingWithImages: [`${content}.open`, `${view}.opening`, 'images.shown'],
          writable: [`${content}.open`, `${view}.shown`],
          hidden: [`${content}.open`, `${view}.hidden`],
        },
        events: {
          OPEN: 'editor.opened',
          READY: 'editor.ready',
          LOADED: 'document.logLoaded',
          CLOSE: 'editor.closed',
          // A reconnection, and the replica's report of the missed edits it merged.
          RESYNC: ['hub.reconnected', 'replica.remotelyEdited'],
          TOGGLE_IMAGES: 'images.toggleRequested',
        },
        // Typing: the editing tests above; the replica's own traffic: the tests above.
        unmodelledStates: ['document.active.model'],
        unmodelledEvents: [
          'editor.changed',
          'editor.cursorMoved',
          'document.saveRequested',
          'document.updatedRemotely',
          'document.savedRemotely',
          'document.cursorMovedRemotely',
          'replica.locallyUpdated',
          'image.inserted',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const SEEN: Record<string, { loading: boolean; readOnly: boolean; images: boolean }> = {
    closed: { loading: true, readOnly: true, images: false },
    closedWithImages: { loading: true, readOnly: true, images: true },
    loading: { loading: true, readOnly: true, images: false },
    loadingShown: { loading: true, readOnly: true, images: false },
    loadingHidden: { loading: true, readOnly: true, images: false },
    mounting: { loading: true, readOnly: false, images: false },
    mountingWithImages: { loading: true, readOnly: false, images: true },
    writable: { loading: false, readOnly: false, images: false },
    hidden: { loading: false, readOnly: false, images: false },
  };

  for (const path of paths) {
    it(path.description, async () => {
      const d = startDocument();
      d.holdLoads();
      // The document loads once, when the tab first opens, and again on each resync.
      let loads = 0;
      await path.test({
        states: Object.fromEntries(
          Object.entries(SEEN).map(([state, seen]) => [
            state,
            () => {
              expect(selectIsDocumentLoading(d.snapshot())).toBe(seen.loading);
              expect(selectIsReadOnly(d.snapshot())).toBe(seen.readOnly);
              expect(selectImageManager(d.snapshot()) !== undefined).toBe(seen.images);
              expect(d.calls.filter((c) => c === 'loadCrdt')).toHaveLength(loads);
              // Once merged, the editor model holds the document's text.
              if (!seen.readOnly) expect(d.editor()).toBe(selectDocumentText(d.snapshot()));
            },
          ]),
        ),
        events: {
          OPEN: async () => {
            if (d.snapshot().matches({ document: 'closed' })) loads += 1;
            d.actor.send({ type: 'editor.opened' });
            await flush();
          },
          READY: async () => {
            if (d.snapshot().matches({ document: 'closed' })) loads += 1;
            d.actor.send({ type: 'editor.ready' });
            await flush();
          },
          LOADED: () => d.finishLoad(),
          CLOSE: () => d.actor.send({ type: 'editor.closed' }),
          RESYNC: async () => {
            // An update that never reached us is in the log; the reconnection brings it in.
            loads += 1;
            d.log.push(remoteEdit(d.log, 0, `missed ${loads} `));
            d.receive({ type: 'hub.reconnected' });
            await flush();
          },
          TOGGLE_IMAGES: async () => {
            d.actor.send({ type: 'images.toggleRequested' });
            await flush();
          },
        },
      });
    });
  }
});
