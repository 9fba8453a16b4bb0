import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import type { DiskImage, TemplateCreated } from '../api/diskImages';
import { diskImagesMachine } from './diskImagesMachine';
import {
  selectDiskImageActionError,
  selectDiskImageDeleteCandidate,
  selectDiskImages,
  selectDiskImageUploads,
  selectIsDiskImageListLoading,
} from './diskImagesMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { uploadMachine, type UploadEvent } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';

const image = (name: string, templates: DiskImage['templates'] = []): DiskImage => ({
  name,
  size: 200_000,
  virtualSize: 8 * 1024 * 1024,
  templates,
});

/** The panel over a fake server whose images folder the test changes. */
function startPanel(options: { refuseDelete?: string } = {}) {
  let folder = [image('a.qcow2')];
  const calls: string[] = [];
  const network = new Map<string, (event: UploadEvent) => void>();
  const actor = createActor(
    diskImagesMachine.provide({
      actors: {
        listImages: fromPromise<DiskImage[]>(async () => {
          calls.push('list');
          return folder;
        }),
        deleteImage: fromPromise<unknown, { name: string }>(async ({ input }) => {
          calls.push(`delete ${input.name}`);
          if (options.refuseDelete) throw { status: 400, message: options.refuseDelete };
          folder = folder.filter((i) => i.name !== input.name);
          return true;
        }),
        createTemplate: fromPromise<TemplateCreated, { image: DiskImage }>(async ({ input }) => {
          calls.push(`template ${input.image.name}`);
          folder = folder.map((i) =>
            i.name === input.image.name ? image(i.name, [{ id: 't1', name: 'a' }]) : i,
          );
          return { id: 't1', name: 'a' };
        }),
        uploads: uploadQueueMachine.provide({
          actors: {
            upload: uploadMachine.provide({
              actors: {
                sendFile: fromCallback<UploadEvent, { file: File; groupKey: string }>(
                  ({ input, sendBack }) => {
                    network.set(input.file.name, sendBack);
                  },
                ),
              },
            }),
          },
        }),
      },
    }),
  ).start();
  return {
    actor,
    calls,
    network,
    add: (name: string) => (folder = [...folder, image(name)]),
    names: () => selectDiskImages(actor.getSnapshot()).map((i) => i.name),
  };
}

describe('diskImagesMachine', () => {
  it('lists the images when it starts, and again when an upload ends', async () => {
    const p = startPanel();
    expect(selectIsDiskImageListLoading(p.actor.getSnapshot())).toBe(true);
    await flush();
    expect(p.names()).toEqual(['a.qcow2']);
    const queue = selectDiskImageUploads(p.actor.getSnapshot());
    queue?.send({ type: 'upload.filesChosen', files: [new File(['x'], 'b.vmdk')] });
    await flush();
    p.network.get('b.vmdk')?.({ type: 'upload.progressed', percent: 40 });
    expect(queue?.getSnapshot().context.uploads[0]?.getSnapshot().context.percent).toBe(40);
    p.add('b.qcow2');
    p.network.get('b.vmdk')?.({ type: 'upload.succeeded' });
    await flush();
    expect(p.calls).toEqual(['list', 'list']);
    expect(p.names()).toEqual(['a.qcow2', 'b.qcow2']);
  });

  it('deletes only after confirmation, and shows why the server refused', async () => {
    const p = startPanel({
      refuseDelete: 'InvalidOperation a.qcow2 is in use by the template web',
    });
    await flush();
    p.actor.send({ type: 'image.deleteRequested', name: 'nope.qcow2' });
    expect(selectDiskImageDeleteCandidate(p.actor.getSnapshot())).toBeNull();
    p.actor.send({ type: 'image.deleteRequested', name: 'a.qcow2' });
    expect(selectDiskImageDeleteCandidate(p.actor.getSnapshot())).toBe('a.qcow2');
    p.actor.send({ type: 'image.deleteCanceled' });
    expect(p.calls).toEqual(['list']);
    p.actor.send({ type: 'image.deleteRequested', name: 'a.qcow2' });
    p.actor.send({ type: 'image.deleteConfirmed' });
    await flush();
    expect(p.calls).toEqual(['list', 'delete a.qcow2']);
    expect(selectDiskImageActionError(p.actor.getSnapshot())).toMatch(/in use by the template web/);
    p.actor.send({ type: 'alert.dismissed' });
    expect(selectDiskImageActionError(p.actor.getSnapshot())).toBeNull();
  });

  it('makes a template from an image, tells of it and reads the list again', async () => {
    const p = startPanel();
    await flush();
    const created: string[] = [];
    p.actor.on('template.created', (e) => created.push(e.id));
    p.actor.send({ type: 'image.templateRequested', name: 'a.qcow2' });
    await flush();
    await flush();
    expect(created).toEqual(['t1']);
    expect(p.calls).toEqual(['list', 'template a.qcow2', 'list']);
    expect(selectDiskImages(p.actor.getSnapshot())[0]?.templates).toEqual([
      { id: 't1', name: 'a' },
    ]);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(diskImagesMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        payloads: [
          { type: 'xstate.done.actor.listImages', output: [image('a.qcow2')] },
          { type: 'image.deleteRequested', name: 'a.qcow2' },
          { type: 'image.templateRequested', name: 'a.qcow2' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test of the `removal` region: Delete asks for confirmation, Cancel drops it, and a
 * confirmed delete either reads the list again or shows the server's refusal; each delete
 * answered by the test.
 */
describe('diskImagesMachine removal against its model', () => {
  type ModelEvent =
    | { type: 'REQUEST' }
    | { type: 'CONFIRM' }
    | { type: 'CANCEL' }
    | { type: 'DELETED' }
    | { type: 'REFUSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'diskImageRemovalModel',
    initial: 'idle',
    states: {
      idle: { on: { REQUEST: 'confirming' } },
      confirming: { on: { CONFIRM: 'deleting', CANCEL: 'idle' } },
      deleting: { on: { DELETED: 'idle', REFUSED: 'idle' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, diskImagesMachine, {
        states: {
          idle: 'removal.idle',
          confirming: 'removal.confirming',
          deleting: 'removal.deleting',
        },
        events: {
          REQUEST: 'image.deleteRequested',
          CONFIRM: 'image.deleteConfirmed',
          CANCEL: 'image.deleteCanceled',
          DELETED: 'xstate.done.actor.deleteImage',
          REFUSED: 'xstate.error.actor.deleteImage',
        },
        // The list and the template regions have tests of their own above.
        unmodelledStates: ['list', 'templating'],
        unmodelledEvents: [
          'upload.ended',
          'images.refreshRequested',
          'image.templateRequested',
          'alert.dismissed',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const REFUSAL = 'The image is in use by: web.';

  for (const path of paths) {
    it(path.description, async () => {
      const deletes: Array<Deferred<unknown>> = [];
      let lists = 0;
      const actor = createActor(
        diskImagesMachine.provide({
          actors: {
            listImages: fromPromise<DiskImage[]>(async () => {
              lists += 1;
              return [image('a.qcow2')];
            }),
            deleteImage: fromPromise<unknown, { name: string }>(() => {
              const d = deferred<unknown>();
              deletes.push(d);
              return d.promise;
            }),
          },
        }),
      ).start();
      await flush();
      let confirmed = 0;
      let reads = 1;
      let error: string | null = null;
      const expectRemoval = (state: 'idle' | 'confirming' | 'deleting') => () => {
        const snapshot = actor.getSnapshot();
        expect(snapshot.matches({ removal: state })).toBe(true);
        expect(selectDiskImageDeleteCandidate(snapshot)).toBe(
          state === 'confirming' ? 'a.qcow2' : null,
        );
        expect(selectDiskImageActionError(snapshot)).toBe(error);
        expect(deletes).toHaveLength(confirmed);
        expect(lists).toBe(reads);
      };
      await path.test({
        states: {
          idle: expectRemoval('idle'),
          confirming: expectRemoval('confirming'),
          deleting: expectRemoval('deleting'),
        },
        events: {
          REQUEST: async () => {
            error = null;
            actor.send({ type: 'image.deleteRequested', name: 'a.qcow2' });
            await flush();
          },
          CONFIRM: async () => {
            confirmed += 1;
            actor.send({ type: 'image.deleteConfirmed' });
            await flush();
          },
          CANCEL: async () => {
            actor.send({ type: 'image.deleteCanceled' });
            await flush();
          },
          DELETED: async () => {
            reads += 1;
            deletes.at(-1)?.resolve(true);
            await flush();
          },
          REFUSED: async () => {
            error = REFUSAL;
            deletes.at(-1)?.reject({ status: 400, message: REFUSAL });
            await flush();
          },
        },
      });
      actor.stop();
    });
  }
});
