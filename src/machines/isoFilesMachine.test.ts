import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { IsoUsageReport } from '../api/files';
import { isoFilesMachine, LIST_REFRESH_DELAY_MS } from './isoFilesMachine';
import {
  selectDeleteCandidate,
  selectDeleteError,
  selectIsDeleting,
  selectIsIsoListLoading,
  selectIsoListError,
  selectIsoPaths,
  selectUploadQueue,
  selectUsage,
  selectUsageError,
  selectUsagePath,
} from './isoFilesMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import { uploadMachine, type UploadEvent } from './uploadMachine';
import { uploadQueueMachine } from './uploadQueueMachine';

const WS = 'a1b2c3';
const USAGE: IsoUsageReport = {
  templates: [{ id: 't1', name: 'kali', workspaceName: 'Lab' }],
  activeGamespaces: [{ id: 'g1', name: 'Lab' }],
};

/** The Files tab over a fake server whose ISO folder the test changes. */
function startFiles(options: { failList?: boolean; failDelete?: boolean } = {}) {
  const clock = new SimulatedClock();
  let folder = [`${WS}/a.iso`];
  const calls: string[] = [];
  const network = new Map<string, (event: UploadEvent) => void>();
  const actor = createActor(
    isoFilesMachine.provide({
      actors: {
        listIsos: fromPromise<string[], { workspaceId: string }>(async ({ input }) => {
          calls.push(`list ${input.workspaceId}`);
          if (options.failList) throw { status: 500, message: 'Error' };
          return folder;
        }),
        loadIsoUsage: fromPromise<IsoUsageReport, { workspaceId: string; path: string }>(
          async ({ input }) => {
            calls.push(`usage ${input.path}`);
            if (input.path.endsWith('broken.iso'))
              throw { status: 403, message: 'ActionForbidden' };
            return USAGE;
          },
        ),
        deleteIso: fromPromise<unknown, { workspaceId: string; path: string }>(
          async ({ input }) => {
            calls.push(`delete ${input.path}`);
            if (options.failDelete) throw { status: 404, message: 'Not Found' };
            folder = folder.filter((p) => p !== input.path);
            return true;
          },
        ),
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
    { clock, input: { workspaceId: WS } },
  ).start();
  const lists = () => calls.filter((c) => c.startsWith('list')).length;
  return {
    actor,
    clock,
    calls,
    lists,
    network,
    addToFolder: (path: string) => (folder = [...folder, path]),
    paths: () => selectIsoPaths(actor.getSnapshot()),
  };
}

describe('isoFilesMachine', () => {
  it("lists the workspace's ISOs when it starts", async () => {
    const f = startFiles();
    expect(selectIsIsoListLoading(f.actor.getSnapshot())).toBe(true);
    await flush();
    expect(f.calls).toEqual([`list ${WS}`]);
    expect(f.paths()).toEqual([`${WS}/a.iso`]);
    expect(selectIsIsoListLoading(f.actor.getSnapshot())).toBe(false);
  });

  it(`reads the list again ${LIST_REFRESH_DELAY_MS} ms after an upload ends`, async () => {
    const f = startFiles();
    await flush();
    const queue = selectUploadQueue(f.actor.getSnapshot());
    queue?.send({ type: 'upload.filesChosen', files: [new File(['x'], 'b.txt')] });
    await flush();
    f.addToFolder(`${WS}/b.txt.iso`);
    f.network.get('b.txt')?.({ type: 'upload.succeeded' });
    f.clock.increment(LIST_REFRESH_DELAY_MS - 1);
    await flush();
    expect(f.lists()).toBe(1);
    f.clock.increment(1);
    await flush();
    expect(f.lists()).toBe(2);
    expect(f.paths()).toEqual([`${WS}/a.iso`, `${WS}/b.txt.iso`]);
    expect(LIST_REFRESH_DELAY_MS).toBe(2_000);
  });

  it('reads the list once after uploads that end close together', async () => {
    const f = startFiles();
    await flush();
    const queue = selectUploadQueue(f.actor.getSnapshot());
    queue?.send({
      type: 'upload.filesChosen',
      files: [new File(['x'], 'b.iso'), new File(['y'], 'c.iso')],
    });
    await flush();
    f.network.get('b.iso')?.({ type: 'upload.succeeded' });
    f.clock.increment(LIST_REFRESH_DELAY_MS / 2);
    f.network.get('c.iso')?.({ type: 'upload.failed', error: new Error('x') });
    f.clock.increment(LIST_REFRESH_DELAY_MS);
    await flush();
    expect(f.lists()).toBe(2);
  });

  it('shows the list error, and a refresh tries again', async () => {
    const f = startFiles({ failList: true });
    await flush();
    expect(selectIsoListError(f.actor.getSnapshot())).toBe(
      'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.',
    );
    f.actor.send({ type: 'isos.refreshRequested' });
    await flush();
    expect(f.lists()).toBe(2);
  });

  it("shows an ISO's usage, and its error", async () => {
    const f = startFiles();
    await flush();
    f.actor.send({ type: 'iso.usageRequested', path: `${WS}/a.iso` });
    expect(selectUsagePath(f.actor.getSnapshot())).toBe(`${WS}/a.iso`);
    await flush();
    expect(selectUsage(f.actor.getSnapshot())).toEqual(USAGE);
    f.actor.send({ type: 'iso.usageRequested', path: `${WS}/broken.iso` });
    await flush();
    expect(selectUsage(f.actor.getSnapshot())).toBeNull();
    expect(selectUsageError(f.actor.getSnapshot())).toBe('You are not allowed to do this.');
    f.actor.send({ type: 'iso.usageClosed' });
    expect(selectUsagePath(f.actor.getSnapshot())).toBeNull();
  });

  it('deletes only after confirmation, then reads the list again', async () => {
    const f = startFiles();
    await flush();
    f.actor.send({ type: 'iso.deleteRequested', path: `${WS}/a.iso` });
    expect(selectDeleteCandidate(f.actor.getSnapshot())).toBe(`${WS}/a.iso`);
    f.actor.send({ type: 'iso.deleteCanceled' });
    await flush();
    expect(f.calls.some((c) => c.startsWith('delete'))).toBe(false);
    expect(selectDeleteCandidate(f.actor.getSnapshot())).toBeNull();

    f.actor.send({ type: 'iso.deleteRequested', path: `${WS}/a.iso` });
    f.actor.send({ type: 'iso.deleteConfirmed' });
    await flush();
    await flush();
    expect(f.calls).toEqual([`list ${WS}`, `delete ${WS}/a.iso`, `list ${WS}`]);
    expect(f.paths()).toEqual([]);
  });

  it('shows why a delete failed', async () => {
    const f = startFiles({ failDelete: true });
    await flush();
    f.actor.send({ type: 'iso.deleteRequested', path: `${WS}/a.iso` });
    f.actor.send({ type: 'iso.deleteConfirmed' });
    await flush();
    expect(selectDeleteError(f.actor.getSnapshot())).toBe(
      'It was not found: it may have been deleted.',
    );
    expect(selectDeleteCandidate(f.actor.getSnapshot())).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(isoFilesMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspaceId: WS }],
        payloads: [
          { type: 'iso.usageRequested', path: `${WS}/a.iso` },
          { type: 'iso.deleteRequested', path: `${WS}/a.iso` },
        ],
      }),
    ).toEqual([]);
  });
});

/** The Files tab over calls the test answers: each list, usage and delete waits for it. */
function startControlledFiles() {
  const clock = new SimulatedClock();
  const lists: Deferred<string[]>[] = [];
  const usages: Array<{ path: string; result: Deferred<IsoUsageReport> }> = [];
  const deletes: Array<{ path: string; result: Deferred<unknown> }> = [];
  const actor = createActor(
    isoFilesMachine.provide({
      actors: {
        listIsos: fromPromise<string[], { workspaceId: string }>(() => {
          const list = deferred<string[]>();
          lists.push(list);
          return list.promise;
        }),
        loadIsoUsage: fromPromise<IsoUsageReport, { workspaceId: string; path: string }>(
          ({ input }) => {
            const result = deferred<IsoUsageReport>();
            usages.push({ path: input.path, result });
            return result.promise;
          },
        ),
        deleteIso: fromPromise<unknown, { workspaceId: string; path: string }>(({ input }) => {
          const result = deferred<unknown>();
          deletes.push({ path: input.path, result });
          return result.promise;
        }),
      },
    }),
    { clock, input: { workspaceId: WS } },
  ).start();
  return { actor, clock, lists, usages, deletes };
}

// Each region of the tab has its own model; the others stay where they start.
const regions = ['list', 'usage', 'removal'];
const others = (region: string) => regions.filter((r) => r !== region);

/**
 * Model-based test of the `list` region: the ISO list, read on start, on Refresh, and 2 s after
 * the last of a burst of uploads ends (spec §4 ISO upload), each read answered by the test.
 */
describe('isoFilesMachine list against its model', () => {
  type ModelEvent =
    | { type: 'LISTED' }
    | { type: 'FAILED' }
    | { type: 'REFRESH' }
    | { type: 'UPLOAD_ENDED' }
    | { type: 'DELAY_ELAPSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'isoListModel',
    initial: 'loading',
    states: {
      loading: {
        on: { LISTED: 'listed', FAILED: 'failed', REFRESH: 'loading', UPLOAD_ENDED: 'scheduled' },
      },
      listed: { on: { REFRESH: 'loading', UPLOAD_ENDED: 'scheduled' } },
      failed: { on: { REFRESH: 'loading', UPLOAD_ENDED: 'scheduled' } },
      scheduled: {
        on: { DELAY_ELAPSED: 'loading', UPLOAD_ENDED: 'scheduled', REFRESH: 'loading' },
      },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, isoFilesMachine, {
        states: {
          loading: 'list.loading',
          listed: 'list.listed',
          failed: 'list.failed',
          scheduled: 'list.refreshScheduled',
        },
        events: {
          LISTED: 'xstate.done.actor.listIsos',
          FAILED: 'xstate.error.actor.listIsos',
          REFRESH: 'isos.refreshRequested',
          UPLOAD_ENDED: 'upload.ended',
          DELAY_ELAPSED: 'xstate.after.listRefresh.isoFiles.list.refreshScheduled',
        },
        unmodelledStates: others('list'),
        unmodelledEvents: [
          'iso.usageRequested',
          'iso.usageClosed',
          'iso.deleteRequested',
          'iso.deleteConfirmed',
          'iso.deleteCanceled',
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
      const f = startControlledFiles();
      let reads = 1;
      let shown: string[] = [];
      let error: string | null = null;
      let current = 'loading';
      const expectList = (state: 'loading' | 'listed' | 'failed' | 'scheduled') => () => {
        if (state === 'loading' && current !== 'loading') reads += 1;
        current = state;
        const snapshot = f.actor.getSnapshot();
        expect(snapshot.matches({ list: state === 'scheduled' ? 'refreshScheduled' : state })).toBe(
          true,
        );
        expect(selectIsIsoListLoading(snapshot)).toBe(state === 'loading');
        expect(selectIsoPaths(snapshot)).toEqual(shown);
        expect(selectIsoListError(snapshot)).toBe(state === 'failed' ? error : null);
        expect(f.lists).toHaveLength(reads);
      };
      await path.test({
        states: {
          loading: expectList('loading'),
          listed: expectList('listed'),
          failed: expectList('failed'),
          scheduled: expectList('scheduled'),
        },
        events: {
          LISTED: async () => {
            shown = [`${WS}/read-${f.lists.length}.iso`];
            f.lists.at(-1)?.resolve(shown);
            await flush();
          },
          FAILED: async () => {
            error =
              'Something went wrong on the server. Try again; if it keeps happening, tell an administrator.';
            f.lists.at(-1)?.reject({ status: 500, message: 'Error' });
            await flush();
          },
          // A self-loop on `loading` re-reads: the read in flight is dropped.
          REFRESH: () => {
            if (current === 'loading') reads += 1;
            f.actor.send({ type: 'isos.refreshRequested' });
          },
          UPLOAD_ENDED: () =>
            f.actor.send({ type: 'upload.ended', uploadId: 'upload-1', outcome: 'succeeded' }),
          DELAY_ELAPSED: () => f.clock.increment(LIST_REFRESH_DELAY_MS),
        },
      });
    });
  }
});

/** Model-based test of the `usage` region: an ISO's usage, opened, replaced and closed. */
describe('isoFilesMachine usage against its model', () => {
  type ModelEvent =
    { type: 'REQUESTED' } | { type: 'LOADED' } | { type: 'FAILED' } | { type: 'CLOSED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'isoUsageModel',
    initial: 'closed',
    states: {
      closed: { on: { REQUESTED: 'loading', CLOSED: 'closed' } },
      loading: {
        on: { LOADED: 'shown', FAILED: 'failed', REQUESTED: 'loading', CLOSED: 'closed' },
      },
      shown: { on: { REQUESTED: 'loading', CLOSED: 'closed' } },
      failed: { on: { REQUESTED: 'loading', CLOSED: 'closed' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, isoFilesMachine, {
        states: {
          closed: 'usage.closed',
          loading: 'usage.loading',
          shown: 'usage.shown',
          failed: 'usage.failed',
        },
        events: {
          REQUESTED: 'iso.usageRequested',
          LOADED: 'xstate.done.actor.loadIsoUsage',
          FAILED: 'xstate.error.actor.loadIsoUsage',
          CLOSED: 'iso.usageClosed',
        },
        unmodelledStates: others('usage'),
        unmodelledEvents: [
          'isos.refreshRequested',
          'upload.ended',
          'iso.deleteRequested',
          'iso.deleteConfirmed',
          'iso.deleteCanceled',
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
      const f = startControlledFiles();
      let requested = 0;
      let usagePath: string | null = null;
      const asked: string[] = [];
      const expectUsage = (state: 'closed' | 'loading' | 'shown' | 'failed') => () => {
        const snapshot = f.actor.getSnapshot();
        expect(snapshot.matches({ usage: state })).toBe(true);
        expect(selectUsagePath(snapshot)).toBe(state === 'closed' ? null : usagePath);
        expect(selectUsage(snapshot)).toEqual(state === 'shown' ? USAGE : null);
        expect(selectUsageError(snapshot)).toBe(
          state === 'failed' ? 'You are not allowed to do this.' : null,
        );
        expect(f.usages.map((u) => u.path)).toEqual(asked);
      };
      await path.test({
        states: {
          closed: expectUsage('closed'),
          loading: expectUsage('loading'),
          shown: expectUsage('shown'),
          failed: expectUsage('failed'),
        },
        events: {
          REQUESTED: () => {
            usagePath = `${WS}/iso-${++requested}.iso`;
            asked.push(usagePath);
            f.actor.send({ type: 'iso.usageRequested', path: usagePath });
          },
          LOADED: async () => {
            f.usages.at(-1)?.result.resolve(USAGE);
            await flush();
          },
          FAILED: async () => {
            f.usages.at(-1)?.result.reject({ status: 403, message: 'ActionForbidden' });
            await flush();
          },
          CLOSED: () => f.actor.send({ type: 'iso.usageClosed' }),
        },
      });
    });
  }
});

/**
 * Model-based test of the `removal` region: a delete asked first (spec §5), then confirmed or
 * canceled; a delete done reads the list again.
 */
describe('isoFilesMachine removal against its model', () => {
  type ModelEvent =
    | { type: 'REQUESTED' }
    | { type: 'CONFIRMED' }
    | { type: 'CANCELED' }
    | { type: 'DELETED' }
    | { type: 'FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'isoRemovalModel',
    initial: 'idle',
    states: {
      idle: { on: { REQUESTED: 'confirming' } },
      confirming: { on: { CONFIRMED: 'deleting', CANCELED: 'idle' } },
      deleting: { on: { DELETED: 'idle', FAILED: 'idle' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, isoFilesMachine, {
        states: {
          idle: 'removal.idle',
          confirming: 'removal.confirming',
          deleting: 'removal.deleting',
        },
        events: {
          REQUESTED: 'iso.deleteRequested',
          CONFIRMED: 'iso.deleteConfirmed',
          CANCELED: 'iso.deleteCanceled',
          DELETED: 'xstate.done.actor.deleteIso',
          FAILED: 'xstate.error.actor.deleteIso',
        },
        unmodelledStates: others('removal'),
        unmodelledEvents: [
          'isos.refreshRequested',
          'upload.ended',
          'iso.usageRequested',
          'iso.usageClosed',
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
      const f = startControlledFiles();
      let requested = 0;
      let candidate: string | null = null;
      const deleted: string[] = [];
      let error: string | null = null;
      let reads = 1;
      const expectRemoval = (state: 'idle' | 'confirming' | 'deleting') => () => {
        const snapshot = f.actor.getSnapshot();
        expect(snapshot.matches({ removal: state })).toBe(true);
        expect(selectDeleteCandidate(snapshot)).toBe(state === 'confirming' ? candidate : null);
        expect(selectIsDeleting(snapshot)).toBe(state === 'deleting');
        expect(selectDeleteError(snapshot)).toBe(error);
        expect(f.deletes.map((d) => d.path)).toEqual(deleted);
        expect(f.lists).toHaveLength(reads);
      };
      await path.test({
        states: {
          idle: expectRemoval('idle'),
          confirming: expectRemoval('confirming'),
          deleting: expectRemoval('deleting'),
        },
        events: {
          REQUESTED: () => {
            candidate = `${WS}/iso-${++requested}.iso`;
            error = null;
            f.actor.send({ type: 'iso.deleteRequested', path: candidate });
          },
          CONFIRMED: () => {
            deleted.push(candidate ?? '');
            f.actor.send({ type: 'iso.deleteConfirmed' });
          },
          CANCELED: () => f.actor.send({ type: 'iso.deleteCanceled' }),
          DELETED: async () => {
            reads += 1;
            f.deletes.at(-1)?.result.resolve(true);
            await flush();
          },
          FAILED: async () => {
            error = 'It was not found: it may have been deleted.';
            f.deletes.at(-1)?.result.reject({ status: 404, message: 'Not Found' });
            await flush();
          },
        },
      });
    });
  }
});
