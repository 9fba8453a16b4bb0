import { assign, fromPromise, raise, setup, type ActorRefFrom, type SnapshotFrom } from 'xstate';
import type { IsoUsageReport } from '../api/files';
import { errorMessage } from '../domain/text';
import type { UploadReport } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';

/** The ISO list is read again this long after an upload ends (spec §4 ISO upload, §9). */
export const LIST_REFRESH_DELAY_MS = 2_000;

export type IsoFilesEvent =
  | { type: 'isos.refreshRequested' }
  /** Which templates mount the ISO, and which gamespaces run them. */
  | { type: 'iso.usageRequested'; path: string }
  | { type: 'iso.usageClosed' }
  /** Delete asks first; only the confirmation deletes. */
  | { type: 'iso.deleteRequested'; path: string }
  | { type: 'iso.deleteConfirmed' }
  | { type: 'iso.deleteCanceled' }
  | UploadReport;

export interface IsoFilesInput {
  workspaceId: string;
}

export interface IsoFilesContext {
  workspaceId: string;
  /** The workspace's own ISO paths (`{workspaceId}/file.iso`). */
  isos: string[];
  listError: string | null;
  /** The ISO whose usage is asked for or shown. */
  usagePath: string | null;
  usage: IsoUsageReport | null;
  usageError: string | null;
  /** The ISO waiting for the delete confirmation, or being deleted. */
  deletePath: string | null;
  deleteError: string | null;
}

const notProvided = (name: string): Error =>
  new Error(`isoFilesMachine: '${name}' is provided by the app (src/app)`);

/**
 * The Files tab (spec §2 Workspace editor, §4 ISO upload): the workspace's ISO files with their
 * usage and a confirmed delete, and the upload queue, after whose every upload the list is read
 * again 2 s later (the server may still be wrapping the file into an image).
 */
export const isoFilesMachine = setup({
  types: {
    input: {} as IsoFilesInput,
    context: {} as IsoFilesContext,
    events: {} as IsoFilesEvent,
  },
  actors: {
    /** GET workspace/{id}/isos?local=true: the workspace's own ISO paths. */
    listIsos: fromPromise<string[], { workspaceId: string }>(() => {
      throw notProvided('listIsos');
    }),
    /** GET workspace/{id}/iso-usage?path=. */
    loadIsoUsage: fromPromise<IsoUsageReport, { workspaceId: string; path: string }>(() => {
      throw notProvided('loadIsoUsage');
    }),
    /** DELETE workspace/{id}/iso?path=. */
    deleteIso: fromPromise<unknown, { workspaceId: string; path: string }>(() => {
      throw notProvided('deleteIso');
    }),
    uploads: uploadQueueMachine,
  },
  delays: { listRefresh: LIST_REFRESH_DELAY_MS },
}).createMachine({
  id: 'isoFiles',
  description:
    "The Files tab: the workspace's ISO list (read again 2 s after each upload ends), an ISO's usage, a delete after confirmation, and the upload queue.",
  context: ({ input }) => ({
    workspaceId: input.workspaceId,
    isos: [],
    listError: null,
    usagePath: null,
    usage: null,
    usageError: null,
    deletePath: null,
    deleteError: null,
  }),
  invoke: {
    id: 'uploads',
    src: 'uploads',
    input: ({ context, self }) => ({ groupKey: context.workspaceId, reportTo: self }),
  },
  type: 'parallel',
  states: {
    list: {
      on: {
        // A later upload ending restarts the wait, so one read follows a burst of uploads.
        'upload.ended': { target: '.refreshScheduled', reenter: true },
        'isos.refreshRequested': { target: '.loading', reenter: true },
      },
      initial: 'loading',
      states: {
        loading: {
          invoke: {
            id: 'listIsos',
            src: 'listIsos',
            input: ({ context }) => ({ workspaceId: context.workspaceId }),
            onDone: {
              target: 'listed',
              actions: assign({ isos: ({ event }) => event.output ?? [], listError: null }),
            },
            onError: {
              target: 'failed',
              actions: assign({ listError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        listed: {},
        failed: {},
        refreshScheduled: { after: { listRefresh: 'loading' } },
      },
    },
    usage: {
      on: {
        'iso.usageRequested': {
          target: '.loading',
          reenter: true,
          actions: assign({
            usagePath: ({ event }) => String(event.path ?? ''),
            usage: null,
            usageError: null,
          }),
        },
        'iso.usageClosed': { target: '.closed', actions: assign({ usagePath: null, usage: null }) },
      },
      initial: 'closed',
      states: {
        closed: {},
        loading: {
          invoke: {
            id: 'loadIsoUsage',
            src: 'loadIsoUsage',
            input: ({ context }) => ({
              workspaceId: context.workspaceId,
              path: context.usagePath ?? '',
            }),
            onDone: { target: 'shown', actions: assign({ usage: ({ event }) => event.output }) },
            onError: {
              target: 'failed',
              actions: assign({ usageError: ({ event }) => errorMessage(event.error) }),
            },
          },
        },
        shown: {},
        failed: {},
      },
    },
    removal: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            'iso.deleteRequested': {
              target: 'confirming',
              actions: assign({
                deletePath: ({ event }) => String(event.path ?? ''),
                deleteError: null,
              }),
            },
          },
        },
        confirming: {
          on: {
            'iso.deleteConfirmed': 'deleting',
            'iso.deleteCanceled': { target: 'idle', actions: assign({ deletePath: null }) },
          },
        },
        deleting: {
          invoke: {
            id: 'deleteIso',
            src: 'deleteIso',
            input: ({ context }) => ({
              workspaceId: context.workspaceId,
              path: context.deletePath ?? '',
            }),
            onDone: {
              target: 'idle',
              actions: [assign({ deletePath: null }), raise({ type: 'isos.refreshRequested' })],
            },
            onError: {
              target: 'idle',
              actions: assign({
                deletePath: null,
                deleteError: ({ event }) => errorMessage(event.error),
              }),
            },
          },
        },
      },
    },
  },
});

export type IsoFilesActorRef = ActorRefFrom<typeof isoFilesMachine>;
export type IsoFilesSnapshot = SnapshotFrom<typeof isoFilesMachine>;
