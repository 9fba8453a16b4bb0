import {
  assign,
  enqueueActions,
  fromCallback,
  setup,
  type ActorRef,
  type ActorRefFrom,
  type Snapshot,
  type SnapshotFrom,
} from 'xstate';
import { errorMessage } from '../domain/text';

/** How an upload ended; the queue starts the next one and the ISO list refreshes. */
export type UploadOutcome = 'succeeded' | 'failed' | 'canceled';

export type UploadReport = { type: 'upload.ended'; uploadId: string; outcome: UploadOutcome };

/** What the upload effect reports while it sends the file. */
export type UploadProgressEvent =
  | { type: 'upload.progressed'; percent: number }
  | { type: 'upload.succeeded' }
  | { type: 'upload.failed'; error: unknown };

export type UploadEvent =
  /** The queue has a free slot for this file. */
  { type: 'upload.startRequested' } | { type: 'upload.cancelRequested' } | UploadProgressEvent;

export interface UploadInput {
  uploadId: string;
  file: File;
  /** The workspace the ISO goes to (the upload's `group-key`). */
  groupKey: string;
  reportTo?: ActorRef<Snapshot<unknown>, UploadReport>;
}

export interface UploadContext {
  uploadId: string;
  file: File;
  groupKey: string;
  /** 0..100, from the browser's upload progress. */
  percent: number;
  error: string | null;
  reportTo: UploadInput['reportTo'] | null;
}

const clampPercent = (n: unknown): number =>
  typeof n === 'number' && Number.isFinite(n) ? Math.max(0, Math.min(100, Math.round(n))) : 0;

/**
 * One file of the upload queue (spec §4 ISO upload): it waits for a slot, sends the file with
 * progress, and ends succeeded, failed (with the reason) or canceled, telling the queue.
 */
export const uploadMachine = setup({
  types: {
    input: {} as UploadInput,
    context: {} as UploadContext,
    events: {} as UploadEvent,
    // 'active': waiting or sending; 'ended': nothing more will happen to this file.
    tags: {} as 'active' | 'ended',
  },
  actors: {
    /** POST file/upload with the file's progress; stopping it aborts the request. */
    sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>(() => {
      throw new Error("uploadMachine: 'sendFile' is provided by the app (src/app)");
    }),
  },
  actions: {
    report: enqueueActions(({ context, enqueue }, outcome: UploadOutcome) => {
      if (!context.reportTo) return;
      enqueue.sendTo(context.reportTo, {
        type: 'upload.ended',
        uploadId: context.uploadId,
        outcome,
      });
    }),
  },
}).createMachine({
  id: 'upload',
  description:
    'One file of the ISO upload queue: waits for a slot, sends the file with its progress percent, ends succeeded, failed or canceled and tells the queue.',
  context: ({ input }) => ({
    uploadId: input.uploadId,
    file: input.file,
    groupKey: input.groupKey,
    percent: 0,
    error: null,
    reportTo: input.reportTo ?? null,
  }),
  initial: 'queued',
  states: {
    queued: {
      tags: ['active'],
      on: {
        'upload.startRequested': 'uploading',
        'upload.cancelRequested': 'canceled',
      },
    },
    uploading: {
      tags: ['active'],
      invoke: {
        src: 'sendFile',
        input: ({ context }) => ({ file: context.file, groupKey: context.groupKey }),
      },
      on: {
        'upload.progressed': {
          actions: assign({ percent: ({ event }) => clampPercent(event.percent) }),
        },
        'upload.succeeded': 'succeeded',
        'upload.failed': {
          target: 'failed',
          actions: assign({ error: ({ event }) => errorMessage(event.error) }),
        },
        // Leaving the state stops the effect, which aborts the request.
        'upload.cancelRequested': 'canceled',
      },
    },
    succeeded: {
      tags: ['ended'],
      entry: [assign({ percent: 100 }), { type: 'report', params: 'succeeded' }],
    },
    failed: { tags: ['ended'], entry: { type: 'report', params: 'failed' } },
    canceled: { tags: ['ended'], entry: { type: 'report', params: 'canceled' } },
  },
});

export type UploadActorRef = ActorRefFrom<typeof uploadMachine>;
export type UploadSnapshot = SnapshotFrom<typeof uploadMachine>;
