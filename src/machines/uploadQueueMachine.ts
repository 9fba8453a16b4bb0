import {
  enqueueActions,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { uploadMachine, type UploadActorRef, type UploadReport } from './uploadMachine';

/** At most this many files are sent at once; the others wait their turn (spec §4, §9). */
export const MAX_PARALLEL_UPLOADS = 3;

export type UploadQueueEvent =
  /** Files picked or dropped: each gets its own upload, in the order given. */
  | { type: 'upload.filesChosen'; files: File[] }
  | { type: 'upload.cancelRequested'; uploadId: string }
  /** Takes the file off the list; one still being sent is aborted. */
  | { type: 'upload.removeRequested'; uploadId: string }
  /** Takes every ended upload off the list. */
  | { type: 'upload.clearRequested' }
  | UploadReport;

export interface UploadQueueInput {
  /** The workspace the files go to (their `group-key`). */
  groupKey: string;
  /** Told of every upload that ends (the Files tab refreshes its ISO list). */
  reportTo?: ActorRef<Snapshot<unknown>, UploadReport>;
}

export interface UploadQueueContext {
  groupKey: string;
  reportTo: UploadQueueInput['reportTo'] | null;
  /** Every upload on the list, in the order chosen. */
  uploads: UploadActorRef[];
  /** Ids of uploads waiting for a slot, first come first served. */
  waiting: string[];
  /** Ids of uploads being sent (at most MAX_PARALLEL_UPLOADS). */
  sending: string[];
  /** Ids of uploads that ended. */
  ended: string[];
  /** Numbers the uploads' ids, so that a file chosen twice is two uploads. */
  nextNumber: number;
}

const isUploadId = (ids: string[], id: unknown) => typeof id === 'string' && ids.includes(id);

/**
 * The Files tab's upload queue (spec §4 ISO upload): one child per file, at most three sending
 * at once and the rest waiting, each with its own progress and error; files can be canceled or
 * taken off the list.
 */
export const uploadQueueMachine = setup({
  types: {
    input: {} as UploadQueueInput,
    context: {} as UploadQueueContext,
    events: {} as UploadQueueEvent,
    // 'busy': some file is waiting or being sent.
    tags: {} as 'busy',
  },
  actors: { upload: uploadMachine },
  actions: {
    addUploads: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'upload.filesChosen' || !Array.isArray(event.files)) return;
      const ids = event.files.map((_, i) => `upload-${context.nextNumber + i}`);
      enqueue.assign({
        uploads: ({ spawn, self }) => [
          ...context.uploads,
          ...event.files.map((file, i) =>
            spawn('upload', {
              id: ids[i],
              input: { uploadId: ids[i] ?? '', file, groupKey: context.groupKey, reportTo: self },
            }),
          ),
        ],
        waiting: [...context.waiting, ...ids],
        nextNumber: context.nextNumber + ids.length,
      });
    }),
    /** Fills the free slots with the longest-waiting uploads. */
    startWaiting: enqueueActions(({ context, enqueue }) => {
      const free = Math.max(0, MAX_PARALLEL_UPLOADS - context.sending.length);
      const starting = context.waiting.slice(0, free);
      if (starting.length === 0) return;
      for (const id of starting) enqueue.sendTo(id, { type: 'upload.startRequested' });
      enqueue.assign({
        waiting: context.waiting.slice(starting.length),
        sending: [...context.sending, ...starting],
      });
    }),
    noteEnded: enqueueActions(({ context, event, enqueue }) => {
      if (
        event.type !== 'upload.ended' ||
        !isUploadId(
          context.uploads.map((u) => u.id),
          event.uploadId,
        )
      )
        return;
      enqueue.assign({
        waiting: context.waiting.filter((id) => id !== event.uploadId),
        sending: context.sending.filter((id) => id !== event.uploadId),
        ended: [...context.ended.filter((id) => id !== event.uploadId), event.uploadId],
      });
      if (context.reportTo) enqueue.sendTo(context.reportTo, event);
    }),
    forwardCancel: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'upload.cancelRequested') return;
      const upload = context.uploads.find((u) => u.id === event.uploadId);
      if (upload) enqueue.sendTo(upload, { type: 'upload.cancelRequested' });
    }),
    removeUploads: enqueueActions(({ context, event, enqueue }) => {
      const gone =
        event.type === 'upload.removeRequested'
          ? context.uploads.filter((u) => u.id === event.uploadId)
          : event.type === 'upload.clearRequested'
            ? context.uploads.filter((u) => context.ended.includes(u.id))
            : [];
      if (gone.length === 0) return;
      for (const upload of gone) enqueue.stopChild(upload);
      const ids = gone.map((u) => u.id);
      const keep = (list: string[]) => list.filter((id) => !ids.includes(id));
      enqueue.assign({
        uploads: context.uploads.filter((u) => !gone.includes(u)),
        waiting: keep(context.waiting),
        sending: keep(context.sending),
        ended: keep(context.ended),
      });
    }),
  },
  guards: {
    isIdle: ({ context }) => context.waiting.length === 0 && context.sending.length === 0,
  },
}).createMachine({
  id: 'uploadQueue',
  description:
    'The ISO upload queue: one child upload per file, at most 3 sending at once and the others waiting; each ended upload frees its slot and is reported; files can be canceled and taken off the list.',
  context: ({ input }) => ({
    groupKey: input.groupKey,
    reportTo: input.reportTo ?? null,
    uploads: [],
    waiting: [],
    sending: [],
    ended: [],
    nextNumber: 1,
  }),
  on: {
    'upload.filesChosen': { target: '.sending', actions: ['addUploads', 'startWaiting'] },
    'upload.cancelRequested': { actions: 'forwardCancel' },
    'upload.removeRequested': { target: '.sending', actions: ['removeUploads', 'startWaiting'] },
    'upload.clearRequested': { actions: 'removeUploads' },
    'upload.ended': { target: '.sending', actions: ['noteEnded', 'startWaiting'] },
  },
  initial: 'idle',
  states: {
    idle: {},
    sending: {
      tags: ['busy'],
      always: { guard: 'isIdle', target: 'idle' },
    },
  },
});

export type UploadQueueActorRef = ActorRefFrom<typeof uploadQueueMachine>;
export type UploadQueueSnapshot = SnapshotFrom<typeof uploadQueueMachine>;
