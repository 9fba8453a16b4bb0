import {
  and,
  assertEvent,
  assign,
  emit,
  enqueueActions,
  forwardTo,
  fromEventObservable,
  not,
  sendTo,
  setup,
  stateIn,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import { documentCursorsMachine } from './documentCursorsMachine';
import type {
  DocumentEditorContext,
  DocumentEditorEmitted,
  DocumentEditorEvent,
  DocumentEditorInput,
  DocumentSourceEvent,
} from './documentEditorMachine.types';
import { documentLogMachine } from './documentLogMachine';
import { documentOutboxMachine } from './documentOutboxMachine';
import { documentReplica } from './documentReplica';
import { imageManagerMachine } from './imageManagerMachine';

export type * from './documentEditorMachine.types';

/** The user counts as editing until this long without an edit (spec §4, §9). */
export const EDIT_IDLE_MS = 3_000;
/** What the read-only editor says to someone typing (spec §2, §8). */
export const LOADING_MESSAGE = 'Loading document...';

/** The input of the children that need only the workspace. */
const workspaceOf = ({ context }: { context: DocumentEditorContext }) => ({
  workspaceId: context.workspaceId,
});

/**
 * The Document tab (spec §4 "Document editing"; the co-editing contract). The document is a Yjs
 * replica (a child actor) merged with everyone's updates, so no edit replaces another. Its other
 * children: the server's log (`documentLogMachine`: the load, then resyncs), the outbox
 * (`documentOutboxMachine`: batches with Edited, autosave, the save indicator), the cursors
 * (`documentCursorsMachine`), and the image manager (`imageManagerMachine`) while its panel is
 * open, whose inserts go to the editor model. The log loads as soon as the tab opens, while Monaco
 * loads. Read-only until the log is merged, then writable at once (issue 27): the reference waits
 * 5 s after the editor is ready or a remote update (spec §4) because it relays changes it cannot
 * merge; every change here is merged, a resync included, so there is nothing to wait out. A save
 * from elsewhere whose text differs from ours resyncs (merges the server's log) rather than
 * replacing the text.
 */
export const documentEditorMachine = setup({
  types: {
    input: {} as DocumentEditorInput,
    context: {} as DocumentEditorContext,
    events: {} as DocumentEditorEvent,
    emitted: {} as DocumentEditorEmitted,
    children: {} as {
      replica: 'replica';
      log: 'log';
      outbox: 'outbox';
      cursors: 'cursors';
      images: 'images';
    },
    // 'writable': the document is in sync (the server's log merged): the user may type.
    // 'loading': the text is not in the editor yet (the log or Monaco is loading).
    // 'editing': the user changed the text less than 3 s ago.
    tags: {} as 'writable' | 'loading' | 'editing',
  },
  delays: {
    editIdle: EDIT_IDLE_MS,
  },
  actors: {
    replica: documentReplica,
    /** The workspace channel's DocumentEvents (and hub reconnections). */
    documentEvents: fromEventObservable<DocumentSourceEvent, { workspaceId: string }>(() => {
      throw new Error("documentEditorMachine: 'documentEvents' is provided by the app (src/app)");
    }),
    /** Provide its loadCrdt. */
    log: documentLogMachine,
    /** Provide its sendEdits and saveDocument. */
    outbox: documentOutboxMachine,
    /** Provide its broadcastCursor. */
    cursors: documentCursorsMachine,
    /** Provide its listImages, uploadImage and deleteImage. */
    images: imageManagerMachine,
  },
  actions: {
    forwardToReplica: forwardTo('replica'),
    forwardToOutbox: forwardTo('outbox'),
    forwardToCursors: forwardTo('cursors'),
    mergeRemote: sendTo('replica', ({ event }) => {
      assertEvent(event, 'document.updatedRemotely');
      return { type: 'replica.merge' as const, updates: [event.update] };
    }),
    bufferRemote: assign({
      buffered: ({ context, event }) => {
        assertEvent(event, 'document.updatedRemotely');
        return typeof event.update === 'string'
          ? [...context.buffered, event.update]
          : context.buffered;
      },
    }),
    /** The loaded state first, then what arrived meanwhile (duplicates are harmless). */
    mergeLoaded: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'document.logLoaded');
      const updates = [...(event.update ? [event.update] : []), ...context.buffered];
      enqueue.sendTo('replica', { type: 'replica.merge', updates, resync: event.resync === true });
      enqueue.assign({ buffered: [] });
    }),
    requestResync: sendTo('log', { type: 'log.resyncRequested' }),
    /** The server's log is merged: the local updates may go out. */
    openOutbox: sendTo('outbox', { type: 'document.opened' }),
    recordText: assign({
      text: ({ event }) => {
        assertEvent(event, 'replica.locallyUpdated');
        return event.text;
      },
    }),
    applyRemoteEdits: enqueueActions(({ event, enqueue }) => {
      assertEvent(event, 'replica.remotelyEdited');
      enqueue.assign({ text: event.text });
      enqueue.emit({ type: 'document.remotelyEdited', edits: event.edits, text: event.text });
    }),
    noteChangeTime: assign({
      lastChangeAt: ({ context, event }) => {
        assertEvent(event, 'editor.changed');
        return typeof event.at === 'number' ? event.at : context.lastChangeAt;
      },
    }),
    insertMarkdown: emit(({ event }) => {
      assertEvent(event, 'image.inserted');
      return { type: 'image.inserted' as const, markdown: event.markdown };
    }),
  },
  guards: {
    /**
     * A save from elsewhere brings text we do not have (spec §4): newer than our last change
     * (the machine also asks that we are not editing). Merging the server's log keeps our edits.
     */
    isNewerSavedText: ({ context, event }) =>
      event.type === 'document.savedRemotely' &&
      event.timestamp > context.lastChangeAt &&
      event.text !== context.text,
    isEditing: stateIn('#documentEditor.document.active.content.open.editing'),
  },
}).createMachine({
  id: 'documentEditor',
  description:
    "The Document tab: merges the server's log once the tab first opens, while Monaco loads; loading until both are there, read-only until the log is merged and writable from then on; hands local updates to the outbox and cursors to their throttle; resyncs on a newer saved text while not editing and after a reconnection; runs the image manager while its panel is open.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    text: '',
    buffered: [],
    lastChangeAt: 0,
  }),
  invoke: [
    { id: 'outbox', src: 'outbox', input: workspaceOf },
    { id: 'cursors', src: 'cursors', input: workspaceOf },
  ],
  type: 'parallel',
  states: {
    document: {
      initial: 'closed',
      states: {
        /** The tab has not opened yet: nothing is loaded. */
        closed: {
          tags: ['loading'],
          on: {
            'editor.opened': 'active',
            // A mounted editor is in an open tab, whichever of the two said so first.
            'editor.ready': 'active.view.shown',
          },
        },
        active: {
          // Listening starts before the load, so that no update falls between the two.
          invoke: [
            { id: 'replica', src: 'replica' },
            { src: 'documentEvents', input: workspaceOf },
            {
              id: 'log',
              src: 'log',
              input: ({ context, self }) => ({ workspaceId: context.workspaceId, reportTo: self }),
            },
          ],
          type: 'parallel',
          states: {
            // The replica's traffic, whatever the content is doing: a region of its own, because
            // an event that any region of a parallel state handles never reaches the handlers of
            // its ancestors. The editor's changes always reach the replica, so the two never differ.
            model: {
              on: {
                'editor.changed': { actions: ['forwardToReplica', 'noteChangeTime'] },
                'replica.locallyUpdated': { actions: ['recordText', 'forwardToOutbox'] },
                'replica.remotelyEdited': { actions: ['applyRemoteEdits', 'forwardToOutbox'] },
                'document.cursorMovedRemotely': { actions: 'forwardToCursors' },
              },
            },
            // Whether the tab's editor shows the replica: Monaco mounts some time after the tab
            // opens (its first load is seconds of script on a slow machine).
            view: {
              initial: 'opening',
              states: {
                opening: {
                  tags: ['loading'],
                  on: { 'editor.ready': 'shown', 'editor.closed': 'hidden' },
                },
                shown: { on: { 'editor.closed': 'hidden' } },
                hidden: { on: { 'editor.opened': 'opening', 'editor.ready': 'shown' } },
              },
            },
            content: {
              initial: 'loading',
              states: {
                loading: {
                  tags: ['loading'],
                  on: {
                    'document.updatedRemotely': { actions: 'bufferRemote' },
                    'document.logLoaded': {
                      target: 'open',
                      actions: ['mergeLoaded', 'openOutbox'],
                    },
                  },
                },
                /** In sync: the server's log is merged, and every later change merges into it. */
                open: {
                  tags: ['writable'],
                  on: {
                    'document.updatedRemotely': { actions: 'mergeRemote' },
                    'document.logLoaded': { actions: 'mergeLoaded' },
                    // While editing, the text saved elsewhere is older than what is being typed.
                    'document.savedRemotely': {
                      guard: and(['isNewerSavedText', not('isEditing')]),
                      actions: 'requestResync',
                    },
                    'hub.reconnected': { actions: 'requestResync' },
                    'editor.cursorMoved': { actions: 'forwardToCursors' },
                    'document.saveRequested': { actions: 'forwardToOutbox' },
                  },
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
              },
            },
          },
        },
      },
    },
    images: {
      initial: 'hidden',
      states: {
        hidden: { on: { 'images.toggleRequested': 'shown' } },
        /** The panel is open: a manager lists the files; closing it (or the tab) stops it. */
        shown: {
          invoke: {
            id: 'images',
            src: 'images',
            input: ({ context, self }) => ({ workspaceId: context.workspaceId, reportTo: self }),
          },
          on: {
            'images.toggleRequested': 'hidden',
            'editor.closed': 'hidden',
            'image.inserted': { actions: 'insertMarkdown' },
          },
        },
      },
    },
  },
});

export type DocumentEditorActorRef = ActorRefFrom<typeof documentEditorMachine>;
export type DocumentEditorSnapshot = SnapshotFrom<typeof documentEditorMachine>;
