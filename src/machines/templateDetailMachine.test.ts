import { describe, expect, it } from 'vitest';
import { createActor, createEmptyActor, createMachine, fromPromise } from 'xstate';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';
import {
  formProblem,
  templateDetailMachine,
  type LoadedTemplateDetail,
  type TemplateDetailSnapshot,
  type TemplateDetailValues,
} from './templateDetailMachine';
import {
  selectBusy,
  selectCanSave,
  selectDetailError,
  selectLoaded,
  selectProblem,
  selectSavedName,
  selectValues,
} from './templateManagerMachine.selectors';

const loaded: LoadedTemplateDetail = {
  id: 't1',
  name: 'box',
  description: '',
  audience: '',
  networks: 'lan',
  guestinfo: '',
  detail: JSON.stringify({ Ram: 2, Cpu: '1x1', Disks: [{ Path: '[ds] x/box.vmdk' }] }),
  isPublished: false,
  isLinked: false,
};

function start(save: (values: TemplateDetailValues) => Promise<unknown> = async () => '') {
  const saves: TemplateDetailValues[] = [];
  const reports: unknown[] = [];
  const parentRef = { ...createEmptyActor(), send: (e: unknown) => reports.push(e) };
  const actor = createActor(
    templateDetailMachine.provide({
      actors: {
        loadDetail: fromPromise(async () => loaded),
        saveDetail: fromPromise(async ({ input }) => {
          saves.push(input.values);
          return save(input.values);
        }),
      },
    }),
    { input: { id: 't1', parentRef: parentRef as never } },
  ).start();
  return { actor, saves, reports };
}

describe('templateDetailMachine', () => {
  it('shows what is wrong with the detail as it is typed, and will not save it', async () => {
    const { actor, saves } = start();
    await flush();
    actor.send({ type: 'detail.edited', changes: { detail: '{"Ram": 2, "Cpu": "two"}' } });
    expect(selectProblem(actor.getSnapshot())).toBe(
      'Cpu must be sockets x cores, such as "1x2", not "two"',
    );
    expect(selectCanSave(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'detail.saveRequested' });
    await flush();
    expect(saves).toEqual([]);
  });

  it('saves the fixed detail with published set, and tells the manager', async () => {
    const { actor, saves, reports } = start();
    await flush();
    expect(selectCanSave(actor.getSnapshot())).toBe(false);
    actor.send({ type: 'detail.edited', changes: { detail: '{"Ram": 0}' } });
    actor.send({ type: 'detail.edited', changes: { detail: '{"Ram": 8}', isPublished: true } });
    expect(selectProblem(actor.getSnapshot())).toBeNull();
    actor.send({ type: 'detail.saveRequested' });
    expect(actor.getSnapshot().hasTag('busy')).toBe(true);
    await flush();
    const { id: _id, isLinked: _linked, ...values } = loaded;
    expect(saves).toEqual([{ ...values, detail: '{"Ram": 8}', isPublished: true }]);
    expect(reports).toEqual([{ type: 'template.saved', id: 't1' }]);
    // Saved: nothing left to save.
    expect(selectCanSave(actor.getSnapshot())).toBe(false);
  });

  it('keeps the edits and shows the server refusal when a save fails', async () => {
    const refusal = deferred<unknown>();
    const { actor, reports } = start(() => refusal.promise);
    await flush();
    actor.send({ type: 'detail.edited', changes: { description: 'changed' } });
    actor.send({ type: 'detail.saveRequested' });
    refusal.reject(new Error('name taken'));
    await flush();
    expect(actor.getSnapshot().value).toBe('editing');
    expect(selectDetailError(actor.getSnapshot())).toBe('name taken');
    expect(actor.getSnapshot().context.values.description).toBe('changed');
    expect(selectCanSave(actor.getSnapshot())).toBe(true);
    expect(reports).toEqual([]);
  });

  it('requires a name within its limit before the detail', () => {
    const values = { ...loaded, name: ' ', detail: 'nope' };
    expect(formProblem(values)).toBe('Please enter a name for this template.');
    expect(formProblem({ ...values, name: 'n'.repeat(65) })).toBe(
      'The name must be at most 64 characters.',
    );
    expect(formProblem({ ...values, name: 'ok' })).toMatch(/^Detail is not valid JSON/);
  });

  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateDetailMachine, {
        // The name tells an edited form (which may be saved) from the loaded one.
        serializeState: (s) =>
          JSON.stringify([s.value, (s as TemplateDetailSnapshot).context.values.name]),
        inputs: [{ id: 't1' }],
        payloads: [
          { type: 'detail.edited', changes: { name: 'renamed' } },
          { type: 'detail.edited', changes: { detail: '[]' } },
        ],
      }),
    ).toEqual([]);
  });
});

/** Model-based test: loading (and reloading after a failure), editing, and saving. */
describe('templateDetailMachine against its model', () => {
  type ModelEvent =
    | { type: 'LOADED' }
    | { type: 'LOAD_FAILED' }
    | { type: 'RELOAD' }
    | { type: 'EDITED' }
    | { type: 'SAVE' }
    | { type: 'SAVED' }
    | { type: 'SAVE_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateDetailModel',
    initial: 'loading',
    states: {
      loading: { on: { LOADED: 'editing', LOAD_FAILED: 'failed' } },
      failed: { on: { RELOAD: 'loading' } },
      editing: { on: { EDITED: 'editing', SAVE: 'saving' } },
      saving: { on: { SAVED: 'editing', SAVE_FAILED: 'editing' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, templateDetailMachine, {
        states: { loading: 'loading', failed: 'failed', editing: 'editing', saving: 'saving' },
        events: {
          LOADED: 'xstate.done.actor.0.templateDetail.loading',
          LOAD_FAILED: 'xstate.error.actor.0.templateDetail.loading',
          RELOAD: 'detail.reloadRequested',
          EDITED: 'detail.edited',
          SAVE: 'detail.saveRequested',
          SAVED: 'xstate.done.actor.0.templateDetail.saving',
          SAVE_FAILED: 'xstate.error.actor.0.templateDetail.saving',
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
      const loads: Deferred<LoadedTemplateDetail>[] = [];
      const saves: { values: TemplateDetailValues; answer: Deferred<unknown> }[] = [];
      const reports: unknown[] = [];
      const parentRef = { ...createEmptyActor(), send: (e: unknown) => reports.push(e) };
      const actor = createActor(
        templateDetailMachine.provide({
          actors: {
            loadDetail: fromPromise(() => {
              const d = deferred<LoadedTemplateDetail>();
              loads.push(d);
              return d.promise;
            }),
            saveDetail: fromPromise(({ input }) => {
              const answer = deferred<unknown>();
              saves.push({ values: input.values, answer });
              return answer.promise;
            }),
          },
        }),
        { input: { id: 't1', parentRef: parentRef as never } },
      ).start();
      // What the form should show: the typed name, the saved name, the last error.
      let name = '';
      let savedName = '';
      let error: string | null = null;
      let saved = 0;
      let next = 0;
      const expectDetail = (state: string) => () => {
        const s = actor.getSnapshot();
        expect(s.value).toBe(state);
        expect(selectBusy(s)).toBe(state === 'loading' || state === 'saving');
        expect(selectLoaded(s)).toBe(state !== 'loading');
        expect(selectValues(s).name).toBe(name);
        expect(selectSavedName(s)).toBe(savedName);
        expect(selectProblem(s)).toBeNull();
        expect(selectDetailError(s)).toBe(error);
        expect(selectCanSave(s)).toBe(state === 'editing' && name !== savedName);
        expect(reports).toHaveLength(saved);
      };
      await path.test({
        states: {
          loading: expectDetail('loading'),
          failed: expectDetail('failed'),
          editing: expectDetail('editing'),
          saving: expectDetail('saving'),
        },
        events: {
          LOADED: async () => {
            name = savedName = loaded.name;
            error = null;
            loads.at(-1)!.resolve(loaded);
            await flush();
          },
          LOAD_FAILED: async () => {
            error = 'gone';
            loads.at(-1)!.reject(new Error('gone'));
            await flush();
          },
          RELOAD: () => actor.send({ type: 'detail.reloadRequested' }),
          EDITED: () => {
            name = `box ${++next}`;
            actor.send({ type: 'detail.edited', changes: { name } });
          },
          SAVE: () => {
            if (name === savedName) {
              // Nothing changed: the model's SAVE is then an edit saved.
              name = `box ${++next}`;
              actor.send({ type: 'detail.edited', changes: { name } });
            }
            actor.send({ type: 'detail.saveRequested' });
            expect(saves.at(-1)?.values.name).toBe(name);
          },
          SAVED: async () => {
            savedName = name;
            error = null;
            saved += 1;
            saves.at(-1)!.answer.resolve('');
            await flush();
          },
          SAVE_FAILED: async () => {
            error = 'name taken';
            saves.at(-1)!.answer.reject(new Error('name taken'));
            await flush();
          },
        },
      });
    });
  }
});
