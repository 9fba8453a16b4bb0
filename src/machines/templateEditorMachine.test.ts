import { describe, expect, it } from 'vitest';
import { modelPaths } from './testing/modelPaths';
import { createActor, createMachine, fromCallback, fromPromise } from 'xstate';
import type { ChangedTemplate, Template, TemplateSummary } from '../api/template';
import { NAME_REQUIRED, type TemplateField } from '../domain/templateFields';
import { autosaveFormMachine } from './autosaveFormMachine';
import { hasChanges } from './formSync';
import { isoChooserMachine } from './isoChooserMachine';
import { templateActionsMachine } from './templateActionsMachine';
import {
  DEPLOYED_MESSAGE,
  templateEditorMachine,
  type TemplateEditorReport,
  type TemplateEditorSnapshot,
} from './templateEditorMachine';
import {
  selectCanDeleteTemplate,
  selectCanRelink,
  selectCanUnlink,
  selectIsChoosingSibling,
  selectIsConfirmingTemplateDelete,
  selectIsoChooser,
  selectIsTemplateDeployed,
  selectIsTemplateLinked,
  selectSavedTemplateName,
  selectSiblings,
  selectTemplateActions,
  selectTemplateErrors,
  selectTemplateForm,
  selectTemplateHidden,
  selectTemplateMessages,
  selectTemplateParentName,
  selectTemplateSaveError,
  selectTemplateSaveStatus,
  selectTemplateText,
  selectVariantHint,
} from './templateEditorMachine.selectors';
import { selectVmController, selectVmName } from './vmControllerMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { unreachedStateIds } from './testing/reachability';

const LINKED: Template = {
  id: 't-1',
  name: 'linux-server-123',
  description: 'A small Linux server',
  networks: 'lan',
  guestinfo: '',
  iso: '',
  isHidden: false,
  isLinked: true,
  parentId: 'stock-1',
  parentName: 'linux-server',
  replicas: 0,
  variant: 0,
  workspaceId: 'ws-1',
};

const UNLINKED: Template = { ...LINKED, id: 't-2', isLinked: false, parentName: 'linux-server' };

const SIBLING: TemplateSummary = { id: 't-9', name: 'linux-server-v2', parentId: 'stock-1' };

type Outcome<T> = T | { reject: unknown };
const settle = async <T>(outcome: Outcome<T>): Promise<T> => {
  if (typeof outcome === 'object' && outcome !== null && 'reject' in outcome) throw outcome.reject;
  return outcome as T;
};

interface Options {
  template?: Template;
  deployed?: boolean;
  unlink?: Outcome<Template>;
  siblings?: Outcome<TemplateSummary[]>;
  relink?: Outcome<Template>;
  remove?: Outcome<unknown>;
}

/** Saves are deferreds the test settles; other calls answer their outcome at once. */
function startEditor(options: Options = {}) {
  const { template = LINKED, deployed = false } = options;
  const saves: Array<{ body: ChangedTemplate; result: Deferred<unknown> }> = [];
  const calls: Array<{ call: string; input: unknown }> = [];
  const reports: TemplateEditorReport[] = [];
  const reportTo = createActor(
    fromCallback<TemplateEditorReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    templateEditorMachine.provide({
      actors: {
        form: autosaveFormMachine.provide({
          actors: {
            save: fromPromise<unknown, ChangedTemplate>(({ input }) => {
              const result = deferred<unknown>();
              saves.push({ body: input, result });
              return result.promise;
            }),
          },
        }),
        actions: templateActionsMachine.provide({
          actors: {
            unlinkTemplate: fromPromise<Template, { templateId: string; workspaceId: string }>(
              ({ input }) => {
                calls.push({ call: 'unlink', input });
                return settle(options.unlink ?? { ...template, isLinked: false });
              },
            ),
            listSiblings: fromPromise<TemplateSummary[], { templateId: string }>(({ input }) => {
              calls.push({ call: 'siblings', input });
              return settle(options.siblings ?? [SIBLING]);
            }),
            relinkTemplate: fromPromise<
              Template,
              { templateId: string; parentId: string; workspaceId: string }
            >(({ input }) => {
              calls.push({ call: 'relink', input });
              return settle(
                options.relink ?? {
                  ...template,
                  parentId: input.parentId,
                  parentName: 'linux-server-v2',
                },
              );
            }),
            deleteTemplate: fromPromise<unknown, { templateId: string }>(({ input }) => {
              calls.push({ call: 'delete', input });
              return settle(options.remove ?? null);
            }),
          },
        }),
        isoChooser: isoChooserMachine.provide({
          actors: { listIsos: fromPromise(async () => ['ws-1/tools.iso']) },
        }),
      },
    }),
    { input: { template, workspaceId: 'ws-1', deployed, reportTo } },
  ).start();
  const snapshot = () => actor.getSnapshot();
  // The fields are the editor's form's; the requests its actions'.
  const form = () => {
    const ref = selectTemplateForm(snapshot());
    if (!ref) throw new Error('no form');
    return ref.getSnapshot();
  };
  const actions = () => {
    const ref = selectTemplateActions(snapshot());
    if (!ref) throw new Error('no actions');
    return ref.getSnapshot();
  };
  const edit = (field: TemplateField, value: string | boolean) =>
    actor.send({ type: 'template.fieldEdited', field, value });
  const blur = () => actor.send({ type: 'template.fieldBlurred' });
  const text = (field: Exclude<TemplateField, 'isHidden'>) => selectTemplateText(field)(form());
  const settleSave = async (outcome: 'ok' | { reject: unknown }) => {
    const save = saves[saves.length - 1];
    if (!save) throw new Error('no save');
    if (outcome === 'ok') save.result.resolve(undefined);
    else save.result.reject(outcome.reject);
    await flush();
  };
  return { actor, snapshot, form, actions, saves, calls, reports, edit, blur, text, settleSave };
}

describe('templateEditorMachine: the form', () => {
  it("shows the template's fields, numbers as text", () => {
    const e = startEditor();
    expect(e.text('name')).toBe('linux-server-123');
    expect(e.text('replicas')).toBe('0');
    expect(selectTemplateHidden(e.form())).toBe(false);
    expect(selectSavedTemplateName(e.snapshot())).toBe('linux-server-123');
    expect(selectTemplateSaveStatus(e.form())).toBe('clean');
  });

  it('replaces spaces in the name with hyphens as it is typed', () => {
    const e = startEditor();
    e.edit('name', 'web server 01');
    expect(e.text('name')).toBe('web-server-01');
  });

  it("refuses an empty name with 'Please enter a name for this template.' and saves nothing", () => {
    const e = startEditor();
    e.edit('name', '');
    expect(selectTemplateMessages(e.form()).name).toBe(NAME_REQUIRED);
    expect(NAME_REQUIRED).toBe('Please enter a name for this template.');
    e.blur();
    expect(e.saves).toHaveLength(0);
  });

  it('saves a valid change on blur with the ChangedTemplate body, numbers as numbers', async () => {
    const e = startEditor();
    e.edit('replicas', '-1');
    e.edit('variant', '2');
    e.edit('name', 'kali_v2');
    e.edit('guestinfo', '# comment\nuser = student\n\npass=secret');
    e.edit('isHidden', true);
    e.blur();
    expect(e.saves.map((save) => save.body)).toEqual([
      {
        id: 't-1',
        name: 'kali_v2',
        description: 'A small Linux server',
        networks: 'lan',
        iso: '',
        isHidden: true,
        guestinfo: '# comment\nuser = student\n\npass=secret',
        replicas: -1,
        variant: 2,
      },
    ]);
    await e.settleSave('ok');
    expect(selectTemplateSaveStatus(e.form())).toBe('saved');
    e.blur();
    expect(e.saves).toHaveLength(1);
  });

  it('shows a saved rename in its header and machine bar at once, without a reload', async () => {
    const e = startEditor();
    const machineName = () => {
      const controller = selectVmController(e.snapshot());
      if (!controller) throw new Error('no machine controller');
      return selectVmName(controller.getSnapshot());
    };
    expect(machineName()).toBe('linux-server-123');
    e.edit('name', 'router');
    e.blur();
    expect(selectSavedTemplateName(e.snapshot())).toBe('linux-server-123');
    await e.settleSave('ok');
    expect(selectSavedTemplateName(e.snapshot())).toBe('router');
    expect(machineName()).toBe('router');
  });

  it('does not save on blur when nothing changed', () => {
    const e = startEditor();
    e.blur();
    e.edit('networks', 'lan wan');
    e.edit('networks', 'lan');
    e.blur();
    expect(e.saves).toHaveLength(0);
  });

  it('validates guest settings lines, replicas, variant and the limits', () => {
    const e = startEditor();
    e.edit('guestinfo', 'a = 1\nnot a setting\n# fine\n= 2');
    e.edit('replicas', '6');
    e.edit('variant', '-1');
    e.edit('description', 'd'.repeat(256));
    e.edit('networks', 'n'.repeat(65));
    expect(selectTemplateMessages(e.form())).toEqual({
      guestinfo: 'Lines 2, 4: use key = value (lines starting with # are ignored).',
      replicas: 'A number from -1 (one per player) to 5.',
      variant: 'A number: 0 for all variants.',
      description: 'At most 255 characters.',
      networks: 'At most 64 characters.',
    });
    e.blur();
    expect(e.saves).toHaveLength(0);
  });

  it('hints at a _v suffix for a non-zero variant whose name has none', () => {
    const e = startEditor();
    expect(selectVariantHint(e.form())).toBeNull();
    e.edit('variant', '1');
    expect(selectVariantHint(e.form())).toBe(
      'Templates of a variant should carry a suffix such as _v1 in their name.',
    );
    e.edit('name', 'linux-server_v1');
    expect(selectVariantHint(e.form())).toBeNull();
  });

  it('keeps the edited values when a save fails, shows why, and retries on the next blur', async () => {
    const e = startEditor();
    e.edit('description', 'Changed');
    e.blur();
    await e.settleSave({ reject: { status: 400, message: 'ResourceNotFound' } });
    expect(selectTemplateSaveStatus(e.form())).toBe('failed');
    expect(selectTemplateSaveError(e.form())).toBe('It was not found: it may have been deleted.');
    expect(e.text('description')).toBe('Changed');
    e.blur();
    expect(e.saves).toHaveLength(2);
  });

  it('takes remote updates for the fields not being edited', () => {
    const e = startEditor();
    e.edit('description', 'Mine');
    e.actor.send({
      type: 'template.updatedRemotely',
      template: { ...LINKED, name: 'renamed', description: 'Theirs' },
    });
    expect(e.text('name')).toBe('renamed');
    expect(e.text('description')).toBe('Mine');
    expect(selectSavedTemplateName(e.snapshot())).toBe('renamed');
  });
});

describe('templateEditorMachine: while deployed', () => {
  it(`refuses edits, saves and actions with '${DEPLOYED_MESSAGE}'`, () => {
    const e = startEditor({ deployed: true });
    expect(selectIsTemplateDeployed(e.snapshot())).toBe(true);
    e.edit('name', 'other');
    e.blur();
    expect(e.text('name')).toBe('linux-server-123');
    expect(e.saves).toHaveLength(0);
    expect(selectCanUnlink(e.snapshot())).toBe(false);
    expect(selectCanDeleteTemplate(e.snapshot())).toBe(false);
    e.actor.send({ type: 'template.unlinkRequested' });
    expect(e.calls).toEqual([]);
  });

  it('keeps changes made before the deploy and saves them once undeployed', () => {
    const e = startEditor();
    e.edit('description', 'Before deploy');
    e.actor.send({ type: 'template.deploymentChanged', deployed: true });
    e.blur();
    expect(e.saves).toHaveLength(0);
    e.actor.send({ type: 'template.deploymentChanged', deployed: false });
    expect(selectIsTemplateDeployed(e.snapshot())).toBe(false);
    e.blur();
    expect(e.saves.map((save) => save.body.description)).toEqual(['Before deploy']);
  });
});

describe('templateEditorMachine: link, re-link and delete', () => {
  it('unlinks a linked template', async () => {
    const e = startEditor();
    expect(selectCanRelink(e.snapshot())).toBe(false);
    e.actor.send({ type: 'template.unlinkRequested' });
    await flush();
    expect(e.calls).toEqual([
      { call: 'unlink', input: { templateId: 't-1', workspaceId: 'ws-1' } },
    ]);
    expect(selectIsTemplateLinked(e.snapshot())).toBe(false);
    expect(selectCanUnlink(e.snapshot())).toBe(false);
    expect(selectCanRelink(e.snapshot())).toBe(true);
  });

  it('re-links an unlinked template to the chosen sibling revision', async () => {
    const e = startEditor({ template: UNLINKED });
    expect(selectCanUnlink(e.snapshot())).toBe(false);
    e.actor.send({ type: 'template.relinkRequested' });
    await flush();
    expect(selectIsChoosingSibling(e.actions())).toBe(true);
    expect(selectSiblings(e.actions())).toEqual([SIBLING]);
    e.actor.send({ type: 'template.siblingChosen', parentId: 't-9' });
    await flush();
    expect(e.calls.map((c) => c.input)).toEqual([
      { templateId: 't-2' },
      { templateId: 't-2', parentId: 't-9', workspaceId: 'ws-1' },
    ]);
    expect(selectTemplateParentName(e.snapshot())).toBe('linux-server-v2');
    expect(selectIsChoosingSibling(e.actions())).toBe(false);
  });

  it('can cancel choosing a sibling', async () => {
    const e = startEditor({ template: UNLINKED, siblings: [] });
    e.actor.send({ type: 'template.relinkRequested' });
    await flush();
    e.actor.send({ type: 'template.relinkCancelled' });
    expect(selectIsChoosingSibling(e.actions())).toBe(false);
  });

  it('asks before deleting, deletes, and tells the list', async () => {
    const e = startEditor();
    e.actor.send({ type: 'template.deleteRequested' });
    expect(selectIsConfirmingTemplateDelete(e.actions())).toBe(true);
    expect(e.calls).toEqual([]);
    e.actor.send({ type: 'template.deleteConfirmed' });
    await flush();
    expect(e.calls).toEqual([{ call: 'delete', input: { templateId: 't-1' } }]);
    expect(e.reports).toEqual([{ type: 'template.deleted', templateId: 't-1' }]);
  });

  it('explains TemplateHasDescendents when the delete is refused', async () => {
    const e = startEditor({
      remove: { reject: { status: 400, message: 'TemplateHasDescendents' } },
    });
    e.actor.send({ type: 'template.deleteRequested' });
    e.actor.send({ type: 'template.deleteConfirmed' });
    await flush();
    expect(selectTemplateErrors(e.actions())).toEqual([
      'Other templates were made from this one, so it cannot be deleted.',
    ]);
    expect(e.reports).toEqual([]);
    e.actor.send({ type: 'template.errorDismissed', index: 0 });
    expect(selectTemplateErrors(e.actions())).toEqual([]);
  });

  it('has an ISO chooser for the workspace', () => {
    const e = startEditor();
    expect(selectIsoChooser(e.snapshot())?.getSnapshot().context.workspaceId).toBe('ws-1');
  });
});

describe('templateEditorMachine reachability', () => {
  it('reaches every state', () => {
    expect(
      unreachedStateIds(templateEditorMachine, {
        serializeState: (snapshot) => {
          const { context } = snapshot as TemplateEditorSnapshot;
          return JSON.stringify([snapshot.value, context.template.isLinked]);
        },
        inputs: [
          { template: LINKED, workspaceId: 'ws-1' },
          { template: UNLINKED, workspaceId: 'ws-1', deployed: true },
        ],
        payloads: [
          { type: 'template.fieldEdited', field: 'name', value: 'web01' },
          { type: 'template.deploymentChanged', deployed: true },
          { type: 'template.deploymentChanged', deployed: false },
          { type: 'template.linkChanged', template: UNLINKED },
          { type: 'template.siblingChosen', parentId: 't-9' },
        ],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the template autosave rule (spec §4: saved on blur when valid and changed)
 * combined with the deploy lock (spec §2: no edit while deployed), driving the real actor.
 */
describe('templateEditorMachine against the autosave and lock model', () => {
  type ModelEvent =
    | { type: 'EDIT_VALID' }
    | { type: 'EDIT_INVALID' }
    | { type: 'BLUR' }
    | { type: 'SAVE_SUCCEEDED' }
    | { type: 'DEPLOYED' }
    | { type: 'UNDEPLOYED' };

  const ignoredWhileLocked = (state: string) => ({
    EDIT_VALID: state,
    EDIT_INVALID: state,
    BLUR: state,
    DEPLOYED: state,
  });

  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'templateModel',
    initial: 'clean',
    states: {
      clean: {
        on: {
          EDIT_VALID: 'changed',
          EDIT_INVALID: 'invalid',
          BLUR: 'clean',
          DEPLOYED: 'lockedClean',
        },
      },
      changed: {
        on: {
          EDIT_VALID: 'changed',
          EDIT_INVALID: 'invalid',
          BLUR: 'saving',
          DEPLOYED: 'lockedChanged',
        },
      },
      invalid: {
        on: {
          EDIT_VALID: 'changed',
          EDIT_INVALID: 'invalid',
          BLUR: 'invalid',
          DEPLOYED: 'lockedInvalid',
        },
      },
      saving: { on: { SAVE_SUCCEEDED: 'clean' } },
      lockedClean: { on: { ...ignoredWhileLocked('lockedClean'), UNDEPLOYED: 'clean' } },
      lockedChanged: { on: { ...ignoredWhileLocked('lockedChanged'), UNDEPLOYED: 'changed' } },
      lockedInvalid: { on: { ...ignoredWhileLocked('lockedInvalid'), UNDEPLOYED: 'invalid' } },
    },
  });

  it('agrees with the editor it drives', () => {
    expect(
      modelDisagreements(model, templateEditorMachine, {
        states: {
          clean: 'unlocked',
          changed: 'unlocked',
          invalid: 'unlocked',
          saving: 'unlocked',
          lockedClean: 'locked',
          lockedChanged: 'locked',
          lockedInvalid: 'locked',
        },
        events: {
          EDIT_VALID: 'template.fieldEdited',
          EDIT_INVALID: 'template.fieldEdited',
          BLUR: 'template.fieldBlurred',
          // Settled in the form, the editor's child (its own model test checks that machine).
          SAVE_SUCCEEDED: [],
          DEPLOYED: 'template.deploymentChanged',
          UNDEPLOYED: 'template.deploymentChanged',
        },
        // The actions, remote updates and the server copies of unlink and re-link: the tests
        // above and templateActionsMachine's; the form's report of a save: the rename test.
        unmodelledEvents: [
          'template.updatedRemotely',
          'form.saved',
          'template.unlinkRequested',
          'template.relinkRequested',
          'template.siblingChosen',
          'template.relinkCancelled',
          'template.deleteRequested',
          'template.deleteConfirmed',
          'template.deleteCancelled',
          'template.errorDismissed',
          'template.linkChanged',
          'template.deleted',
        ],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  for (const path of paths) {
    it(path.description, async () => {
      const e = startEditor();
      let edits = 0;
      let expectedSaves = 0;
      const expectEditor =
        (expected: { locked: boolean; valid: boolean; changed: boolean; saving?: boolean }) =>
        () => {
          if (expected.saving) expectedSaves += 1;
          const form = e.form();
          expect(selectIsTemplateDeployed(e.snapshot())).toBe(expected.locked);
          expect(Object.keys(selectTemplateMessages(form)).length === 0).toBe(expected.valid);
          expect(hasChanges(form.context.values, form.context.saved)).toBe(expected.changed);
          expect(selectTemplateSaveStatus(form) === 'saving').toBe(expected.saving ?? false);
          expect(e.saves).toHaveLength(expectedSaves);
        };
      await path.test({
        states: {
          clean: expectEditor({ locked: false, valid: true, changed: false }),
          changed: expectEditor({ locked: false, valid: true, changed: true }),
          invalid: expectEditor({ locked: false, valid: false, changed: true }),
          saving: expectEditor({ locked: false, valid: true, changed: true, saving: true }),
          lockedClean: expectEditor({ locked: true, valid: true, changed: false }),
          lockedChanged: expectEditor({ locked: true, valid: true, changed: true }),
          lockedInvalid: expectEditor({ locked: true, valid: false, changed: true }),
        },
        events: {
          // Every valid edit is a new name, so it is always a change against the saved copy.
          EDIT_VALID: () => e.edit('name', `lab-${++edits}`),
          EDIT_INVALID: () => e.edit('name', ''),
          BLUR: () => e.blur(),
          SAVE_SUCCEEDED: () => e.settleSave('ok'),
          DEPLOYED: () => e.actor.send({ type: 'template.deploymentChanged', deployed: true }),
          UNDEPLOYED: () => e.actor.send({ type: 'template.deploymentChanged', deployed: false }),
        },
      });
    });
  }
});
