import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import {
  fileMarkdown,
  isUploadable,
  UPLOAD_LIMIT_BYTES,
  type DocumentFile,
} from '../domain/documentFiles';
import { imageManagerMachine, type ImageManagerReport } from './imageManagerMachine';
import {
  selectCanRequestDelete,
  selectCanUpload,
  selectDeleteTarget,
  selectDocumentFiles,
  selectImageErrors,
  selectImageLoadError,
  selectIsConfirmingDelete,
  selectIsDeleting,
  selectIsLoadingImages,
  selectUploadingName,
  selectWaitingUploads,
} from './imageManagerMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const doc = (filename: string): DocumentFile => ({ filename, url: `/docs/ws-1/${filename}` });

const FILES = [doc('net-ab12.png'), doc('guide-cd34.pdf')];

/** A chosen file; `size` stands in for the bytes, which the check never reads. */
function chosen(name: string, type: string, size = 1_000): File {
  const file = new File(['x'], name, { type });
  Object.defineProperty(file, 'size', { value: size });
  return file;
}

const png = (name = 'net.png') => chosen(name, 'image/png');

interface Call<I, O> {
  input: I;
  result: Deferred<O>;
}

function startManager() {
  const lists: Array<Call<{ workspaceId: string }, DocumentFile[]>> = [];
  const uploads: Array<Call<{ workspaceId: string; file: File }, DocumentFile>> = [];
  const deletes: Array<Call<{ workspaceId: string; filename: string }, unknown>> = [];
  const recorder =
    <I, O>(calls: Array<Call<I, O>>) =>
    ({ input }: { input: I }) => {
      const result = deferred<O>();
      calls.push({ input, result });
      return result.promise;
    };
  // The document editor that runs the manager: what it is asked to insert.
  const inserted: string[] = [];
  const reportTo = createActor(
    fromCallback<ImageManagerReport>(({ receive }) =>
      receive((event) => inserted.push(event.markdown)),
    ),
  ).start();
  const actor = createActor(
    imageManagerMachine.provide({
      actors: {
        listImages: fromPromise(recorder(lists)),
        uploadImage: fromPromise(recorder(uploads)),
        deleteImage: fromPromise(recorder(deletes)),
      },
    }),
    { input: { workspaceId: 'ws-1', reportTo } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  const names = () => selectDocumentFiles(snapshot()).map((f) => f.filename);
  const load = async (files: DocumentFile[] = FILES) => {
    lists.at(-1)?.result.resolve(files);
    await flush();
  };
  const choose = (...files: File[]) => actor.send({ type: 'image.uploadRequested', files });
  const sent = () => uploads.map((u) => u.input.file.name);
  return { actor, lists, uploads, deletes, inserted, snapshot, names, load, choose, sent };
}

describe('the upload check', () => {
  it('passes png, jpeg, gif, webp and pdf files under 50,000,000 bytes', () => {
    for (const [name, type] of [
      ['a.png', 'image/png'],
      ['a.jpg', 'image/jpeg'],
      ['a.gif', 'image/gif'],
      ['a.webp', 'image/webp'],
      ['a.pdf', 'application/pdf'],
    ] as const) {
      expect(isUploadable(chosen(name, type, UPLOAD_LIMIT_BYTES - 1)), name).toBe(true);
    }
  });

  it('refuses a file of 50,000,000 bytes or more', () => {
    expect(isUploadable(chosen('a.png', 'image/png', UPLOAD_LIMIT_BYTES))).toBe(false);
  });

  it('refuses other types, by the reported type first, by the extension when there is none', () => {
    expect(isUploadable(chosen('a.svg', 'image/svg+xml'))).toBe(false);
    expect(isUploadable(chosen('a.txt', 'text/plain'))).toBe(false);
    expect(isUploadable(chosen('a.png', 'text/html'))).toBe(false);
    expect(isUploadable(chosen('a.JPEG', ''))).toBe(true);
    expect(isUploadable(chosen('a.iso', ''))).toBe(false);
  });
});

describe('fileMarkdown', () => {
  it('inserts an image with a leading ! and a pdf as a link', () => {
    expect(fileMarkdown(doc('net-ab12.png'))).toBe('![net-ab12.png](/docs/ws-1/net-ab12.png)');
    expect(fileMarkdown(doc('x.JPG'))).toBe('![x.JPG](/docs/ws-1/x.JPG)');
    expect(fileMarkdown(doc('guide-cd34.pdf'))).toBe('[guide-cd34.pdf](/docs/ws-1/guide-cd34.pdf)');
  });

  it('keeps brackets in the name and spaces or parentheses in the url from ending the link', () => {
    expect(fileMarkdown({ filename: 'a[1].png', url: '/docs/w/a (1).png' })).toBe(
      '![a\\[1\\].png](/docs/w/a%20%281%29.png)',
    );
  });
});

describe('imageManagerMachine', () => {
  it('loads the workspace files, then offers uploads', async () => {
    const m = startManager();
    expect(selectIsLoadingImages(m.snapshot())).toBe(true);
    expect(selectCanUpload(m.snapshot())).toBe(false);
    expect(m.lists.map((l) => l.input)).toEqual([{ workspaceId: 'ws-1' }]);
    await m.load();
    expect(m.names()).toEqual(['net-ab12.png', 'guide-cd34.pdf']);
    expect(selectCanUpload(m.snapshot())).toBe(true);
  });

  it('shows why the list failed to load, and loads it again on request', async () => {
    const m = startManager();
    m.lists[0]?.result.reject({ status: 400, message: 'ResourceNotFound' });
    await flush();
    expect(selectImageLoadError(m.snapshot())).toBe('It was not found: it may have been deleted.');
    expect(selectCanUpload(m.snapshot())).toBe(false);
    m.actor.send({ type: 'images.reloadRequested' });
    expect(m.lists).toHaveLength(2);
    expect(selectImageLoadError(m.snapshot())).toBeNull();
    await m.load();
    expect(m.names()).toHaveLength(2);
  });

  it('sends only the files that pass the check and silently ignores the others', async () => {
    const m = startManager();
    await m.load([]);
    m.choose(
      chosen('notes.txt', 'text/plain'),
      chosen('huge.png', 'image/png', UPLOAD_LIMIT_BYTES),
      png('a.png'),
      chosen('b.pdf', 'application/pdf'),
    );
    expect(m.sent()).toEqual(['a.png']);
    m.uploads[0]?.result.resolve(doc('a-1.png'));
    await flush();
    expect(m.sent()).toEqual(['a.png', 'b.pdf']);
    m.uploads[1]?.result.resolve(doc('b-2.pdf'));
    await flush();
    expect(m.names()).toEqual(['a-1.png', 'b-2.pdf']);
    expect(selectImageErrors(m.snapshot())).toEqual([]);
  });

  it('does nothing when no chosen file passes the check', async () => {
    const m = startManager();
    await m.load();
    m.choose(chosen('notes.txt', 'text/plain'));
    expect(m.uploads).toHaveLength(0);
    expect(selectUploadingName(m.snapshot())).toBeNull();
  });

  it('sends files one after another, to the workspace, showing the one being sent', async () => {
    const m = startManager();
    await m.load([]);
    m.choose(png('a.png'), png('b.png'), png('c.png'));
    expect(m.uploads.map((u) => u.input.workspaceId)).toEqual(['ws-1']);
    expect(selectUploadingName(m.snapshot())).toBe('a.png');
    expect(selectWaitingUploads(m.snapshot())).toBe(2);
    m.uploads[0]?.result.resolve(doc('a.png'));
    await flush();
    expect(m.sent()).toEqual(['a.png', 'b.png']);
    expect(selectUploadingName(m.snapshot())).toBe('b.png');
    expect(m.names()).toEqual(['a.png']);
  });

  it('queues files chosen while others are being sent', async () => {
    const m = startManager();
    await m.load([]);
    m.choose(png('a.png'));
    m.choose(png('b.png'), chosen('x.txt', 'text/plain'));
    expect(m.sent()).toEqual(['a.png']);
    expect(selectWaitingUploads(m.snapshot())).toBe(1);
    m.uploads[0]?.result.resolve(doc('a.png'));
    await flush();
    m.uploads[1]?.result.resolve(doc('b.png'));
    await flush();
    expect(m.sent()).toEqual(['a.png', 'b.png']);
    expect(selectUploadingName(m.snapshot())).toBeNull();
  });

  it('lists a failed upload with its file and goes on with the next one', async () => {
    const m = startManager();
    await m.load([]);
    m.choose(png('a.png'), png('b.png'));
    m.uploads[0]?.result.reject({ status: 400, message: 'InvalidImageType' });
    await flush();
    expect(selectImageErrors(m.snapshot())).toEqual([
      { filename: 'a.png', message: 'Invalid Image Type' },
    ]);
    expect(m.sent()).toEqual(['a.png', 'b.png']);
    m.uploads[1]?.result.resolve(doc('b.png'));
    await flush();
    expect(m.names()).toEqual(['b.png']);
    m.actor.send({ type: 'image.errorDismissed', index: 0 });
    expect(selectImageErrors(m.snapshot())).toEqual([]);
  });

  it('replaces a listed file when the server stores one of the same name', async () => {
    const m = startManager();
    await m.load([doc('a.png')]);
    m.choose(png('a.png'));
    m.uploads[0]?.result.resolve(doc('a.png'));
    await flush();
    expect(m.names()).toEqual(['a.png']);
  });

  it('asks for confirmation before deleting, and a cancel deletes nothing', async () => {
    const m = startManager();
    await m.load();
    m.actor.send({ type: 'image.deleteRequested', filename: 'net-ab12.png' });
    expect(selectIsConfirmingDelete(m.snapshot())).toBe(true);
    expect(selectDeleteTarget(m.snapshot())).toBe('net-ab12.png');
    expect(selectCanRequestDelete(m.snapshot())).toBe(false);
    m.actor.send({ type: 'image.deleteCancelled' });
    expect(selectDeleteTarget(m.snapshot())).toBeNull();
    expect(m.deletes).toHaveLength(0);
    expect(m.names()).toHaveLength(2);
  });

  it('deletes a confirmed file through the server, then from the list', async () => {
    const m = startManager();
    await m.load();
    m.actor.send({ type: 'image.deleteRequested', filename: 'net-ab12.png' });
    m.actor.send({ type: 'image.deleteConfirmed' });
    expect(selectIsDeleting(m.snapshot())).toBe(true);
    expect(m.deletes.map((d) => d.input)).toEqual([
      { workspaceId: 'ws-1', filename: 'net-ab12.png' },
    ]);
    m.deletes[0]?.result.resolve(undefined);
    await flush();
    expect(m.names()).toEqual(['guide-cd34.pdf']);
    expect(selectCanRequestDelete(m.snapshot())).toBe(true);
  });

  it('keeps a file the server refused to delete and lists the refusal', async () => {
    const m = startManager();
    await m.load();
    m.actor.send({ type: 'image.deleteRequested', filename: 'guide-cd34.pdf' });
    m.actor.send({ type: 'image.deleteConfirmed' });
    m.deletes[0]?.result.reject({ status: 400, message: 'ResourceNotFound' });
    await flush();
    expect(selectImageErrors(m.snapshot())).toEqual([
      { filename: 'guide-cd34.pdf', message: 'It was not found: it may have been deleted.' },
    ]);
    expect(m.names()).toHaveLength(2);
  });

  it('ignores a delete of a file that is not listed', async () => {
    const m = startManager();
    await m.load();
    m.actor.send({ type: 'image.deleteRequested', filename: 'other.png' });
    expect(selectIsConfirmingDelete(m.snapshot())).toBe(false);
  });

  it('confirms a delete while files are being sent', async () => {
    const m = startManager();
    await m.load();
    m.choose(png('a.png'));
    m.actor.send({ type: 'image.deleteRequested', filename: 'net-ab12.png' });
    m.actor.send({ type: 'image.deleteConfirmed' });
    expect(m.deletes).toHaveLength(1);
    expect(selectUploadingName(m.snapshot())).toBe('a.png');
  });

  it('hands the document editor the markdown of a listed file to insert, and nothing for another', async () => {
    const m = startManager();
    await m.load();
    m.actor.send({ type: 'image.insertRequested', filename: 'net-ab12.png' });
    m.actor.send({ type: 'image.insertRequested', filename: 'guide-cd34.pdf' });
    m.actor.send({ type: 'image.insertRequested', filename: 'gone.png' });
    expect(m.inserted).toEqual([
      '![net-ab12.png](/docs/ws-1/net-ab12.png)',
      '[guide-cd34.pdf](/docs/ws-1/guide-cd34.pdf)',
    ]);
  });

  it('reaches every state', () => {
    const done = (id: string, output: unknown) => ({ type: `xstate.done.actor.${id}`, output });
    expect(
      unreachedStateIds(imageManagerMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as unknown as {
            context: { files: unknown[]; queue: unknown[]; deleteTarget: string | null };
          };
          return JSON.stringify([
            snapshot.value,
            context.files.length > 0,
            Math.min(context.queue.length, 2),
            context.deleteTarget !== null,
          ]);
        },
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [
          done('listImages', FILES),
          done('uploadImage', doc('a.png')),
          { type: 'image.uploadRequested', files: [png()] },
          { type: 'image.deleteRequested', filename: 'net-ab12.png' },
          { type: 'image.insertRequested', filename: 'net-ab12.png' },
          { type: 'image.errorDismissed', index: 0 },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the upload queue (spec §5, one file at a time, rejected files silently
 * ignored) combined with the confirmed delete, driving the real actor.
 */
describe('imageManagerMachine against the upload queue and delete model', () => {
  type ModelEvent =
    | { type: 'CHOOSE_ACCEPTED' }
    | { type: 'CHOOSE_REJECTED' }
    | { type: 'UPLOAD_SUCCEEDED' }
    | { type: 'UPLOAD_FAILED' }
    | { type: 'DELETE_REQUESTED' }
    | { type: 'DELETE_CANCELLED' }
    | { type: 'DELETE_CONFIRMED' }
    | { type: 'DELETE_SUCCEEDED' }
    | { type: 'DELETE_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'imageManagerModel',
    initial: 'idle',
    states: {
      idle: {
        on: {
          CHOOSE_ACCEPTED: 'sendingOne',
          CHOOSE_REJECTED: 'idle',
          DELETE_REQUESTED: 'confirming',
        },
      },
      sendingOne: {
        on: {
          CHOOSE_ACCEPTED: 'sendingMore',
          CHOOSE_REJECTED: 'sendingOne',
          UPLOAD_SUCCEEDED: 'idle',
          UPLOAD_FAILED: 'idle',
        },
      },
      sendingMore: {
        on: {
          CHOOSE_REJECTED: 'sendingMore',
          UPLOAD_SUCCEEDED: 'sendingOne',
          UPLOAD_FAILED: 'sendingOne',
        },
      },
      confirming: {
        on: {
          DELETE_CANCELLED: 'idle',
          DELETE_CONFIRMED: 'deleting',
          CHOOSE_REJECTED: 'confirming',
        },
      },
      deleting: { on: { DELETE_SUCCEEDED: 'idle', DELETE_FAILED: 'idle' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, imageManagerMachine, {
        states: {
          idle: ['ready.uploads.idle', 'ready.removal.idle'],
          sendingOne: 'ready.uploads.uploading',
          sendingMore: 'ready.uploads.uploading',
          confirming: 'ready.removal.confirming',
          deleting: 'ready.removal.deleting',
        },
        events: {
          CHOOSE_ACCEPTED: 'image.uploadRequested',
          CHOOSE_REJECTED: 'image.uploadRequested',
          UPLOAD_SUCCEEDED: 'xstate.done.actor.uploadImage',
          UPLOAD_FAILED: 'xstate.error.actor.uploadImage',
          DELETE_REQUESTED: 'image.deleteRequested',
          DELETE_CANCELLED: 'image.deleteCancelled',
          DELETE_CONFIRMED: 'image.deleteConfirmed',
          DELETE_SUCCEEDED: 'xstate.done.actor.deleteImage',
          DELETE_FAILED: 'xstate.error.actor.deleteImage',
        },
        // Every path starts from a loaded list; loading and its failure: the unit tests above.
        unmodelledStates: ['loading', 'failed'],
        unmodelledEvents: [
          'image.insertRequested',
          'image.errorDismissed',
          'images.reloadRequested',
        ],
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
      const m = startManager();
      // Enough files for every delete a path makes; each delete takes the first listed.
      await m.load(Array.from({ length: 10 }, (_, i) => doc(`old-${i}.png`)));
      const expected = { files: 10, sent: 0, errors: 0 };
      let chosenCount = 0;
      const settleUpload = async (ok: boolean) => {
        const upload = m.uploads[expected.sent - 1];
        if (ok) {
          upload?.result.resolve(doc(`new-${expected.sent}.png`));
          expected.files += 1;
        } else {
          upload?.result.reject({ status: 400, message: 'InvalidImageType' });
          expected.errors += 1;
        }
        await flush();
      };
      const settleDelete = async (ok: boolean) => {
        const removal = m.deletes.at(-1);
        if (ok) {
          removal?.result.resolve(undefined);
          expected.files -= 1;
        } else {
          removal?.result.reject({ status: 400, message: 'ResourceNotFound' });
          expected.errors += 1;
        }
        await flush();
      };
      const expectManager = (uploading: boolean, waiting: number, removal: string) => () => {
        const snapshot = m.snapshot();
        expect(selectUploadingName(snapshot) !== null).toBe(uploading);
        expect(selectWaitingUploads(snapshot)).toBe(waiting);
        expect(m.uploads).toHaveLength(expected.sent);
        expect(selectDocumentFiles(snapshot)).toHaveLength(expected.files);
        expect(selectImageErrors(snapshot)).toHaveLength(expected.errors);
        expect(selectIsConfirmingDelete(snapshot)).toBe(removal === 'confirming');
        expect(selectIsDeleting(snapshot)).toBe(removal === 'deleting');
      };
      await path.test({
        states: {
          idle: expectManager(false, 0, 'idle'),
          sendingOne: expectManager(true, 0, 'idle'),
          sendingMore: expectManager(true, 1, 'idle'),
          confirming: expectManager(false, 0, 'confirming'),
          deleting: expectManager(false, 0, 'deleting'),
        },
        events: {
          CHOOSE_ACCEPTED: () => {
            // A file starts at once only when none is being sent.
            if (selectUploadingName(m.snapshot()) === null) expected.sent += 1;
            m.choose(png(`chosen-${++chosenCount}.png`));
          },
          CHOOSE_REJECTED: () => m.choose(chosen('notes.txt', 'text/plain')),
          UPLOAD_SUCCEEDED: async () => {
            const more = selectWaitingUploads(m.snapshot()) > 0;
            await settleUpload(true);
            if (more) expected.sent += 1;
          },
          UPLOAD_FAILED: async () => {
            const more = selectWaitingUploads(m.snapshot()) > 0;
            await settleUpload(false);
            if (more) expected.sent += 1;
          },
          DELETE_REQUESTED: () => {
            const [first] = selectDocumentFiles(m.snapshot());
            m.actor.send({ type: 'image.deleteRequested', filename: first?.filename ?? '' });
          },
          DELETE_CANCELLED: () => m.actor.send({ type: 'image.deleteCancelled' }),
          DELETE_CONFIRMED: () => m.actor.send({ type: 'image.deleteConfirmed' }),
          DELETE_SUCCEEDED: () => settleDelete(true),
          DELETE_FAILED: () => settleDelete(false),
        },
      });
    });
  }
});
