import {
  assertEvent,
  assign,
  fromPromise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { confirmBatch, takeBatch, type Batch, type PendingUpdate } from '../domain/coedit';
import type { ReplicaReport } from './documentReplica';

/** Local edits go out together at most this often (spec §9 "Edit batching"). */
export const EDIT_BATCH_MS = 500;
/** The document saves this long after the last change (spec §4, §9). */
export const AUTOSAVE_IDLE_MS = 5_000;
/** The saved indicator shows this long (spec §4, §9). */
export const SAVED_INDICATOR_MS = 4_000;
/** A failed save is tried again after 1, 2, 4, 8, 16, then every 30 s. */
export const SAVE_RETRY_MS = (attempt: number) => Math.min(1_000 * 2 ** attempt, 30_000);

export type DocumentOutboxEvent =
  /** The document has loaded: its log is the server's, local updates may go out. */
  | { type: 'document.opened' }
  | { type: 'document.saveRequested' }
  /** The replica's reports: local updates to send, and the text after every change. */
  | ReplicaReport;

export interface DocumentOutboxInput {
  workspaceId: string;
}

export interface DocumentOutboxContext {
  workspaceId: string;
  /** The shared text as the replica last reported it: what a save writes. */
  text: string;
  /** Local updates not yet stored by the server, numbered in order. */
  outbox: PendingUpdate[];
  /** The number of the last local update. */
  localSeq: number;
  /** What the save in flight carries; its localSeq tells edits made during the save. */
  saving: { batch: Batch | null; localSeq: number } | null;
  /** The batch in flight with Edited. */
  sending: Batch | null;
  /** Failed saves in a row; sets the retry delay. */
  saveAttempt: number;
}

const notProvided = (name: string): Error =>
  new Error(`documentOutboxMachine: '${name}' is provided by the app (src/app)`);

/**
 * The document's way to the server (the co-editing contract): local Yjs updates are kept in order
 * until the server has stored them, sent together every 500 ms with Edited, and a save first
 * flushes them, then asks the server to write the text of its update log. Saves come 5 s after the
 * last change or on Save; the saved indicator shows 4 s; a failed save is kept and retried with
 * back-off. Nothing goes out before the document has loaded (`document.opened`).
 */
export const documentOutboxMachine = setup({
  types: {
    input: {} as DocumentOutboxInput,
    context: {} as DocumentOutboxContext,
    events: {} as DocumentOutboxEvent,
    // 'saving', 'saved' (the indicator), 'unsaved' (a save failed and is being retried).
    tags: {} as 'saving' | 'saved' | 'unsaved',
  },
  delays: {
    editBatch: EDIT_BATCH_MS,
    autosaveIdle: AUTOSAVE_IDLE_MS,
    savedIndicator: SAVED_INDICATOR_MS,
    saveRetry: ({ context }) => SAVE_RETRY_MS(context.saveAttempt - 1),
  },
  actors: {
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
    recordLocalUpdate: assign(({ context, event }) => {
      assertEvent(event, 'replica.locallyUpdated');
      return {
        text: event.text,
        localSeq: context.localSeq + 1,
        outbox: [...context.outbox, { seq: context.localSeq + 1, update: event.update }],
      };
    }),
    keepText: assign({
      text: ({ event }) => {
        assertEvent(event, 'replica.remotelyEdited');
        return event.text;
      },
    }),
    takeSendBatch: assign({ sending: ({ context }) => takeBatch(context.outbox) }),
    confirmSent: assign(({ context }) => ({
      outbox: context.sending ? confirmBatch(context.outbox, context.sending.through) : [],
      sending: null,
    })),
    dropSendBatch: assign({ sending: null }),
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
  },
  guards: {
    hasOutbox: ({ context }) => context.outbox.length > 0,
    /** The outbox was empty when the batch was taken. */
    hasNothingToSend: ({ context }) => context.sending === null,
    /** Changes arrived while the save was in flight: they still need one. */
    changedWhileSaving: ({ context }) =>
      context.saving !== null && context.localSeq > context.saving.localSeq,
  },
}).createMachine({
  id: 'documentOutbox',
  description:
    "The document's local updates on their way to the server: batched every 500 ms with Edited once the document has loaded; autosaved 5 s after the last change or on Save (flushing first), the saved indicator for 4 s, failed saves retried with back-off.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    text: '',
    outbox: [],
    localSeq: 0,
    saving: null,
    sending: null,
    saveAttempt: 0,
  }),
  type: 'parallel',
  states: {
    // The replica's reports, whatever the rest is doing: a region of its own, because an event
    // that any region of a parallel state handles never reaches the handlers of its ancestors.
    updates: {
      on: {
        'replica.locallyUpdated': { actions: 'recordLocalUpdate' },
        'replica.remotelyEdited': { actions: 'keepText' },
      },
    },
    document: {
      initial: 'loading',
      states: {
        /** Local updates are kept; they go out once the document has loaded. */
        loading: { on: { 'document.opened': 'open' } },
        open: {
          type: 'parallel',
          states: {
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
                  always: { guard: 'hasNothingToSend', target: 'idle' },
                  invoke: {
                    id: 'sendEdits',
                    src: 'sendEdits',
                    input: ({ context }) => ({
                      workspaceId: context.workspaceId,
                      update: context.sending?.update ?? '',
                    }),
                    onDone: { target: 'idle', actions: 'confirmSent' },
                    // The hub is down or refused: the updates stay and go with the next batch.
                    onError: { target: 'batching', actions: 'dropSendBatch' },
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
                  on: { 'replica.locallyUpdated': { target: 'dirty', reenter: true } },
                },
                saving: {
                  tags: ['saving'],
                  entry: 'takeSaveBatch',
                  // A second Save while one is in flight waits for it.
                  on: { 'document.saveRequested': {} },
                  invoke: {
                    id: 'saveDocument',
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
          },
        },
      },
    },
  },
});

export type DocumentOutboxActorRef = ActorRefFrom<typeof documentOutboxMachine>;
export type DocumentOutboxSnapshot = SnapshotFrom<typeof documentOutboxMachine>;
