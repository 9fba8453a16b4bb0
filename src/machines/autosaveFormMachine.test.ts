import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromCallback, fromPromise, SimulatedClock } from 'xstate';
import {
  autosaveFormMachine,
  type AutosaveFormReport,
  type AutosaveFormRules,
  type AutosaveFormSnapshot,
} from './autosaveFormMachine';
import {
  selectAutosaveStatus,
  selectCanRetrySave,
  selectFormError,
  selectFormIsValid,
  selectFormMessages,
  selectFormValues,
} from './autosaveFormMachine.selectors';
import { hasChanges } from './formSync';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths, transitionCoverage } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

interface Values {
  name: string;
  notes: string;
}

type Edit = { field: keyof Values; value: string };

const NAME_REQUIRED = 'Please enter a name.';

/** A small form of its own kind: a required name and free notes, saved with its id. */
const RULES: AutosaveFormRules<Values, Edit> = {
  edit: (values, edit) =>
    edit?.field === 'name' || edit?.field === 'notes'
      ? { ...values, [edit.field]: edit.value }
      : values,
  validate: (values) => (values.name.trim() === '' ? { name: NAME_REQUIRED } : {}),
  saveInput: (values) => ({ id: 'item-1', ...values }),
};

const VALUES: Values = { name: 'Lab', notes: '' };

/** Each save is a deferred the test settles; `reports` are what the parent was told. */
function startForm(
  options: { autosaveMs?: number | null; rules?: AutosaveFormRules<Values, Edit> } = {},
) {
  const clock = new SimulatedClock();
  const saves: Array<{ input: unknown; result: Deferred<unknown> }> = [];
  const reports: AutosaveFormReport[] = [];
  const reportTo = createActor(
    fromCallback<AutosaveFormReport>(({ receive }) => receive((event) => reports.push(event))),
  ).start();
  const actor = createActor(
    autosaveFormMachine.provide({
      actors: {
        save: fromPromise<unknown, unknown>(({ input }) => {
          const result = deferred<unknown>();
          saves.push({ input, result });
          return result.promise;
        }),
      },
    }),
    {
      clock,
      input: {
        values: VALUES,
        rules: options.rules ?? RULES,
        autosaveMs: options.autosaveMs ?? null,
        reportTo,
      },
    },
  ).start();
  const snapshot = () => actor.getSnapshot();
  const edit = (field: keyof Values, value: string) =>
    actor.send({ type: 'form.edited', edit: { field, value } });
  const blur = () => actor.send({ type: 'form.blurred' });
  const status = () => selectAutosaveStatus(snapshot());
  const values = () => selectFormValues<Values>(snapshot());
  const settle = async (outcome: 'ok' | { reject: unknown }) => {
    const save = saves.at(-1);
    if (!save) throw new Error('no save');
    if (outcome === 'ok') save.result.resolve(undefined);
    else save.result.reject(outcome.reject);
    await flush();
  };
  return { actor, clock, saves, reports, snapshot, edit, blur, status, values, settle };
}

describe('autosaveFormMachine', () => {
  it('starts pristine with the given values, validated, and a blur saves nothing', () => {
    const f = startForm();
    expect(f.status()).toBe('pristine');
    expect(f.values()).toEqual(VALUES);
    expect(selectFormIsValid(f.snapshot())).toBe(true);
    f.blur();
    expect(f.saves).toHaveLength(0);
  });

  it("saves a valid change on blur with what the rules make of it, and reports the server's new copy", async () => {
    const f = startForm();
    f.edit('name', 'Intro');
    expect(f.saves).toHaveLength(0);
    f.blur();
    expect(f.status()).toBe('saving');
    expect(f.saves.map((s) => s.input)).toEqual([{ id: 'item-1', name: 'Intro', notes: '' }]);
    await f.settle('ok');
    expect(f.status()).toBe('saved');
    expect(f.reports).toEqual([{ type: 'form.saved', values: { name: 'Intro', notes: '' } }]);
    f.blur();
    expect(f.saves).toHaveLength(1);
  });

  it('shows what is wrong and does not save invalid values, nor edits that were undone', () => {
    const f = startForm();
    f.edit('name', ' ');
    expect(selectFormMessages(f.snapshot())).toEqual({ name: NAME_REQUIRED });
    f.blur();
    f.edit('name', 'Lab');
    f.blur();
    expect(f.status()).toBe('editing');
    expect(f.saves).toHaveLength(0);
  });

  it('keeps the values when a save fails, says why until the next save, and retries on blur or Retry', async () => {
    const f = startForm();
    f.edit('name', 'Intro');
    f.blur();
    await f.settle({ reject: { status: 403, message: 'ActionForbidden' } });
    expect(f.status()).toBe('failed');
    expect(f.values().name).toBe('Intro');
    expect(selectFormError(f.snapshot())).toBe('You are not allowed to do this.');
    expect(selectCanRetrySave(f.snapshot())).toBe(true);
    f.actor.send({ type: 'form.retryRequested' });
    expect(f.status()).toBe('saving');
    expect(selectFormError(f.snapshot())).toBeNull();
    await f.settle({ reject: { message: 'ResourceIsLocked' } });
    f.edit('notes', 'more');
    expect(f.status()).toBe('editing');
    expect(selectFormError(f.snapshot())).toBe(
      'This is already being done: wait a moment and try again.',
    );
    f.blur();
    await f.settle('ok');
    expect(f.saves.map((s) => s.input)).toEqual([
      { id: 'item-1', name: 'Intro', notes: '' },
      { id: 'item-1', name: 'Intro', notes: '' },
      { id: 'item-1', name: 'Intro', notes: 'more' },
    ]);
    expect(f.status()).toBe('saved');
  });

  it("words a failure with the rules' own description when they have one", async () => {
    const f = startForm({ rules: { ...RULES, describeError: () => 'Refused: read the docs.' } });
    f.edit('name', 'Intro');
    f.blur();
    await f.settle({ reject: { message: 'Whatever' } });
    expect(selectFormError(f.snapshot())).toBe('Refused: read the docs.');
  });

  it('queues one more save for changes blurred during a save, unless they became invalid', async () => {
    const f = startForm();
    f.edit('name', 'Intro');
    f.blur();
    f.edit('notes', 'Networking');
    f.blur();
    f.blur();
    expect(f.saves).toHaveLength(1);
    await f.settle('ok');
    expect(f.status()).toBe('saving');
    expect(f.saves.map((s) => s.input)).toEqual([
      { id: 'item-1', name: 'Intro', notes: '' },
      { id: 'item-1', name: 'Intro', notes: 'Networking' },
    ]);
    f.edit('notes', 'Routing');
    f.blur();
    f.edit('name', '');
    await f.settle('ok');
    expect(f.status()).toBe('editing');
    expect(f.saves).toHaveLength(2);
  });

  it('goes back to editing after a save when the user typed meanwhile without leaving the field', async () => {
    const f = startForm();
    f.edit('name', 'Intro');
    f.blur();
    f.edit('name', 'Intro 2');
    await f.settle('ok');
    expect(f.status()).toBe('editing');
    f.blur();
    expect(f.saves.map((s) => s.input)).toEqual([
      { id: 'item-1', name: 'Intro', notes: '' },
      { id: 'item-1', name: 'Intro 2', notes: '' },
    ]);
  });

  it('takes remote updates for the fields the user has not changed, and ignores its own echo', async () => {
    const f = startForm();
    f.edit('name', 'Mine');
    f.actor.send({ type: 'form.updatedRemotely', values: { name: 'Theirs', notes: 'n' } });
    expect(f.values()).toEqual({ name: 'Mine', notes: 'n' });
    f.blur();
    f.actor.send({ type: 'form.updatedRemotely', values: { name: 'Mine', notes: 'n' } });
    await f.settle('ok');
    expect(f.status()).toBe('saved');
    expect(f.values()).toEqual({ name: 'Mine', notes: 'n' });
  });

  it('with a delay, also saves that long after the last valid change, and at once on blur', async () => {
    const f = startForm({ autosaveMs: 1_000 });
    f.edit('name', 'Intro');
    f.clock.increment(900);
    f.edit('notes', 'x');
    f.clock.increment(999);
    expect(f.saves).toHaveLength(0);
    f.clock.increment(1);
    expect(f.saves.map((s) => s.input)).toEqual([{ id: 'item-1', name: 'Intro', notes: 'x' }]);
    await f.settle('ok');
    f.edit('name', '');
    f.clock.increment(5_000);
    expect(f.saves).toHaveLength(1);
    f.edit('name', 'Fixed');
    f.blur();
    expect(f.saves).toHaveLength(2);
  });

  it('without a delay, waits for the blur however long it takes', () => {
    const f = startForm();
    f.edit('name', 'Intro');
    f.clock.increment(60_000);
    expect(f.saves).toHaveLength(0);
    expect(f.snapshot().matches({ editing: 'waiting' })).toBe(true);
  });

  it('reaches every state, with and without a delay', () => {
    expect(
      unreachedStateIds(autosaveFormMachine, {
        // The values matter only as valid or not, and changed or not against the saved copy and
        // the values in flight.
        serializeState: (snapshot) => {
          const { context } = snapshot as AutosaveFormSnapshot;
          return JSON.stringify([
            snapshot.value,
            Object.keys(context.messages).length === 0,
            hasChanges(context.values, context.saved),
            hasChanges(context.values, context.sending),
          ]);
        },
        inputs: [
          { values: VALUES, rules: RULES },
          { values: VALUES, rules: RULES, autosaveMs: 1_000 },
        ],
        payloads: [
          { type: 'form.edited', edit: { field: 'name', value: 'Intro' } },
          { type: 'form.edited', edit: { field: 'name', value: '' } },
          { type: 'form.edited', edit: { field: 'notes', value: 'more' } },
        ],
      }),
    ).toEqual([]);
  });
});

/** What the model tests see of the form at each model state. */
interface Expected {
  status: ReturnType<typeof selectAutosaveStatus>;
  valid: boolean;
  error: boolean;
  /** A visit of this model state is one more save. */
  saves?: boolean;
}

/** Drives the real form through a path of an abstract model and checks each state it reaches. */
function pathTest(expected: Record<string, Expected>, autosaveMs: number | null) {
  return async (path: ReturnType<typeof modelPaths>[number]) => {
    const f = startForm({ autosaveMs });
    let edits = 0;
    let expectedSaves = 0;
    const check = (state: Expected) => () => {
      if (state.saves) expectedSaves += 1;
      expect(f.status()).toBe(state.status);
      expect(selectFormIsValid(f.snapshot())).toBe(state.valid);
      expect(selectFormError(f.snapshot()) !== null).toBe(state.error);
      expect(f.saves).toHaveLength(expectedSaves);
    };
    await path.test({
      states: Object.fromEntries(Object.entries(expected).map(([name, e]) => [name, check(e)])),
      events: {
        // Every valid edit is a new name, so it is always a change against the saved copy.
        EDIT_VALID: () => f.edit('name', `Lab ${++edits}`),
        EDIT_INVALID: () => f.edit('name', ''),
        BLUR: () => f.blur(),
        WAIT: () => f.clock.increment(autosaveMs ?? 0),
        RETRY: () => f.actor.send({ type: 'form.retryRequested' }),
        SAVE_SUCCEEDED: () => f.settle('ok'),
        SAVE_FAILED: () => f.settle({ reject: { message: 'ResourceIsLocked' } }),
      },
    });
  };
}

/**
 * Model-based test of the rule of spec §4 ("settings autosave when changed and valid and not
 * pristine, triggered on blur") as an abstract machine, driving the real actor: each model state
 * names what the form holds; a save is sent exactly on the visits of the saving states.
 */
describe('autosaveFormMachine against the save-on-blur model', () => {
  type ModelEvent =
    | { type: 'EDIT_VALID' }
    | { type: 'EDIT_INVALID' }
    | { type: 'BLUR' }
    | { type: 'RETRY' }
    | { type: 'SAVE_SUCCEEDED' }
    | { type: 'SAVE_FAILED' };

  const editing = { EDIT_VALID: 'changed', EDIT_INVALID: 'invalid' } as const;
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'saveOnBlurModel',
    initial: 'pristine',
    states: {
      pristine: { on: { ...editing, BLUR: 'pristine' } },
      changed: { on: { ...editing, BLUR: 'saving' } },
      invalid: { on: { ...editing, BLUR: 'invalid' } },
      saving: {
        on: { SAVE_SUCCEEDED: 'saved', SAVE_FAILED: 'failed', EDIT_VALID: 'typedWhileSaving' },
      },
      typedWhileSaving: { on: { BLUR: 'queued', SAVE_SUCCEEDED: 'changed' } },
      queued: { on: { SAVE_SUCCEEDED: 'saving' } },
      saved: { on: { ...editing, BLUR: 'saved' } },
      failed: {
        on: {
          EDIT_VALID: 'failedChanged',
          EDIT_INVALID: 'failedInvalid',
          BLUR: 'saving',
          RETRY: 'saving',
        },
      },
      failedChanged: { on: { EDIT_INVALID: 'failedInvalid', BLUR: 'saving' } },
      failedInvalid: { on: { EDIT_VALID: 'failedChanged', BLUR: 'failedInvalid' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, autosaveFormMachine, {
        states: {
          pristine: 'pristine',
          changed: 'editing.waiting',
          invalid: 'editing.waiting',
          saving: 'saving.sending',
          typedWhileSaving: 'saving.sending',
          queued: 'saving.resaveQueued',
          saved: 'saved',
          failed: 'failed',
          failedChanged: 'editing.waiting',
          failedInvalid: 'editing.waiting',
        },
        events: {
          EDIT_VALID: 'form.edited',
          EDIT_INVALID: 'form.edited',
          BLUR: 'form.blurred',
          RETRY: 'form.retryRequested',
          SAVE_SUCCEEDED: 'xstate.done.actor.save',
          SAVE_FAILED: 'xstate.error.actor.save',
        },
        // The form with a delay: the model below.
        unmodelledStates: ['editing.debouncing'],
        // Remote updates change values, not the save rule: the unit tests above.
        unmodelledEvents: ['form.updatedRemotely'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const run = pathTest(
    {
      pristine: { status: 'pristine', valid: true, error: false },
      changed: { status: 'editing', valid: true, error: false },
      invalid: { status: 'editing', valid: false, error: false },
      saving: { status: 'saving', valid: true, error: false, saves: true },
      typedWhileSaving: { status: 'saving', valid: true, error: false },
      queued: { status: 'saving', valid: true, error: false },
      saved: { status: 'saved', valid: true, error: false },
      failed: { status: 'failed', valid: true, error: true },
      failedChanged: { status: 'editing', valid: true, error: true },
      failedInvalid: { status: 'editing', valid: false, error: true },
    },
    null,
  );
  for (const path of paths) it(path.description, () => run(path));
});

/**
 * Model-based test of the rule of spec §5 for the challenge (valid changes save 1 s after the last
 * change, or at once on blur; invalid ones wait; a failure keeps the values and retries on
 * request), driving a real form with a delay.
 */
describe('autosaveFormMachine against the delayed autosave model', () => {
  type ModelEvent =
    | { type: 'EDIT_VALID' }
    | { type: 'EDIT_INVALID' }
    | { type: 'WAIT' }
    | { type: 'BLUR' }
    | { type: 'RETRY' }
    | { type: 'SAVE_SUCCEEDED' }
    | { type: 'SAVE_FAILED' };

  const editing = { EDIT_VALID: 'unsaved', EDIT_INVALID: 'invalid' } as const;
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'delayedAutosaveModel',
    initial: 'pristine',
    states: {
      pristine: { on: { ...editing, WAIT: 'pristine', BLUR: 'pristine' } },
      unsaved: { on: { ...editing, WAIT: 'saving', BLUR: 'saving' } },
      invalid: { on: { ...editing, WAIT: 'invalid', BLUR: 'invalid' } },
      saving: { on: { SAVE_SUCCEEDED: 'saved', SAVE_FAILED: 'failed' } },
      saved: { on: { ...editing, WAIT: 'saved' } },
      failed: { on: { EDIT_VALID: 'failedUnsaved', RETRY: 'saving' } },
      failedUnsaved: { on: { WAIT: 'saving' } },
    },
  });

  it('agrees with the real machine', () => {
    expect(
      modelDisagreements(model, autosaveFormMachine, {
        states: {
          pristine: 'pristine',
          unsaved: 'editing.debouncing',
          invalid: 'editing.debouncing',
          saving: 'saving.sending',
          saved: 'saved',
          failed: 'failed',
          failedUnsaved: 'editing.debouncing',
        },
        events: {
          EDIT_VALID: 'form.edited',
          EDIT_INVALID: 'form.edited',
          WAIT: 'xstate.after.autosave.autosaveForm.editing.debouncing',
          BLUR: 'form.blurred',
          RETRY: 'form.retryRequested',
          SAVE_SUCCEEDED: 'xstate.done.actor.save',
          SAVE_FAILED: 'xstate.error.actor.save',
        },
        // The form without a delay, and a blur during a save: the model above.
        unmodelledStates: ['editing.waiting', 'saving.resaveQueued'],
        unmodelledEvents: ['form.updatedRemotely'],
      }),
    ).toEqual([]);
  });

  const paths = modelPaths(model);

  it('walks every transition of the model', () => {
    const { walked, transitions } = transitionCoverage(model, paths);
    expect(walked).toEqual(transitions);
  });

  const run = pathTest(
    {
      pristine: { status: 'pristine', valid: true, error: false },
      unsaved: { status: 'editing', valid: true, error: false },
      invalid: { status: 'editing', valid: false, error: false },
      saving: { status: 'saving', valid: true, error: false, saves: true },
      saved: { status: 'saved', valid: true, error: false },
      failed: { status: 'failed', valid: true, error: true },
      failedUnsaved: { status: 'editing', valid: true, error: true },
    },
    1_000,
  );
  for (const path of paths) it(path.description, () => run(path));
});
