import {
  assign,
  enqueueActions,
  fromPromise,
  raise,
  setup,
  type ActorRefFrom,
  type SnapshotFrom,
} from 'xstate';
import type { DiskImage, TemplateCreated } from '../api/diskImages';
import { errorMessage } from '../domain/text';
import type { UploadReport } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';

export type { DiskImage };

export type DiskImagesEvent =
  | { type: 'images.refreshRequested' }
  /** Delete asks first; only the confirmation deletes. */
  | { type: 'image.deleteRequested'; name: string }
  | { type: 'image.deleteConfirmed' }
  | { type: 'image.deleteCanceled' }
  /** A new stock template whose disk is the image. */
  | { type: 'image.templateRequested'; name: string }
  | { type: 'alert.dismissed' }
  | UploadReport;

/** Told when a template was made from an image: the Template Manager selects it. */
export type DiskImagesEmitted = { type: 'template.created'; id: string; name: string };

export interface DiskImagesContext {
  images: DiskImage[];
  listError: string | null;
  /** The image waiting for the delete confirmation, or being deleted. */
  deleteName: string | null;
  /** The image a template is being made from. */
  templateImage: DiskImage | null;
  /** Why the last delete or template creation failed. */
  actionError: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`diskImagesMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Template Manager's Disk Images panel (issue 31): the images of the qemu images folder
 * with their sizes and the templates naming them, read again after each upload ends (the server
 * answers an upload once it has checked and converted it); a confirmed delete; a stock template
 * made from an image; and the upload queue, whose uploads are sent in resumable chunks.
 */
export const diskImagesMachine = setup({
  types: {
    context: {} as DiskImagesContext,
    events: {} as DiskImagesEvent,
    emitted: {} as DiskImagesEmitted,
  },
  actors: {
    /** GET admin/diskimages. */
    listImages: fromPromise<DiskImage[]>(() => {
      throw notProvided('listImages');
    }),
    /** DELETE admin/diskimage/{name}. */
    deleteImage: fromPromise<unknown, { name: string }>(() => {
      throw notProvided('deleteImage');
    }),
    /** POST template-detail with a detail whose disk is the image. */
    createTemplate: fromPromise<TemplateCreated, { image: DiskImage }>(() => {
      throw notProvided('createTemplate');
    }),
    uploads: uploadQueueMachine,
  },
  guards: {
    isListed: ({ context, event }) =>
      'name' in event && context.images.some((i) => i.name === event.name),
  },
}).createMachine({
  id: 'diskImages',
  description:
    'The Disk Images panel: the images with their sizes and templates (read again after each upload ends), a delete after confirmation, a template made from an image, and the upload queue.',
  context: {
    images: [],
    listError: null,
    deleteName: null,
    templateImage: null,
    actionError: null,
  },
  invoke: {
    id: 'uploads',
    src: 'uploads',
    input: ({ self }) => ({ groupKey: '', reportTo: self }),
  },
  on: { 'alert.dismissed': { actions: assign({ actionError: null }) } },
  type: 'parallel',
  states: {
    list: {
      on: {
        'upload.ended': { target: '.loading', reenter: true },
        'images.refreshRequested': { target: '.loading', reenter: true },
      },
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            id: 'listImages',
            src: 'listImages',
            onDone: {
              target: 'listed',
              actions: assign({ images: ({ event }) => event.output ?? [], listError: null }),
            },
            onError: {
              target: 'failed',
              actions: assign({ listError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        listed: {},
        failed: {},
      },
    },
    removal: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'image.deleteRequested': {
              guard: 'isListed',
              target: 'confirming',
              actions: assign({
                deleteName: ({ event }) => event.name,
                actionError: null,
              }),
            },
          },
        },
        confirming: {
          on: {
            'image.deleteConfirmed': 'deleting',
            'image.deleteCanceled': { target: 'idle', actions: assign({ deleteName: null }) },
          },
        },
        deleting: {
          invoke: {
            id: 'deleteImage',
            src: 'deleteImage',
            input: ({ context }) => ({ name: context.deleteName ?? '' }),
            onDone: {
              target: 'idle',
              actions: [assign({ deleteName: null }), raise({ type: 'images.refreshRequested' })],
            },
            onError: {
              target: 'idle',
              actions: assign({
                deleteName: null,
                actionError: ({ event }) => errorMessage(event.error),
              }),
            },
          },
        },
      },
    },
    templating: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'image.templateRequested': {
              guard: 'isListed',
              target: 'creating',
              actions: assign({
                templateImage: ({ context, event }) =>
                  context.images.find((i) => i.name === event.name) ?? null,
                actionError: null,
              }),
            },
          },
        },
        creating: {
          invoke: {
            id: 'createTemplate',
            src: 'createTemplate',
            // Only a listed image gets here (isListed), so there is one.
            input: ({ context }) => ({ image: context.templateImage! }),
            onDone: {
              target: 'idle',
              actions: [
                assign({ templateImage: null }),
                enqueueActions(({ event, enqueue }) => {
                  // Graph traversals send done events bare: there is nothing to tell of.
                  const created = event.output as TemplateCreated | undefined;
                  if (!created) return;
                  enqueue.emit({ type: 'template.created', id: created.id, name: created.name });
                }),
                // The image is now in use: its list row names the template.
                raise({ type: 'images.refreshRequested' }),
              ],
            },
            onError: {
              target: 'idle',
              actions: assign({
                templateImage: null,
                actionError: ({ event }) => errorMessage(event.error),
              }),
            },
          },
        },
      },
    },
  },
});

export type DiskImagesActorRef = ActorRefFrom<typeof diskImagesMachine>;
export type DiskImagesSnapshot = SnapshotFrom<typeof diskImagesMachine>;
