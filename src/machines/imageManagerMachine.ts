import {
  assertEvent,
  assign,
  enqueueActions,
  fromPromise,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { fileMarkdown, isUploadable, type DocumentFile } from '../domain/documentFiles';
import { errorMessage } from '../domain/text';

/** A failed upload or delete, shown beside the file it concerns until dismissed. */
export interface ImageError {
  filename: string;
  message: string;
}

export type ImageManagerEvent =
  /** Files were chosen in the upload input; those that fail the check are silently ignored. */
  | { type: 'image.uploadRequested'; files: readonly File[] }
  | { type: 'image.insertRequested'; filename: string }
  /** Delete was pressed for a file: ask for confirmation first (spec §5). */
  | { type: 'image.deleteRequested'; filename: string }
  | { type: 'image.deleteConfirmed' }
  | { type: 'image.deleteCancelled' }
  /** The user closed the error at `index` of the error list. */
  | { type: 'image.errorDismissed'; index: number }
  /** Try the list again after it failed to load. */
  | { type: 'images.reloadRequested' };

/** The markdown of the file the user chose to insert; the document editor puts it at the cursor. */
export type ImageManagerReport = { type: 'image.inserted'; markdown: string };

export interface ImageManagerInput {
  workspaceId: string;
  /** The document editor that runs the manager. */
  reportTo?: ActorRef<Snapshot<unknown>, ImageManagerReport>;
}

export interface ImageManagerContext {
  workspaceId: string;
  files: DocumentFile[];
  /** Accepted files not yet sent; while uploading, the first is the one being sent. */
  queue: File[];
  errors: ImageError[];
  loadError: string | null;
  /** The file whose delete is being confirmed or carried out. */
  deleteTarget: string | null;
  reportTo: ImageManagerInput['reportTo'] | null;
}

const notProvided = (name: string): Error =>
  new Error(`imageManagerMachine: '${name}' is provided by the app (src/app)`);

/** Adds a stored file, or replaces the listed one of the same name. */
const withFile = (files: readonly DocumentFile[], file: DocumentFile): DocumentFile[] => [
  ...files.filter((f) => f.filename !== file.filename),
  file,
];

/**
 * The Document tab's image manager (spec §2, §5, §7): lists the workspace's document files,
 * uploads the chosen ones one after another (the client check drops the others silently), lists
 * each failed upload, deletes after a confirmation, and turns a file into markdown that the
 * document editor running it inserts. Uploading and deleting are independent: a delete may be
 * confirmed while files are being sent.
 */
export const imageManagerMachine = setup({
  types: {
    input: {} as ImageManagerInput,
    context: {} as ImageManagerContext,
    events: {} as ImageManagerEvent,
  },
  actors: {
    /** GET images/{workspaceId}, each file with the url it is served at. */
    listImages: fromPromise<DocumentFile[], { workspaceId: string }>(() => {
      throw notProvided('listImages');
    }),
    /** POST image/{workspaceId} (multipart field `file`): the file as stored. */
    uploadImage: fromPromise<DocumentFile, { workspaceId: string; file: File }>(() => {
      throw notProvided('uploadImage');
    }),
    /** DELETE image/{workspaceId}?filename=. */
    deleteImage: fromPromise<unknown, { workspaceId: string; filename: string }>(() => {
      throw notProvided('deleteImage');
    }),
  },
  actions: {
    enqueueUploads: assign({
      queue: ({ context, event }) => {
        assertEvent(event, 'image.uploadRequested');
        return [...context.queue, ...(event.files ?? []).filter(isUploadable)];
      },
    }),
    dequeueUpload: assign({ queue: ({ context }) => context.queue.slice(1) }),
    addUploaded: assign({
      files: ({ context }, params: { file: DocumentFile }) => withFile(context.files, params.file),
    }),
    /** The error of the file being sent, the first of the queue. */
    addUploadError: assign({
      errors: ({ context }, params: { error: unknown }) => [
        ...context.errors,
        { filename: context.queue[0]?.name ?? '', message: errorMessage(params.error) },
      ],
    }),
    dismissError: assign({
      errors: ({ context, event }) => {
        assertEvent(event, 'image.errorDismissed');
        return context.errors.filter((_, i) => i !== event.index);
      },
    }),
    /** The markdown goes to the document editor, which places it at the cursor. */
    insert: enqueueActions(({ context, event, enqueue }) => {
      assertEvent(event, 'image.insertRequested');
      const file = context.files.find((f) => f.filename === event.filename);
      if (file && context.reportTo) {
        enqueue.sendTo(context.reportTo, { type: 'image.inserted', markdown: fileMarkdown(file) });
      }
    }),
    setDeleteTarget: assign({
      deleteTarget: ({ event }) => {
        assertEvent(event, 'image.deleteRequested');
        return event.filename;
      },
    }),
    clearDeleteTarget: assign({ deleteTarget: null }),
  },
  guards: {
    hasUploadable: ({ event }) =>
      event.type === 'image.uploadRequested' && (event.files ?? []).some(isUploadable),
    /** Files wait their turn (the one that finished has left the queue). */
    hasQueuedUploads: ({ context }) => context.queue.length > 0,
    isListedFile: ({ context, event }) =>
      (event.type === 'image.deleteRequested' || event.type === 'image.insertRequested') &&
      context.files.some((f) => f.filename === event.filename),
  },
}).createMachine({
  id: 'imageManager',
  description:
    "The Document tab's image manager: lists the workspace's files, uploads the chosen png, jpeg, gif, webp and pdf files under 50,000,000 bytes one after another, deletes after a confirmation, and hands a file's markdown to the document editor to insert.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    files: [],
    queue: [],
    errors: [],
    loadError: null,
    deleteTarget: null,
    reportTo: input.reportTo ?? null,
  }),
  on: {
    'image.insertRequested': { guard: 'isListedFile', actions: 'insert' },
    'image.errorDismissed': { actions: 'dismissError' },
  },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
        id: 'listImages',
        src: 'listImages',
        input: ({ context }) => ({ workspaceId: context.workspaceId }),
        onDone: {
          target: 'ready',
          actions: assign({ files: ({ event }) => event.output, loadError: null }),
        },
        onError: {
          target: 'failed',
          actions: assign({ loadError: ({ event }) => errorMessage(event.error) }),
        },
      },
    },
    failed: {
      on: { 'images.reloadRequested': 'loading' },
    },
    ready: {
      type: 'parallel',
      states: {
        uploads: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'image.uploadRequested': {
                  guard: 'hasUploadable',
                  target: 'uploading',
                  actions: 'enqueueUploads',
                },
              },
            },
            uploading: {
              on: {
                // Chosen while others are being sent: they wait their turn.
                'image.uploadRequested': { actions: 'enqueueUploads' },
              },
              invoke: {
                id: 'uploadImage',
                src: 'uploadImage',
                input: ({ context }) => ({
                  workspaceId: context.workspaceId,
                  // Entered only with a queued file (hasUploadable, or hasQueuedUploads).
                  file: context.queue[0] as File,
                }),
                onDone: {
                  target: 'next',
                  actions: [
                    { type: 'addUploaded', params: ({ event }) => ({ file: event.output }) },
                    'dequeueUpload',
                  ],
                },
                onError: {
                  target: 'next',
                  actions: [
                    { type: 'addUploadError', params: ({ event }) => ({ error: event.error }) },
                    'dequeueUpload',
                  ],
                },
              },
            },
            /** One file is done: the next one, if any, goes. */
            next: {
              always: [{ guard: 'hasQueuedUploads', target: 'uploading' }, { target: 'idle' }],
            },
          },
        },
        removal: {
          initial: 'idle',
          states: {
            idle: {
              on: {
                'image.deleteRequested': {
                  guard: 'isListedFile',
                  target: 'confirming',
                  actions: 'setDeleteTarget',
                },
              },
            },
            confirming: {
              on: {
                'image.deleteConfirmed': 'deleting',
                'image.deleteCancelled': { target: 'idle', actions: 'clearDeleteTarget' },
              },
            },
            deleting: {
              invoke: {
                id: 'deleteImage',
                src: 'deleteImage',
                input: ({ context }) => ({
                  workspaceId: context.workspaceId,
                  filename: context.deleteTarget ?? '',
                }),
                onDone: {
                  target: 'idle',
                  actions: assign({
                    files: ({ context }) =>
                      context.files.filter((f) => f.filename !== context.deleteTarget),
                    deleteTarget: null,
                  }),
                },
                onError: {
                  target: 'idle',
                  actions: assign({
                    errors: ({ context, event }) => [
                      ...context.errors,
                      { filename: context.deleteTarget ?? '', message: errorMessage(event.error) },
                    ],
                    deleteTarget: null,
                  }),
                },
              },
            },
          },
        },
      },
    },
  },
});

export type ImageManagerActorRef = ActorRefFrom<typeof imageManagerMachine>;
export type ImageManagerSnapshot = SnapshotFrom<typeof imageManagerMachine>;
