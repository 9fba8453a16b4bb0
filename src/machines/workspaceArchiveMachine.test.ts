import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise } from 'xstate';
import { archiveFileName, type ArchiveCandidate } from '../domain/workspaceArchive';
import { workspaceArchiveMachine, type WorkspaceArchiveSnapshot } from './workspaceArchiveMachine';
import {
  selectArchiveDone,
  selectArchiveError,
  selectArchiveListError,
  selectArchiveMatches,
  selectArchiveResults,
  selectCanExport,
  selectIsArchiveBusy,
} from './workspaceArchiveMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

type Kind = 'exportWorkspaces' | 'downloadArchive' | 'importWorkspaces' | 'uploadArchive';
interface Call {
  kind: Kind;
  input: unknown;
  answer: Deferred<unknown>;
}

const LABS: ArchiveCandidate[] = [
  { id: 'w1', name: 'Web Forensics' },
  { id: 'w2', name: 'Network Basics' },
];

function start(list: Promise<ArchiveCandidate[]> = new Promise(() => {})) {
  const calls: Call[] = [];
  const call = <T, I>(kind: Kind) =>
    fromPromise<T, I>(({ input }) => {
      const answer = deferred<unknown>();
      calls.push({ kind, input, answer });
      return answer.promise as Promise<T>;
    });
  const actor = createActor(
    workspaceArchiveMachine.provide({
      actors: {
        loadWorkspaces: fromPromise<ArchiveCandidate[], void>(() => list),
        exportWorkspaces: call<unknown, { ids: string[] }>('exportWorkspaces'),
        downloadArchive: call<unknown, { ids: string[]; fileName: string }>('downloadArchive'),
        importWorkspaces: call<string[], void>('importWorkspaces'),
        uploadArchive: call<string[], { file: Blob; fileName: string }>('uploadArchive'),
      },
    }),
  ).start();
  const last = (kind: Kind) => calls.filter((c) => c.kind === kind).at(-1)!;
  const answer = async (kind: Kind, value: unknown) => {
    last(kind).answer.resolve(value);
    await flush();
  };
  const fail = async (kind: Kind, message: string) => {
    last(kind).answer.reject({ status: 400, message });
    await flush();
  };
  return { actor, calls, last, answer, fail, snap: () => actor.getSnapshot() };
}

describe('workspaceArchiveMachine', () => {
  it('lists the workspaces by name and narrows them to the search typed', async () => {
    const d = start(Promise.resolve(LABS));
    await flush();
    expect(selectArchiveMatches(d.snap()).map((w) => w.name)).toEqual([
      'Network Basics',
      'Web Forensics',
    ]);
    d.actor.send({ type: 'archive.termEdited', text: 'web' });
    expect(selectArchiveMatches(d.snap())).toEqual([LABS[0]]);
  });

  it('says why the workspaces could not be listed', async () => {
    const d = start(Promise.reject({ status: 403, message: 'ActionForbidden' }));
    await flush();
    expect(selectArchiveListError(d.snap())).toBe('You are not allowed to do this.');
  });

  it('downloads the workspaces ticked, named after them, one operation at a time', async () => {
    const d = start(Promise.resolve(LABS));
    await flush();
    expect(selectCanExport(d.snap())).toBe(false);
    d.actor.send({ type: 'archive.downloadRequested' });
    expect(d.calls).toHaveLength(0);
    d.actor.send({ type: 'archive.workspaceToggled', id: 'w1' });
    d.actor.send({ type: 'archive.workspaceToggled', id: 'w2' });
    d.actor.send({ type: 'archive.downloadRequested' });
    expect(d.last('downloadArchive').input).toEqual({
      ids: ['w1', 'w2'],
      fileName: 'topomojo-web-forensics-and-1-more.zip',
    });
    expect(selectIsArchiveBusy(d.snap())).toBe(true);
    d.actor.send({ type: 'archive.importRequested' });
    expect(d.calls).toHaveLength(1);
    await d.answer('downloadArchive', undefined);
    expect(selectIsArchiveBusy(d.snap())).toBe(false);
    expect(selectArchiveDone(d.snap())).toBe('Downloaded topomojo-web-forensics-and-1-more.zip.');
  });

  it('a workspace ticked twice is not exported', () => {
    const d = start(Promise.resolve(LABS));
    d.actor.send({ type: 'archive.workspaceToggled', id: 'w1' });
    d.actor.send({ type: 'archive.workspaceToggled', id: 'w1' });
    expect(selectCanExport(d.snap())).toBe(false);
  });

  it('exports "all" to the server folder', async () => {
    const d = start();
    d.actor.send({ type: 'archive.allToggled' });
    d.actor.send({ type: 'archive.exportRequested' });
    expect(d.last('exportWorkspaces').input).toEqual({ ids: ['all'] });
    await d.answer('exportWorkspaces', '');
    expect(selectArchiveDone(d.snap())).toMatch(/Exported/);
  });

  it('shows what an import from the server folder added', async () => {
    const d = start();
    d.actor.send({ type: 'archive.importRequested' });
    await d.answer('importWorkspaces', ['w9', 'old_export.zip: The archive was refused']);
    expect(selectArchiveResults(d.snap())).toEqual({
      kind: 'imported',
      items: ['w9', 'old_export.zip: The archive was refused'],
    });
  });

  it('uploads the chosen file and lists the workspaces added', async () => {
    const d = start();
    const file = new Blob(['zip']);
    d.actor.send({ type: 'archive.uploadRequested', file, fileName: 'lab.zip' });
    expect(d.last('uploadArchive').input).toEqual({ file, fileName: 'lab.zip' });
    await d.answer('uploadArchive', ['w1']);
    expect(selectArchiveResults(d.snap())).toEqual({ kind: 'uploaded', items: ['w1'] });
  });

  it('says why a refused archive was refused, and forgets the last results', async () => {
    const d = start();
    d.actor.send({ type: 'archive.importRequested' });
    await d.answer('importWorkspaces', ['w9']);
    d.actor.send({ type: 'archive.uploadRequested', file: new Blob(['x']), fileName: 'a.txt' });
    await d.fail('uploadArchive', 'InvalidOperation The archive was refused: it is not a zip');
    expect(selectArchiveError(d.snap())).toBe(
      'This cannot be done: the archive was refused: it is not a zip.',
    );
    expect(selectArchiveResults(d.snap())).toBeNull();
    // A new attempt clears the refusal.
    d.actor.send({ type: 'archive.importRequested' });
    expect(selectArchiveError(d.snap())).toBeNull();
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(workspaceArchiveMachine, {
        serializeState: (snapshot) =>
          JSON.stringify([
            snapshot.value,
            (snapshot as unknown as WorkspaceArchiveSnapshot).context.selected.length > 0,
          ]),
        payloads: [
          { type: 'archive.workspaceToggled', id: 'w1' },
          { type: 'archive.termEdited', text: 'w' },
          { type: 'archive.uploadRequested', file: new Blob(['x']), fileName: 'a.zip' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: each operation from the idle panel, answered or refused, checking the
 * confirmation, results and error the panel shows after every step.
 */
describe('workspaceArchiveMachine against its model', () => {
  type ModelEvent =
    | { type: 'EDITED' }
    | { type: 'EXPORT' }
    | { type: 'DOWNLOAD' }
    | { type: 'IMPORT' }
    | { type: 'UPLOAD' }
    | { type: 'DONE' }
    | { type: 'FAILED' };

  const settles = { DONE: 'idle', FAILED: 'idle' } as const;
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'workspaceArchiveModel',
    initial: 'idle',
    states: {
      idle: {
        on: {
          EDITED: 'idle',
          EXPORT: 'exporting',
          DOWNLOAD: 'downloading',
          IMPORT: 'importing',
          UPLOAD: 'uploading',
        },
      },
      exporting: { on: settles },
      downloading: { on: settles },
      importing: { on: settles },
      uploading: { on: settles },
    },
  });

  const operations = ['exporting', 'downloading', 'importing', 'uploading'];
  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, workspaceArchiveMachine, {
        states: Object.fromEntries(['idle', ...operations].map((s) => [s, s])),
        events: {
          EDITED: 'archive.workspaceToggled',
          EXPORT: 'archive.exportRequested',
          DOWNLOAD: 'archive.downloadRequested',
          IMPORT: 'archive.importRequested',
          UPLOAD: 'archive.uploadRequested',
          DONE: operations.map((s) => `xstate.done.actor.0.workspaceArchive.${s}`),
          FAILED: operations.map((s) => `xstate.error.actor.0.workspaceArchive.${s}`),
        },
        // Searching the list and ticking "all" only change what is picked, in any state.
        unmodelledEvents: ['archive.termEdited', 'archive.allToggled'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const kindOf: Record<string, Kind> = {
    exporting: 'exportWorkspaces',
    downloading: 'downloadArchive',
    importing: 'importWorkspaces',
    uploading: 'uploadArchive',
  };

  for (const path of paths) {
    it(path.description, async () => {
      const d = start();
      // What the panel should show.
      const ids: string[] = [];
      let done: string | null = null;
      let error: string | null = null;
      let results: { kind: 'imported' | 'uploaded'; items: string[] } | null = null;
      let next = 0;
      let pending: string = 'idle';
      const expectPanel = (state: string) => () => {
        const s = d.snap();
        expect(s.value).toBe(state);
        expect(selectIsArchiveBusy(s)).toBe(state !== 'idle');
        expect(selectCanExport(s)).toBe(state === 'idle' && ids.length > 0);
        expect(selectArchiveDone(s)).toBe(done);
        expect(selectArchiveError(s)).toBe(error);
        expect(selectArchiveResults(s)).toEqual(results);
        if (state !== 'idle') expect(d.last(kindOf[state]!)).toBeDefined();
      };
      const begin = (state: string) => {
        pending = state;
        done = null;
        error = null;
        results = null;
      };
      const edit = () => {
        const id = `w${++next}`;
        ids.push(id);
        d.actor.send({ type: 'archive.workspaceToggled', id });
      };
      await path.test({
        states: Object.fromEntries(['idle', ...operations].map((s) => [s, expectPanel(s)])),
        events: {
          EDITED: edit,
          EXPORT: () => {
            // Nothing ticked: the model's EXPORT is then ticked workspaces exported.
            if (ids.length === 0) edit();
            begin('exporting');
            d.actor.send({ type: 'archive.exportRequested' });
            expect(d.last('exportWorkspaces').input).toEqual({ ids });
          },
          DOWNLOAD: () => {
            if (ids.length === 0) edit();
            begin('downloading');
            d.actor.send({ type: 'archive.downloadRequested' });
            // The list is not loaded here: the ids stand for the names.
            expect(d.last('downloadArchive').input).toEqual({
              ids,
              fileName: archiveFileName({ all: false, names: ids }),
            });
          },
          IMPORT: () => {
            begin('importing');
            d.actor.send({ type: 'archive.importRequested' });
          },
          UPLOAD: () => {
            begin('uploading');
            const file = new Blob(['zip']);
            d.actor.send({ type: 'archive.uploadRequested', file, fileName: 'lab.zip' });
            expect(d.last('uploadArchive').input).toEqual({ file, fileName: 'lab.zip' });
          },
          DONE: async () => {
            const items = [`added-${++next}`];
            if (pending === 'exporting') done = "Exported to the server's folder (_export).";
            if (pending === 'downloading') {
              done = `Downloaded ${archiveFileName({ all: false, names: ids })}.`;
            }
            if (pending === 'importing') results = { kind: 'imported', items };
            if (pending === 'uploading') results = { kind: 'uploaded', items };
            await d.answer(kindOf[pending]!, items);
          },
          FAILED: async () => {
            error = 'This cannot be done: the archive was refused: it is not a zip.';
            await d.fail(
              kindOf[pending]!,
              'InvalidOperation The archive was refused: it is not a zip',
            );
          },
        },
      });
    });
  }
});
