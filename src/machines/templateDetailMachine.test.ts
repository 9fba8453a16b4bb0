import { describe, expect, it } from 'vitest';
import { createActor, createEmptyActor, fromPromise } from 'xstate';
import { deferred, flush } from './testing/deferred';
import { unreachedStateIds } from './testing/reachability';
import {
  formProblem,
  templateDetailMachine,
  type LoadedTemplateDetail,
  type TemplateDetailSnapshot,
  type TemplateDetailValues,
} from './templateDetailMachine';
import {
  selectCanSave,
  selectDetailError,
  selectProblem,
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
