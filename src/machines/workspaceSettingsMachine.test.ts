import { describe, expect, it } from 'vitest';
import { modelPaths } from './testing/modelPaths';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import type { ChangedWorkspace, Workspace } from '../api/workspace';
import type { WorkspaceSettingsField } from '../domain/workspaceSettings';
import { autosaveFormMachine } from './autosaveFormMachine';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { unreachedStateIds } from './testing/reachability';
import { workspaceSettingsMachine, type WorkspaceSettingsReport } from './workspaceSettingsMachine';
import {
  selectSettingsError,
  selectSettingsForm,
  selectSettingsMessages,
  selectSettingsSaveStatus,
  selectSettingsValue,
} from './workspaceSettingsMachine.selectors';

const WORKSPACE: Workspace = {
  id: 'ws-1',
  name: 'Workspace Title',
  description: 'A lab',
  author: 'Ada',
  audience: 'everyone',
  tags: 'linux',
  durationMinutes: 60,
};

/** Each save is a deferred the test settles; `reports` are what the editor header was told. */
function startSettings(workspace: Workspace = WORKSPACE) {
  const saves: Array<{ body: ChangedWorkspace; result: Deferred<unknown> }> = [];
  const reports: WorkspaceSettingsReport[] = [];
  const reportTo = createActor(
    fromCallback<WorkspaceSettingsReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    workspaceSettingsMachine.provide({
      actors: {
        form: autosaveFormMachine.provide({
          actors: {
            save: fromPromise<unknown, ChangedWorkspace>(({ input }) => {
              const result = deferred<unknown>();
              saves.push({ body: input, result });
              return result.promise;
            }),
          },
        }),
      },
    }),
    { input: { workspace, reportTo } },
  ).start();
  // The fields and the save status are the form's, the settings' child.
  const form = () => {
    const ref = selectSettingsForm(actor.getSnapshot());
    if (!ref) throw new Error('no form');
    return ref.getSnapshot();
  };
  const edit = (field: WorkspaceSettingsField, value: string) =>
    actor.send({ type: 'settings.fieldEdited', field, value });
  const blur = () => actor.send({ type: 'settings.fieldBlurred' });
  const status = () => selectSettingsSaveStatus(form());
  const value = (field: WorkspaceSettingsField) => selectSettingsValue(field)(form());
  const settle = async (outcome: 'ok' | { reject: unknown }, index = saves.length - 1) => {
    const save = saves[index];
    if (!save) throw new Error(`no save #${index}`);
    if (outcome === 'ok') save.result.resolve(undefined);
    else save.result.reject(outcome.reject);
    await flush();
  };
  return { actor, form, saves, reports, edit, blur, status, value, settle };
}

describe('workspaceSettingsMachine', () => {
  it("starts pristine with the workspace's values, and a blur while pristine saves nothing", () => {
    const s = startSettings();
    expect(s.status()).toBe('pristine');
    expect(s.value('name')).toBe('Workspace Title');
    expect(s.value('durationMinutes')).toBe('60');
    s.blur();
    expect(s.status()).toBe('pristine');
    expect(s.saves).toHaveLength(0);
  });

  it('saves a valid change on blur, with the whole restricted body, and reports the new name', async () => {
    const s = startSettings();
    s.edit('name', '  Intro Lab ');
    s.edit('durationMinutes', '90');
    expect(s.saves).toHaveLength(0);
    s.blur();
    expect(s.status()).toBe('saving');
    expect(s.saves.map((save) => save.body)).toEqual([
      {
        id: 'ws-1',
        name: 'Intro Lab',
        description: 'A lab',
        tags: 'linux',
        author: 'Ada',
        audience: 'everyone',
        durationMinutes: 90,
        recordConsoles: null,
      },
    ]);
    await s.settle('ok');
    expect(s.status()).toBe('saved');
    expect(s.reports).toEqual([{ type: 'workspace.settingsSaved', name: 'Intro Lab' }]);
    s.blur();
    expect(s.saves).toHaveLength(1);
  });

  it('saves a recording choice as soon as it is made, and not again when it is the same', async () => {
    const s = startSettings({ ...WORKSPACE, recordConsoles: false });
    expect(s.value('recordConsoles')).toBe('off');
    const choose = (value: string) =>
      s.actor.send({ type: 'settings.fieldChosen', field: 'recordConsoles', value });
    choose('on');
    expect(s.status()).toBe('saving');
    expect(s.saves.map((save) => save.body.recordConsoles)).toEqual([true]);
    await s.settle('ok');
    choose('on');
    expect(s.saves).toHaveLength(1);
    choose('default');
    await s.settle('ok');
    expect(s.saves.map((save) => save.body.recordConsoles)).toEqual([true, null]);
    expect(s.status()).toBe('saved');
    // Not a choice the form offers: shown, never sent.
    choose('always');
    expect(selectSettingsMessages(s.form())).toEqual({
      recordConsoles: "Choose the server's default, on or off.",
    });
    expect(s.saves).toHaveLength(2);
  });

  it('shows validation messages and does not save invalid values on blur', () => {
    const s = startSettings();
    s.edit('name', '   ');
    s.edit('durationMinutes', 'soon');
    s.edit('author', 'x'.repeat(65));
    expect(selectSettingsMessages(s.form())).toEqual({
      name: 'Please enter a name for this workspace.',
      author: 'At most 64 characters.',
      durationMinutes: 'Enter a whole number of minutes (0 or more).',
    });
    s.blur();
    expect(s.status()).toBe('editing');
    expect(s.saves).toHaveLength(0);
  });

  it('does not save on blur when the edits were undone', () => {
    const s = startSettings();
    s.edit('tags', 'linux windows');
    s.edit('tags', 'linux');
    s.blur();
    expect(s.status()).toBe('editing');
    expect(s.saves).toHaveLength(0);
  });

  it('keeps the edited values when a save fails, shows why, and retries on the next blur', async () => {
    const s = startSettings();
    s.edit('name', 'Intro Lab');
    s.blur();
    await s.settle({ reject: { status: 403, message: 'ActionForbidden' } });
    expect(s.status()).toBe('failed');
    expect(s.value('name')).toBe('Intro Lab');
    expect(selectSettingsError(s.form())).toBe('You are not allowed to do this.');
    expect(s.reports).toEqual([]);

    s.blur();
    expect(s.status()).toBe('saving');
    expect(selectSettingsError(s.form())).toBeNull();
    await s.settle('ok');
    expect(s.status()).toBe('saved');
    expect(s.saves.map((save) => save.body.name)).toEqual(['Intro Lab', 'Intro Lab']);
  });

  it('queues one more save for changes blurred while a save is in flight', async () => {
    const s = startSettings();
    s.edit('name', 'Intro Lab');
    s.blur();
    s.edit('description', 'Networking basics');
    s.blur();
    s.blur();
    expect(s.saves).toHaveLength(1);
    await s.settle('ok');
    expect(s.status()).toBe('saving');
    expect(s.saves.map((save) => save.body.description)).toEqual(['A lab', 'Networking basics']);
    await s.settle('ok');
    expect(s.status()).toBe('saved');
  });

  it('goes back to editing after a save when the user typed meanwhile without leaving the field', async () => {
    const s = startSettings();
    s.edit('name', 'Intro Lab');
    s.blur();
    s.edit('name', 'Intro Lab 2');
    await s.settle('ok');
    expect(s.status()).toBe('editing');
    s.blur();
    expect(s.saves.map((save) => save.body.name)).toEqual(['Intro Lab', 'Intro Lab 2']);
  });

  it('does not send a queued save that became invalid', async () => {
    const s = startSettings();
    s.edit('name', 'Intro Lab');
    s.blur();
    s.edit('author', 'Grace');
    s.blur();
    s.edit('name', '');
    await s.settle('ok');
    expect(s.status()).toBe('editing');
    expect(s.saves).toHaveLength(1);
  });

  it('takes remote updates for the fields the user has not changed, and keeps the one being edited', () => {
    const s = startSettings();
    s.actor.send({
      type: 'workspace.updatedRemotely',
      workspace: { ...WORKSPACE, author: 'Grace' },
    });
    expect(s.status()).toBe('pristine');
    expect(s.value('author')).toBe('Grace');

    s.edit('name', 'My name');
    s.actor.send({
      type: 'workspace.updatedRemotely',
      workspace: { ...WORKSPACE, name: 'Their name', author: 'Grace', tags: 'windows' },
    });
    expect(s.value('name')).toBe('My name');
    expect(s.value('tags')).toBe('windows');
    // The user's value is still a change against the new server copy: saved on blur.
    s.blur();
    expect(s.saves.map((save) => save.body)).toEqual([
      expect.objectContaining({ name: 'My name', author: 'Grace', tags: 'windows' }),
    ]);
  });

  it('is not confused by the echo of its own save arriving before the response', async () => {
    const s = startSettings();
    s.edit('name', 'Intro Lab');
    s.blur();
    s.actor.send({
      type: 'workspace.updatedRemotely',
      workspace: { ...WORKSPACE, name: 'Intro Lab' },
    });
    await s.settle('ok');
    expect(s.status()).toBe('saved');
    expect(s.value('name')).toBe('Intro Lab');
  });

  it('reaches every state, and takes events without payloads (a traversal) in its stride', () => {
    expect(
      unreachedStateIds(workspaceSettingsMachine, {
        serializeState: (snapshot) => JSON.stringify(snapshot.value),
        inputs: [{ workspace: WORKSPACE }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the autosave rule of spec §4 ("settings autosave when changed and valid and
 * not pristine, triggered on blur") as an abstract machine, driving the real actor. Each model
 * state names what the form holds; the assertions check the status the form shows, the messages
 * and that a save was sent exactly on the blurs the rule allows.
 */
describe('workspaceSettingsMachine against the autosave model', () => {
  type ModelEvent =
    | { type: 'EDIT_VALID' }
    | { type: 'EDIT_INVALID' }
    | { type: 'BLUR' }
    | { type: 'SAVE_SUCCEEDED' }
    | { type: 'SAVE_FAILED' };

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'settingsModel',
    initial: 'pristine',
    states: {
      pristine: { on: { EDIT_VALID: 'changed', EDIT_INVALID: 'invalid', BLUR: 'pristine' } },
      changed: { on: { EDIT_VALID: 'changed', EDIT_INVALID: 'invalid', BLUR: 'saving' } },
      invalid: { on: { EDIT_VALID: 'changed', EDIT_INVALID: 'invalid', BLUR: 'invalid' } },
      saving: { on: { SAVE_SUCCEEDED: 'saved', SAVE_FAILED: 'failed' } },
      saved: { on: { EDIT_VALID: 'changed', EDIT_INVALID: 'invalid', BLUR: 'saved' } },
      failed: { on: { EDIT_VALID: 'failed', EDIT_INVALID: 'failedInvalid', BLUR: 'saving' } },
      failedInvalid: {
        on: { EDIT_VALID: 'failed', EDIT_INVALID: 'failedInvalid', BLUR: 'failedInvalid' },
      },
    },
  });

  it('agrees with the form it drives', () => {
    expect(
      modelDisagreements(model, autosaveFormMachine, {
        states: {
          pristine: 'pristine',
          changed: 'editing.waiting',
          invalid: 'editing.waiting',
          saving: 'saving.sending',
          saved: 'saved',
          // An edit after a failure is editing again, and the failure shows until the next save.
          failed: ['failed', 'editing.waiting'],
          failedInvalid: 'editing.waiting',
        },
        events: {
          EDIT_VALID: 'form.edited',
          EDIT_INVALID: 'form.edited',
          BLUR: 'form.blurred',
          SAVE_SUCCEEDED: 'xstate.done.actor.save',
          SAVE_FAILED: 'xstate.error.actor.save',
        },
        // The settings save on blur only; a blur during a save is the unit test's above.
        unmodelledStates: ['editing.debouncing', 'saving.resaveQueued'],
        // The settings offer no Retry (the next blur retries); remote updates: the tests above.
        unmodelledEvents: ['form.retryRequested', 'form.updatedRemotely'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  for (const path of paths) {
    it(path.description, async () => {
      const s = startSettings();
      let edits = 0;
      // Each visit of the model's `saving` is one save; no other step may send one.
      let expectedSaves = 0;
      const expectForm =
        (state: ReturnType<typeof selectSettingsSaveStatus>, valid: boolean, error = false) =>
        () => {
          if (state === 'saving') expectedSaves += 1;
          expect(s.status()).toBe(state);
          expect(Object.keys(selectSettingsMessages(s.form())).length === 0).toBe(valid);
          expect(selectSettingsError(s.form()) !== null).toBe(error);
          expect(s.saves).toHaveLength(expectedSaves);
        };
      await path.test({
        states: {
          pristine: expectForm('pristine', true),
          changed: expectForm('editing', true),
          invalid: expectForm('editing', false),
          saving: expectForm('saving', true),
          saved: expectForm('saved', true),
          failed: expectForm('failed', true, true),
          failedInvalid: expectForm('failed', false, true),
        },
        events: {
          // Every valid edit is a new name, so it is always a change against the saved copy.
          EDIT_VALID: () => s.edit('name', `Lab ${++edits}`),
          EDIT_INVALID: () => s.edit('name', ''),
          BLUR: () => s.blur(),
          SAVE_SUCCEEDED: () => s.settle('ok'),
          SAVE_FAILED: () => s.settle({ reject: { message: 'ResourceIsLocked' } }),
        },
      });
    });
  }
});
