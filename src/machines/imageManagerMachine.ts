import { assign, emit, fromPromise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import { errorMessage } from '../domain/text';

/** A file of the workspace's document folder, as the image manager lists it. */
export interface DocumentFile {
  filename: string;
  /** Where the file is served (`{apphost}docs/{workspaceId}/{filename}`). */
  url: string;
}

/** What the upload check reads of a chosen file (a browser `File` has all three). */
export interface ChosenFile {
  name: string;
  size: number;
  type: string;
}

/** A failed upload or delete, shown beside the file it concerns until dismissed. */
export interface ImageError {
  filename: string;
  message: string;
}

/**
 * Files must be under this size to be sent (spec §5, §9); the UI's own label says '5MB limit',
 * which the spec keeps as it is.
 */
export const UPLOAD_LIMIT_BYTES = 50_000_000;

/** The types an author may attach (spec §5): images and PDF. */
const UPLOAD_TYPES: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

/** Extensions that stand for those types when the browser reports no type. */
const UPLOAD_EXTENSIONS = /\.(?:png|jpe?g|gif|webp|pdf)$/i;

/** Files whose markdown is an image (`![...]`) rather than a link. */
const IMAGE_EXTENSIONS = /\.(?:png|jpe?g|gif|webp)$/i;

/** The client's check (spec §5): a png, jpeg, gif, webp or pdf under 50,000,000 bytes. */
export const isUploadable = (file: ChosenFile): boolean =>
  file.size < UPLOAD_LIMIT_BYTES &&
  (file.type === '' ? UPLOAD_EXTENSIONS.test(file.name) : file.type in UPLOAD_TYPES);

export const isImageFile = (filename: string): boolean => IMAGE_EXTENSIONS.test(filename);

/**
 * The markdown that shows a file in the document (spec §5): a link, with a leading ! for images.
 * Brackets in the name and spaces or parentheses in the url would end the link early.
 */
export function fileMarkdown(file: DocumentFile): string {
  const label = file.filename.replace(/[[\]\\]/g, (c) => `\\${c}`);
  const url = file.url.replace(/[ ()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${isImageFile(file.filename) ? '!' : ''}[${label}](${url})`;
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
export type ImageManagerEmitted = { type: 'image.inserted'; markdown: string };

export interface ImageManagerInput {
  workspaceId: string;
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
 * each failed upload, deletes after a confirmation, and turns a file into markdown to insert.
 * Uploading and deleting are independent: a delete may be confirmed while files are being sent.
 */
export const imageManagerMachine = setup({
  types: {
    input: {} as ImageManagerInput,
    context: {} as ImageManagerContext,
    events: {} as ImageManagerEvent,
    emitted: {} as ImageManagerEmitted,
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
      queue: ({ context, event }) =>
        event.type === 'image.uploadRequested'
          ? [...context.queue, ...event.files.filter(isUploadable)]
          : context.queue,
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
      errors: ({ context, event }) =>
        event.type === 'image.errorDismissed'
          ? context.errors.filter((_, i) => i !== event.index)
          : context.errors,
    }),
    insert: emit(({ context, event }): ImageManagerEmitted => {
      const file = context.files.find(
        (f) => event.type === 'image.insertRequested' && f.filename === event.filename,
      );
      return { type: 'image.inserted', markdown: file ? fileMarkdown(file) : '' };
    }),
  },
  guards: {
    hasUploadable: ({ event }) =>
      event.type === 'image.uploadRequested' && event.files.some(isUploadable),
    /** More files wait behind the one that just finished. */
    hasMoreUploads: ({ context }) => context.queue.length > 1,
    isListedFile: ({ context, event }) =>
      (event.type === 'image.deleteRequested' || event.type === 'image.insertRequested') &&
      context.files.some((f) => f.filename === event.filename),
  },
}).createMachine({
  id: 'imageManager',
  description:
    "The Document tab's image manager: lists the workspace's files, uploads the chosen png, jpeg, gif, webp and pdf files under 50,000,000 bytes one after another, deletes after a confirmation, and emits a file's markdown to insert.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    files: [],
    queue: [],
    errors: [],
    loadError: null,
    deleteTarget: null,
  }),
  on: {
    'image.insertRequested': { guard: 'isListedFile', actions: 'insert' },
    'image.errorDismissed': { actions: 'dismissError' },
  },
  initial: 'loading',
  states: {
    loading: {
      invoke: {
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
                src: 'uploadImage',
                input: ({ context }) => ({
                  workspaceId: context.workspaceId,
                  // Entered only with a queued file (the guard above, or hasMoreUploads).
                  file: context.queue[0] as File,
                }),
                onDone: [
                  {
                    guard: 'hasMoreUploads',
                    target: 'uploading',
                    reenter: true,
                    actions: [
                      { type: 'addUploaded', params: ({ event }) => ({ file: event.output }) },
                      'dequeueUpload',
                    ],
                  },
                  {
                    target: 'idle',
                    actions: [
                      { type: 'addUploaded', params: ({ event }) => ({ file: event.output }) },
                      'dequeueUpload',
                    ],
                  },
                ],
                onError: [
                  {
                    guard: 'hasMoreUploads',
                    target: 'uploading',
                    reenter: true,
                    actions: [
                      { type: 'addUploadError', params: ({ event }) => ({ error: event.error }) },
                      'dequeueUpload',
                    ],
                  },
                  {
                    target: 'idle',
                    actions: [
                      { type: 'addUploadError', params: ({ event }) => ({ error: event.error }) },
                      'dequeueUpload',
                    ],
                  },
                ],
              },
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
                  actions: assign({ deleteTarget: ({ event }) => event.filename }),
                },
              },
            },
            confirming: {
              on: {
                'image.deleteConfirmed': 'deleting',
                'image.deleteCancelled': {
                  target: 'idle',
                  actions: assign({ deleteTarget: null }),
                },
              },
            },
            deleting: {
              invoke: {
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
