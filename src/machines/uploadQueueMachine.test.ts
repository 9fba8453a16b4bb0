import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, SimulatedClock, type AnyActorRef } from 'xstate';
import { flush } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { uploadMachine, type UploadEvent, type UploadReport } from './uploadMachine';
import { MAX_PARALLEL_UPLOADS, uploadQueueMachine } from './uploadQueueMachine';
import {
  selectCanCancelUpload,
  selectHasEndedUploads,
  selectIsUploading,
  selectUploadError,
  selectUploadName,
  selectUploadPercent,
  selectUploadStatus,
  selectUploads,
  type UploadStatus,
} from './uploadQueueMachine.selectors';

const WS = 'a1b2c3';

/** A file of `size` bytes; only its name and size matter to the machines. */
const fileOf = (name: string, size = 10) => new File(['x'.repeat(size)], name);

/** The queue over a fake network: each sending file's callbacks, and the aborted ones. */
function startQueue() {
  const sending = new Map<string, (event: UploadEvent) => void>();
  const aborted: string[] = [];
  const reports: UploadReport[] = [];
  const parent = createActor(
    createMachine({
      on: { 'upload.ended': { actions: ({ event }) => reports.push(event as UploadReport) } },
    }),
  ).start();
  const actor = createActor(
    uploadQueueMachine.provide({
      actors: {
        upload: uploadMachine.provide({
          actors: {
            sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>(
              ({ input, sendBack }) => {
                expect(input.groupKey).toBe(WS);
                sending.set(input.file.name, sendBack);
                return () => {
                  if (sending.delete(input.file.name)) aborted.push(input.file.name);
                };
              },
            ),
          },
        }),
      },
    }),
    { clock: new SimulatedClock(), input: { groupKey: WS, reportTo: parent as AnyActorRef } },
  ).start();
  const uploads = () => selectUploads(actor.getSnapshot());
  const row = (name: string) => {
    const upload = uploads().find((u) => selectUploadName(u.getSnapshot()) === name);
    if (!upload) throw new Error(`no upload of ${name}`);
    return upload;
  };
  const status = (name: string) => selectUploadStatus(row(name).getSnapshot());
  /** The fake network answers for a file being sent; its callback is gone afterwards. */
  const answer = (name: string, event: UploadEvent) => {
    const sendBack = sending.get(name);
    if (!sendBack) throw new Error(`${name} is not being sent`);
    if (event.type !== 'upload.progressed') sending.delete(name);
    sendBack(event);
  };
  return { actor, sending, aborted, reports, uploads, row, status, answer };
}

const names = (n: number) => Array.from({ length: n }, (_, i) => `f${i + 1}.iso`);

describe('uploadQueueMachine', () => {
  it(`sends at most ${MAX_PARALLEL_UPLOADS} files at once; the others wait in order`, async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: names(5).map((n) => fileOf(n)) });
    await flush();
    expect([...q.sending.keys()]).toEqual(['f1.iso', 'f2.iso', 'f3.iso']);
    expect(names(5).map(q.status)).toEqual([
      'uploading',
      'uploading',
      'uploading',
      'queued',
      'queued',
    ]);
    expect(selectIsUploading(q.actor.getSnapshot())).toBe(true);
    expect(MAX_PARALLEL_UPLOADS).toBe(3);

    q.answer('f2.iso', { type: 'upload.succeeded' });
    await flush();
    expect([...q.sending.keys()]).toEqual(['f1.iso', 'f3.iso', 'f4.iso']);
    q.answer('f1.iso', { type: 'upload.failed', error: { status: 400, message: 'Nope' } });
    await flush();
    expect([...q.sending.keys()]).toEqual(['f3.iso', 'f4.iso', 'f5.iso']);
  });

  it('shows each file its own progress percent, 100 once it succeeded', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso'), fileOf('b.txt')] });
    await flush();
    q.answer('a.iso', { type: 'upload.progressed', percent: 42.4 });
    q.answer('b.txt', { type: 'upload.progressed', percent: 7 });
    expect(selectUploadPercent(q.row('a.iso').getSnapshot())).toBe(42);
    expect(selectUploadPercent(q.row('b.txt').getSnapshot())).toBe(7);
    q.answer('a.iso', { type: 'upload.succeeded' });
    expect(selectUploadPercent(q.row('a.iso').getSnapshot())).toBe(100);
    expect(q.status('a.iso')).toBe('succeeded');
  });

  it('keeps the error of a failed file on that file only', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso'), fileOf('b.iso')] });
    await flush();
    q.answer('a.iso', {
      type: 'upload.failed',
      error: { status: 400, message: 'InvalidOperation The file is too large.' },
    });
    expect(q.status('a.iso')).toBe('failed');
    expect(selectUploadError(q.row('a.iso').getSnapshot())).toBe(
      'This cannot be done: the file is too large.',
    );
    expect(selectUploadError(q.row('b.iso').getSnapshot())).toBeNull();
    expect(q.status('b.iso')).toBe('uploading');
  });

  it('reports every ended upload to its parent, and is idle once none waits or sends', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso'), fileOf('b.iso')] });
    await flush();
    q.answer('a.iso', { type: 'upload.succeeded' });
    q.answer('b.iso', { type: 'upload.failed', error: new Error('network') });
    expect(q.reports).toEqual([
      { type: 'upload.ended', uploadId: q.row('a.iso').id, outcome: 'succeeded' },
      { type: 'upload.ended', uploadId: q.row('b.iso').id, outcome: 'failed' },
    ]);
    expect(selectIsUploading(q.actor.getSnapshot())).toBe(false);
    expect(q.actor.getSnapshot().value).toBe('idle');
  });

  it('cancels a sending file (aborting its request) and a waiting one, freeing the slot', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: names(5).map((n) => fileOf(n)) });
    await flush();
    q.actor.send({ type: 'upload.cancelRequested', uploadId: q.row('f5.iso').id });
    expect(q.status('f5.iso')).toBe('canceled');
    expect(selectCanCancelUpload(q.row('f5.iso').getSnapshot())).toBe(false);
    q.actor.send({ type: 'upload.cancelRequested', uploadId: q.row('f1.iso').id });
    await flush();
    expect(q.aborted).toEqual(['f1.iso']);
    expect(q.status('f1.iso')).toBe('canceled');
    expect([...q.sending.keys()]).toEqual(['f2.iso', 'f3.iso', 'f4.iso']);
    expect(q.reports.map((r) => r.outcome)).toEqual(['canceled', 'canceled']);
  });

  it('removes a file from the list, aborting it when it was being sent', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: names(4).map((n) => fileOf(n)) });
    await flush();
    q.actor.send({ type: 'upload.removeRequested', uploadId: q.row('f2.iso').id });
    await flush();
    expect(q.aborted).toEqual(['f2.iso']);
    expect(q.uploads().map((u) => selectUploadName(u.getSnapshot()))).toEqual([
      'f1.iso',
      'f3.iso',
      'f4.iso',
    ]);
    expect([...q.sending.keys()]).toEqual(['f1.iso', 'f3.iso', 'f4.iso']);
  });

  it('clears the ended uploads and keeps the others', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso'), fileOf('b.iso')] });
    await flush();
    expect(selectHasEndedUploads(q.actor.getSnapshot())).toBe(false);
    q.answer('a.iso', { type: 'upload.succeeded' });
    expect(selectHasEndedUploads(q.actor.getSnapshot())).toBe(true);
    q.actor.send({ type: 'upload.clearRequested' });
    expect(q.uploads().map((u) => selectUploadName(u.getSnapshot()))).toEqual(['b.iso']);
    expect(selectHasEndedUploads(q.actor.getSnapshot())).toBe(false);
  });

  it('makes the same file chosen twice two uploads', async () => {
    const q = startQueue();
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso')] });
    q.actor.send({ type: 'upload.filesChosen', files: [fileOf('a.iso')] });
    const ids = q.uploads().map((u) => u.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(uploadQueueMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ groupKey: WS }],
        payloads: [{ type: 'upload.filesChosen', files: [fileOf('a.iso')] }],
      }),
    ).toEqual([]);
    expect(
      unreachedStateIds(uploadMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ uploadId: 'u', file: fileOf('a.iso'), groupKey: WS }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of one file's life (spec §4 ISO upload): an abstract machine without effects
 * whose every transition drives a real upload through a fake network.
 */
describe('uploadMachine against its model', () => {
  type ModelEvent =
    | { type: 'START' }
    | { type: 'PROGRESS' }
    | { type: 'SUCCEED' }
    | { type: 'FAIL' }
    | { type: 'CANCEL' };
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'uploadModel',
    initial: 'queued',
    states: {
      queued: { on: { START: 'uploading', CANCEL: 'canceled' } },
      uploading: {
        on: { PROGRESS: 'uploading', SUCCEED: 'succeeded', FAIL: 'failed', CANCEL: 'canceled' },
      },
      succeeded: {},
      failed: {},
      canceled: {},
    },
  });
  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, uploadMachine, {
        states: {
          queued: 'queued',
          uploading: 'uploading',
          succeeded: 'succeeded',
          failed: 'failed',
          canceled: 'canceled',
        },
        events: {
          START: 'upload.startRequested',
          PROGRESS: 'upload.progressed',
          SUCCEED: 'upload.succeeded',
          FAIL: 'upload.failed',
          CANCEL: 'upload.cancelRequested',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      let sendBack: ((event: UploadEvent) => void) | null = null;
      let aborts = 0;
      const reports: UploadReport[] = [];
      const parent = createActor(
        createMachine({
          on: { 'upload.ended': { actions: ({ event }) => reports.push(event as UploadReport) } },
        }),
      ).start();
      const actor = createActor(
        uploadMachine.provide({
          actors: {
            sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>((args) => {
              sendBack = args.sendBack;
              return () => {
                aborts++;
              };
            }),
          },
        }),
        {
          input: {
            uploadId: 'u1',
            file: fileOf('a.iso'),
            groupKey: WS,
            reportTo: parent as AnyActorRef,
          },
        },
      ).start();
      let progress = 0;
      const expectEnded = (outcome: string) => () => {
        expect(selectUploadStatus(actor.getSnapshot())).toBe(outcome);
        expect(reports).toEqual([{ type: 'upload.ended', uploadId: 'u1', outcome }]);
      };
      await path.test({
        states: {
          queued: () => expect(selectUploadStatus(actor.getSnapshot())).toBe('queued'),
          uploading: () => {
            expect(selectUploadStatus(actor.getSnapshot())).toBe('uploading');
            expect(selectUploadPercent(actor.getSnapshot())).toBe(progress);
          },
          succeeded: () => {
            expectEnded('succeeded')();
            expect(selectUploadPercent(actor.getSnapshot())).toBe(100);
          },
          failed: () => {
            expectEnded('failed')();
            expect(selectUploadError(actor.getSnapshot())).toBe('refused');
          },
          canceled: () => {
            expectEnded('canceled')();
            expect(aborts).toBe(sendBack ? 1 : 0);
          },
        },
        events: {
          START: () => actor.send({ type: 'upload.startRequested' }),
          PROGRESS: () => {
            progress += 10;
            sendBack?.({ type: 'upload.progressed', percent: progress });
          },
          SUCCEED: () => sendBack?.({ type: 'upload.succeeded' }),
          FAIL: () =>
            sendBack?.({ type: 'upload.failed', error: { status: 400, message: 'refused' } }),
          CANCEL: () => actor.send({ type: 'upload.cancelRequested' }),
        },
      });
    });
  }
});

/**
 * Model-based test of the queue (spec §4 ISO upload: 3 at once, the others waiting in order):
 * files chosen one at a time, and uploads ending, failing, canceled, taken off the list and
 * cleared. The model counts the files sending and waiting; the test keeps every file's expected
 * status and checks the list, what is sent, what is aborted and what the Files tab is told.
 */
describe('uploadQueueMachine against its model', () => {
  type ModelEvent =
    | { type: 'CHOSEN' }
    | { type: 'SUCCEEDED' }
    | { type: 'FAILED' }
    | { type: 'CANCELED' }
    | { type: 'CANCELED_WAITING' }
    | { type: 'REMOVED' }
    | { type: 'CLEARED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'uploadQueueModel',
    initial: 'idle',
    states: {
      idle: { on: { CHOSEN: 'sending1', CLEARED: 'idle' } },
      sending1: {
        on: {
          CHOSEN: 'sending2',
          SUCCEEDED: 'idle',
          FAILED: 'idle',
          REMOVED: 'idle',
          CLEARED: 'sending1',
        },
      },
      sending2: { on: { CHOSEN: 'sending3', SUCCEEDED: 'sending1', CANCELED: 'sending1' } },
      sending3: { on: { CHOSEN: 'sending3Waiting1', SUCCEEDED: 'sending2', REMOVED: 'sending2' } },
      // The waiting file takes the slot that the next file to end frees.
      sending3Waiting1: {
        on: {
          SUCCEEDED: 'sending3',
          REMOVED: 'sending3',
          CANCELED_WAITING: 'sending3',
          CLEARED: 'sending3Waiting1',
        },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, uploadQueueMachine, {
        states: {
          idle: 'idle',
          sending1: 'sending',
          sending2: 'sending',
          sending3: 'sending',
          sending3Waiting1: 'sending',
        },
        events: {
          CHOSEN: 'upload.filesChosen',
          // The uploads report how they ended; a cancel is asked of the queue first.
          SUCCEEDED: 'upload.ended',
          FAILED: 'upload.ended',
          CANCELED: ['upload.cancelRequested', 'upload.ended'],
          CANCELED_WAITING: ['upload.cancelRequested', 'upload.ended'],
          REMOVED: 'upload.removeRequested',
          CLEARED: 'upload.clearRequested',
        },
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  for (const path of paths) {
    it(path.description, async () => {
      const q = startQueue();
      /** Every file on the list, in order, with the status it should show. */
      let files: Array<{ name: string; status: UploadStatus }> = [];
      const reported: UploadReport[] = [];
      const aborted: string[] = [];
      let chosen = 0;
      const oldest = (status: UploadStatus) => files.find((f) => f.status === status);
      /** Fills the free slots, first come first served, as the queue must. */
      const startWaiting = () => {
        const sending = files.filter((f) => f.status === 'uploading').length;
        for (const f of files
          .filter((f) => f.status === 'queued')
          .slice(0, MAX_PARALLEL_UPLOADS - sending)) {
          f.status = 'uploading';
        }
      };
      const end = async (name: string, outcome: 'succeeded' | 'failed' | 'canceled') => {
        const f = files.find((file) => file.name === name);
        if (f) f.status = outcome;
        reported.push({ type: 'upload.ended', uploadId: q.row(name).id, outcome });
        startWaiting();
        await flush();
      };
      const expectQueue = (sending: number, waiting: number) => () => {
        expect(files.filter((f) => f.status === 'uploading')).toHaveLength(sending);
        expect(files.filter((f) => f.status === 'queued')).toHaveLength(waiting);
        expect(q.uploads().map((u) => selectUploadName(u.getSnapshot()))).toEqual(
          files.map((f) => f.name),
        );
        expect(files.map((f) => q.status(f.name))).toEqual(files.map((f) => f.status));
        expect([...q.sending.keys()].sort()).toEqual(
          files
            .filter((f) => f.status === 'uploading')
            .map((f) => f.name)
            .sort(),
        );
        expect(q.aborted).toEqual(aborted);
        expect(selectIsUploading(q.actor.getSnapshot())).toBe(sending + waiting > 0);
        expect(selectHasEndedUploads(q.actor.getSnapshot())).toBe(
          files.some((f) => !['queued', 'uploading'].includes(f.status)),
        );
        expect(q.reports).toEqual(reported);
      };
      await path.test({
        states: {
          idle: expectQueue(0, 0),
          sending1: expectQueue(1, 0),
          sending2: expectQueue(2, 0),
          sending3: expectQueue(3, 0),
          sending3Waiting1: expectQueue(3, 1),
        },
        events: {
          CHOSEN: async () => {
            const name = `f${++chosen}.iso`;
            files = [...files, { name, status: 'queued' }];
            startWaiting();
            q.actor.send({ type: 'upload.filesChosen', files: [fileOf(name)] });
            await flush();
          },
          SUCCEEDED: () => {
            const name = oldest('uploading')?.name ?? '';
            q.answer(name, { type: 'upload.succeeded' });
            return end(name, 'succeeded');
          },
          FAILED: () => {
            const name = oldest('uploading')?.name ?? '';
            q.answer(name, { type: 'upload.failed', error: { status: 400, message: 'Nope' } });
            return end(name, 'failed');
          },
          CANCELED: () => {
            const name = oldest('uploading')?.name ?? '';
            aborted.push(name);
            q.actor.send({ type: 'upload.cancelRequested', uploadId: q.row(name).id });
            return end(name, 'canceled');
          },
          CANCELED_WAITING: () => {
            const name = oldest('queued')?.name ?? '';
            q.actor.send({ type: 'upload.cancelRequested', uploadId: q.row(name).id });
            return end(name, 'canceled');
          },
          REMOVED: async () => {
            const name = oldest('uploading')?.name ?? '';
            aborted.push(name);
            q.actor.send({ type: 'upload.removeRequested', uploadId: q.row(name).id });
            files = files.filter((f) => f.name !== name);
            startWaiting();
            await flush();
          },
          CLEARED: async () => {
            files = files.filter((f) => f.status === 'queued' || f.status === 'uploading');
            q.actor.send({ type: 'upload.clearRequested' });
            await flush();
          },
        },
      });
    });
  }
});
