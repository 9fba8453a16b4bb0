import { describe, expect, it } from 'vitest';
import { createActor, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import type { IsoUsageReport } from '../api/files';
import { isoFilesMachine, LIST_REFRESH_DELAY_MS } from './isoFilesMachine';
import {
  selectDeleteCandidate,
  selectDeleteError,
  selectIsIsoListLoading,
  selectIsoListError,
  selectIsoPaths,
  selectUploadQueue,
  selectUsage,
  selectUsageError,
  selectUsagePath,
} from './isoFilesMachine.selectors';
import { flush } from './testing/deferred';
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
    expect(selectIsoListError(f.actor.getSnapshot())).toBe('Error');
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
    expect(selectUsageError(f.actor.getSnapshot())).toBe('Action Forbidden');
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
    expect(selectDeleteError(f.actor.getSnapshot())).toBe('Not Found');
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
