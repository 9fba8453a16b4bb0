import {
  and,
  assign,
  not,
  stateIn,
  enqueueActions,
  fromEventObservable,
  fromPromise,
  sendTo,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import {
  confirmBatch,
  takeBatch,
  type Batch,
  type EditorChange,
  type PendingUpdate,
  type TextEdit,
} from '../domain/coedit';
import { documentReplica, type ReplicaReport } from './documentReplica';

/** The route's document load waits this long (spec §9 "Document load debounce"). */
export const LOAD_DEBOUNCE_MS = 500;
/** Local edits go out together at most this often (spec §9 "Edit batching"). */
export const EDIT_BATCH_MS = 500;
/** The user counts as editing until this long without an edit (spec §4, §9). */
export const EDIT_IDLE_MS = 3_000;
/** The editor becomes writable this long after it is ready, or after a resync (spec §4, §9). */
export const WRITABLE_DELAY_MS = 5_000;
/** The document saves this long after the last change (spec §4, §9). */
export const AUTOSAVE_IDLE_MS = 5_000;
/** The saved indicator shows this long (spec §4, §9). */
export const SAVED_INDICATOR_MS = 4_000;
/** Cursor moves are sent at most this often (spec §9). */
export const CURSOR_THROTTLE_MS = 1_000;
/** A failed save is tried again after 1, 2, 4, 8, 16, then every 30 s. */
export const SAVE_RETRY_MS = (attempt: number) => Math.min(1_000 * 2 ** attempt, 30_000);
/** What the read-only editor says to someone typing (spec §2, §8). */
export const LOADING_MESSAGE = 'Loading document...';

/** Where the cursors are, as CursorChanged carries them (Monaco positions, 1-based). */
export interface CursorPositions {
  positions: Array<{ lineNumber: number; column: number }>;
}

/** Someone else's cursors (DOCUMENT.CURSOR), shown with their name. */
export interface RemoteCursor extends CursorPositions {
  actorId: string;
  name: string;
}

/** The workspace channel's DocumentEvents as this machine reads them; the app validates them. */
export type DocumentSourceEvent =
  /** Someone's edits, as a Yjs update (base64); reference clients' change records are dropped. */
  | { type: 'document.updatedRemotely'; update: string }
  /** Someone saved (DOCUMENT.SAVED); `timestamp` in epoch ms. */
  | { type: 'document.savedRemotely'; text: string; timestamp: number }
  | { type: 'document.cursorMovedRemotely'; actorId: string; name: string; positions: unknown }
  /** The hub connection is back: updates sent while it was down never reached us. */
  | { type: 'hub.reconnected' };

export type DocumentEditorEvent =
  /** The editor (Monaco) is mounted: the document loads on the first one. */
  | { type: 'editor.ready' }
  /** The editor was unmounted (the tab closed); the document stays, with its unsaved edits. */
  | { type: 'editor.closed' }
  /** The user changed the text; `at` is when, in epoch ms. */
  | { type: 'editor.changed'; changes: EditorChange[]; at: number }
  | ({ type: 'editor.cursorMoved' } & CursorPositions)
  | { type: 'document.saveRequested' }
  | DocumentSourceEvent
  | ReplicaReport;

export type DocumentEditorEmitted =
  /** The text changed from elsewhere; the editor model applies `edits` to reach `text`. */
  { type: 'document.remotelyEdited'; edits: TextEdit[]; text: string };

export interface DocumentEditorInput {
  workspaceId: string;
}

export interface DocumentEditorContext {
  workspaceId: string;
  /** The shared text as the replica last reported it. */
  text: string;
  /** Local updates not yet stored by the server, numbered in order. */
  outbox: PendingUpdate[];
  /** The number of the last local update. */
  localSeq: number;
  /** What the save in flight carries; its localSeq tells edits made during the save. */
  saving: { batch: Batch | null; localSeq: number } | null;
  /** The batch in flight with Edited. */
  sending: Batch | null;
  /** Remote updates received while the document was loading, merged after it. */
  buffered: string[];
  /** When the user last changed the text (epoch ms, from the editor's event). */
  lastChangeAt: number;
  /** Failed saves in a row; sets the retry delay. */
  saveAttempt: number;
  /** The cursor move waiting for the throttle, if any. */
  cursor: CursorPositions | null;
  /** Other people's cursors, by actor id. */
  remoteCursors: Record<string, RemoteCursor>;
}

/** Broadcasts the kept cursor move and forgets it. */
const SEND_CURSOR = [
  {
    type: 'broadcastCursor',
    params: ({ context }: { context: DocumentEditorContext }) => ({
      workspaceId: context.workspaceId,
      cursor: context.cursor ?? { positions: [] },
    }),
  },
  'clearCursor',
] as const;

const notProvided = (name: string): Error =>
  new Error(`documentEditorMachine: '${name}' is provided by the app (src/app)`);

const isPositions = (value: unknown): value is CursorPositions['positions'] =>
  Array.isArray(value) &&
  value.every(
    (p) =>
      typeof p === 'object' &&
      p !== null &&
      typeof (p as Record<string, unknown>).lineNumber === 'number' &&
      typeof (p as Record<string, unknown>).column === 'number',
  );

/**
 * The Document tab's editor (spec §4 "Document editing"; the co-editing contract). The document
 * is a Yjs replica (a child actor) merged with everyone's updates, so no edit replaces another:
 * local edits are batched every 500 ms and sent with Edited; a save first flushes them, then asks
 * the server to write the text of its update log. Read-only until loaded and for 5 s after the
 * editor is ready; a save from elsewhere whose text differs from ours resyncs (merges the server's
 * log) rather than replacing the text.
 */
export const documentEditorMachine = setup({
  types: {
    input: {} as DocumentEditorInput,
    context: {} as DocumentEditorContext,
    events: {} as DocumentEditorEvent,
    emitted: {} as DocumentEditorEmitted,
    // 'writable': the user may type. 'loading': the document is not there yet.
    // 'editing': the user changed the text less than 3 s ago. 'saving', 'saved' (the indicator),
    // 'unsaved' (a save failed and is being retried).
    tags: {} as 'writable' | 'loading' | 'editing' | 'saving' | 'saved' | 'unsaved',
  },
  delays: {
    loadDebounce: LOAD_DEBOUNCE_MS,
    editBatch: EDIT_BATCH_MS,
    editIdle: EDIT_IDLE_MS,
    writableDelay: WRITABLE_DELAY_MS,
    autosaveIdle: AUTOSAVE_IDLE_MS,
    savedIndicator: SAVED_INDICATOR_MS,
    cursorThrottle: CURSOR_THROTTLE_MS,
    saveRetry: ({ context }) => SAVE_RETRY_MS(context.saveAttempt - 1),
  },
  actors: {
    replica: documentReplica,
    /** The workspace channel's DocumentEvents (and hub reconnections). */
    documentEvents: fromEventObservable<DocumentSourceEvent, { workspaceId: string }>(() => {
      throw notProvided('documentEvents');
    }),
    /** GET document/{id}/crdt: the server's whole update log, merged (base64). */
    loadCrdt: fromPromise<{ update: string }, { workspaceId: string }>(() => {
      throw notProvided('loadCrdt');
    }),
    /** Edited(workspaceId, {crdt, update}); resolves once the server has stored the update. */
    sendEdits: fromPromise<void, { workspaceId: string; update: string }>(() => {
      throw notProvided('sendEdits');
    }),
    /** Flushes `update` with Edited (when there is one), then PUT document/{id}. */
    saveDocument: fromPromise<void, { workspaceId: string; update: string | null; text: string }>(
      () => {
        throw notProvided('saveDocument');
      },
    ),
  },
  actions: {
    /** CursorChanged(workspaceId, positions): fire and forget, the next move replaces it. */
    broadcastCursor: (_, _params: { workspaceId: string; cursor: CursorPositions }) => {
      throw notProvided('broadcastCursor');
    },
    forwardToReplica: sendTo('replica', ({ event }) => event),
    mergeRemote: sendTo('replica', ({ event }) => ({
      type: 'replica.merge' as const,
      updates: event.type === 'document.updatedRemotely' ? [event.update] : [],
    })),
    bufferRemote: assign({
      buffered: ({ context, event }) =>
        event.type === 'document.updatedRemotely' && typeof event.update === 'string'
          ? [...context.buffered, event.update]
          : context.buffered,
    }),
    /** The loaded state first, then what arrived meanwhile (duplicates are harmless). */
    mergeLoaded: enqueueActions(
      ({ context, enqueue }, { update, resync }: { update: string | null; resync: boolean }) => {
        const updates = [...(update ? [update] : []), ...context.buffered];
        enqueue.sendTo('replica', { type: 'replica.merge', updates, resync });
        enqueue.assign({ buffered: [] });
      },
    ),
    recordLocalUpdate: assign(({ context, event }) =>
      event.type === 'replica.locallyUpdated'
        ? {
            text: event.text,
            localSeq: context.localSeq + 1,
            outbox: [...context.outbox, { seq: context.localSeq + 1, update: event.update }],
          }
        : {},
    ),
    applyRemoteEdits: enqueueActions(({ event, enqueue }) => {
      if (event.type !== 'replica.remotelyEdited') return;
      enqueue.assign({ text: event.text });
      enqueue.emit({ type: 'document.remotelyEdited', edits: event.edits, text: event.text });
    }),
    noteChangeTime: assign({
      lastChangeAt: ({ context, event }) =>
        event.type === 'editor.changed' && typeof event.at === 'number'
          ? event.at
          : context.lastChangeAt,
    }),
    takeSendBatch: assign({ sending: ({ context }) => takeBatch(context.outbox) }),
    confirmSent: assign(({ context }) => ({
      outbox: context.sending ? confirmBatch(context.outbox, context.sending.through) : [],
      sending: null,
    })),
    takeSaveBatch: assign({
      saving: ({ context }) => ({ batch: takeBatch(context.outbox), localSeq: context.localSeq }),
    }),
    confirmSaved: assign(({ context }) => ({
      outbox: context.saving?.batch
        ? confirmBatch(context.outbox, context.saving.batch.through)
        : context.outbox,
      saveAttempt: 0,
    })),
    countFailedSave: assign({ saveAttempt: ({ context }) => context.saveAttempt + 1 }),
    keepCursor: assign({
      cursor: ({ context, event }) =>
        event.type === 'editor.cursorMoved' && isPositions(event.positions)
          ? { positions: event.positions }
          : context.cursor,
    }),
    clearCursor: assign({ cursor: null }),
    showRemoteCursor: assign({
      remoteCursors: ({ context, event }) => {
        if (event.type !== 'document.cursorMovedRemotely') return context.remoteCursors;
        const positions =
          typeof event.positions === 'object' && event.positions !== null
            ? (event.positions as Record<string, unknown>).positions
            : undefined;
        if (!isPositions(positions) || typeof event.actorId !== 'string') {
          return context.remoteCursors;
        }
        return {
          ...context.remoteCursors,
          [event.actorId]: { actorId: event.actorId, name: event.name ?? '', positions },
        };
      },
    }),
  },
  guards: {
    hasOutbox: ({ context }) => context.outbox.length > 0,
    hasCursor: ({ context }) => context.cursor !== null,
    /** Changes arrived while the save was in flight: they still need one. */
    changedWhileSaving: ({ context }) =>
      context.saving !== null && context.localSeq > context.saving.localSeq,
    isResync: ({ event }) => event.type === 'replica.remotelyEdited' && event.resync === true,
    /**
     * A save from elsewhere brings text we do not have (spec §4): newer than our last change
     * (the machine also asks that we are not editing). Merging the server's log keeps our edits.
     */
    isNewerSavedText: ({ context, event }) =>
      event.type === 'document.savedRemotely' &&
      event.timestamp > context.lastChangeAt &&
      event.text !== context.text,
  },
}).createMachine({
  id: 'documentEditor',
  description:
    'The Document tab: loads the co-edited document when the editor first opens (after 500 ms), read-only until then and for 5 s after the editor is ready or a resync; batches edits every 500 ms with Edited; autosaves 5 s after the last change (flushing first), flashes the saved indicator 4 s, retries failed saves with back-off; resyncs on a newer saved text while not editing and after a reconnection; throttles cursors to 1 s.',
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    text: '',
    outbox: [],
    localSeq: 0,
    saving: null,
    sending: null,
    buffered: [],
    lastChangeAt: 0,
    saveAttempt: 0,
    cursor: null,
    remoteCursors: {},
  }),
  initial: 'closed',
  states: {
    /** No editor has opened yet: nothing is loaded. */
    closed: {
      tags: ['loading'],
      on: { 'editor.ready': 'active' },
    },
    active: {
      // Listening starts before the load, so that no update falls between the two.
      invoke: [
        { id: 'replica', src: 'replica' },
        {
          src: 'documentEvents',
          input: ({ context }) => ({ workspaceId: context.workspaceId }),
        },
      ],
      // While loading; once open, its `model` region handles them.
      on: {
        // The editor's changes always reach the replica, so that the two never differ.
        'editor.changed': { actions: ['forwardToReplica', 'noteChangeTime'] },
        'replica.locallyUpdated': { actions: 'recordLocalUpdate' },
        'replica.remotelyEdited': { actions: 'applyRemoteEdits' },
        'document.cursorMovedRemotely': { actions: 'showRemoteCursor' },
      },
      initial: 'debouncing',
      states: {
        debouncing: {
          tags: ['loading'],
          after: { loadDebounce: 'loading' },
          on: { 'document.updatedRemotely': { actions: 'bufferRemote' } },
        },
        loading: {
          tags: ['loading'],
          on: { 'document.updatedRemotely': { actions: 'bufferRemote' } },
          invoke: {
            src: 'loadCrdt',
            input: ({ context }) => ({ workspaceId: context.workspaceId }),
            onDone: {
              target: 'open',
              actions: {
                type: 'mergeLoaded',
                params: ({ event }) => ({
                  update: typeof event.output?.update === 'string' ? event.output.update : null,
                  resync: false,
                }),
              },
            },
            // Spec §8: a document that cannot be loaded is an empty one; edits still merge.
            onError: {
              target: 'open',
              actions: { type: 'mergeLoaded', params: { update: null, resync: false } },
            },
          },
        },
        open: {
          type: 'parallel',
          states: {
            // The replica's traffic. A region of its own, because an event that any region of a
            // parallel state handles never reaches the handlers of its ancestors.
            model: {
              on: {
                'editor.changed': { actions: ['forwardToReplica', 'noteChangeTime'] },
                'replica.locallyUpdated': { actions: 'recordLocalUpdate' },
                'replica.remotelyEdited': { actions: 'applyRemoteEdits' },
                'document.updatedRemotely': { actions: 'mergeRemote' },
                'document.cursorMovedRemotely': { actions: 'showRemoteCursor' },
              },
            },
            editor: {
              initial: 'settling',
              states: {
                settling: {
                  after: { writableDelay: 'writable' },
                  on: { 'editor.closed': 'hidden' },
                },
                writable: {
                  tags: ['writable'],
                  on: {
                    'editor.closed': 'hidden',
                    'replica.remotelyEdited': { guard: 'isResync', target: 'settling' },
                  },
                },
                hidden: { on: { 'editor.ready': 'settling' } },
              },
            },
            activity: {
              initial: 'idle',
              states: {
                idle: { on: { 'editor.changed': 'editing' } },
                editing: {
                  tags: ['editing'],
                  after: { editIdle: 'idle' },
                  on: { 'editor.changed': { target: 'editing', reenter: true } },
                },
              },
            },
            sync: {
              initial: 'idle',
              states: {
                idle: {
                  always: { guard: 'hasOutbox', target: 'batching' },
                  on: { 'replica.locallyUpdated': 'batching' },
                },
                batching: { after: { editBatch: 'sending' } },
                sending: {
                  entry: 'takeSendBatch',
                  always: { guard: ({ context }) => context.sending === null, target: 'idle' },
                  invoke: {
                    src: 'sendEdits',
                    input: ({ context }) => ({
                      workspaceId: context.workspaceId,
                      update: context.sending?.update ?? '',
                    }),
                    onDone: { target: 'idle', actions: 'confirmSent' },
                    // The hub is down or refused: the updates stay and go with the next batch.
                    onError: { target: 'batching', actions: assign({ sending: null }) },
                  },
                },
              },
            },
            save: {
              initial: 'clean',
              on: { 'document.saveRequested': '.saving' },
              states: {
                clean: { on: { 'replica.locallyUpdated': 'dirty' } },
                dirty: {
                  after: { autosaveIdle: 'saving' },
                  on: {
                    'replica.locallyUpdated': { target: 'dirty', reenter: true },
                  },
                },
                saving: {
                  tags: ['saving'],
                  entry: 'takeSaveBatch',
                  // A second Save while one is in flight waits for it.
                  on: { 'document.saveRequested': {} },
                  invoke: {
                    src: 'saveDocument',
                    input: ({ context }) => ({
                      workspaceId: context.workspaceId,
                      update: context.saving?.batch?.update ?? null,
                      text: context.text,
                    }),
                    onDone: [
                      { guard: 'changedWhileSaving', target: 'dirty', actions: 'confirmSaved' },
                      { target: 'saved', actions: 'confirmSaved' },
                    ],
                    onError: { target: 'failed', actions: 'countFailedSave' },
                  },
                },
                saved: {
                  tags: ['saved'],
                  after: { savedIndicator: 'clean' },
                  on: { 'replica.locallyUpdated': 'dirty' },
                },
                /** The text is kept; it is saved again after a back-off (or on Save). */
                failed: {
                  tags: ['unsaved'],
                  after: { saveRetry: 'saving' },
                },
              },
            },
            remote: {
              initial: 'idle',
              states: {
                idle: {
                  on: {
                    'document.savedRemotely': {
                      guard: and([
                        'isNewerSavedText',
                        not(stateIn('#documentEditor.active.open.activity.editing')),
                      ]),
                      target: 'resyncing',
                    },
                    'hub.reconnected': 'resyncing',
                  },
                },
                resyncing: {
                  invoke: {
                    src: 'loadCrdt',
                    input: ({ context }) => ({ workspaceId: context.workspaceId }),
                    onDone: {
                      target: 'idle',
                      actions: {
                        type: 'mergeLoaded',
                        params: ({ event }) => ({
                          update:
                            typeof event.output?.update === 'string' ? event.output.update : null,
                          resync: true,
                        }),
                      },
                    },
                    onError: 'idle',
                  },
                },
              },
            },
            cursor: {
              initial: 'idle',
              states: {
                idle: {
                  on: {
                    'editor.cursorMoved': {
                      target: 'throttled',
                      actions: ['keepCursor', ...SEND_CURSOR],
                    },
                  },
                },
                throttled: {
                  after: {
                    cursorThrottle: [
                      {
                        guard: 'hasCursor',
                        target: 'throttled',
                        reenter: true,
                        actions: [...SEND_CURSOR],
                      },
                      { target: 'idle' },
                    ],
                  },
                  on: { 'editor.cursorMoved': { actions: 'keepCursor' } },
                },
              },
            },
          },
        },
      },
    },
  },
});

export type DocumentEditorActorRef = ActorRefFrom<typeof documentEditorMachine>;
export type DocumentEditorSnapshot = SnapshotFrom<typeof documentEditorMachine>;
