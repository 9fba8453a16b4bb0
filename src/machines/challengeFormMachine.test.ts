import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, SimulatedClock } from 'xstate';
import { normalizeChallengeSpec, type ChallengeSpec } from '../domain/challenge';
import { MESSAGES, valueAt } from '../domain/challengeForm';
import { autosaveFormMachine } from './autosaveFormMachine';
import {
  AUTOSAVE_DELAY_MS,
  challengeFormMachine,
  type ChallengeFormSnapshot,
} from './challengeFormMachine';
import {
  selectCanRetry,
  selectChallengeDraft,
  selectChallengeDraftForm,
  selectChallengeError,
  selectChallengeLoadError,
  selectChallengeLoadStatus,
  selectChallengeMessages,
  selectChallengeSaveStatus,
  selectConfirmingRemoval,
  selectFreshItems,
  selectShowsMessage,
} from './challengeFormMachine.selectors';
import { deferred, flush, type Deferred } from './testing/deferred';
import { modelDisagreements } from './testing/modelAgreement';
import { modelPaths } from './testing/modelPaths';
import { unreachedStateIds } from './testing/reachability';

const SPEC = normalizeChallengeSpec({
  text: 'Intro',
  transforms: [{ key: 'flag', value: 'hex:8' }],
  variants: [
    {
      sections: [
        { name: 'Recon', questions: [{ text: 'Port?', answer: '22', weight: 0.5 }] },
        { questions: [{ text: 'Flag?', answer: '##flag##' }] },
      ],
    },
  ],
});

const QUESTION = 'variants.0.sections.0.questions.0';

/** Each load and save is a deferred the test settles; time moves only with `wait`. */
function startForm() {
  const loads: Array<Deferred<ChallengeSpec>> = [];
  const saves: Array<{
    input: { workspaceId: string; spec: ChallengeSpec };
    result: Deferred<unknown>;
  }> = [];
  const clock = new SimulatedClock();
  const actor = createActor(
    challengeFormMachine.provide({
      actors: {
        loadChallenge: fromPromise<ChallengeSpec, { workspaceId: string }>(() => {
          const result = deferred<ChallengeSpec>();
          loads.push(result);
          return result.promise;
        }),
        form: autosaveFormMachine.provide({
          actors: {
            save: fromPromise<unknown, { workspaceId: string; spec: ChallengeSpec }>(
              ({ input }) => {
                const result = deferred<unknown>();
                saves.push({ input, result });
                return result.promise;
              },
            ),
          },
        }),
      },
    }),
    { input: { workspaceId: 'ws-1' }, clock },
  ).start();
  const snapshot = () => actor.getSnapshot();
  // Once loaded, the draft and the save status are the form's, the challenge form's child.
  const form = () => {
    const ref = selectChallengeDraftForm(snapshot());
    if (!ref) throw new Error('no form');
    return ref.getSnapshot();
  };
  const status = () => {
    const load = selectChallengeLoadStatus(snapshot());
    return load === 'ready' ? selectChallengeSaveStatus(form()) : load;
  };
  const edit = (path: string, value: string | boolean) =>
    actor.send({ type: 'challenge.fieldEdited', path, value });
  const value = (path: string) => valueAt(selectChallengeDraft(form()), path);
  const wait = (ms: number) => clock.increment(ms);
  const load = async (spec: ChallengeSpec | { reject: unknown } = SPEC) => {
    const pending = loads[loads.length - 1]!;
    if ('reject' in spec) pending.reject(spec.reject);
    else pending.resolve(spec);
    await flush();
  };
  const settle = async (outcome: 'ok' | { reject: unknown } = 'ok') => {
    const save = saves[saves.length - 1]!;
    if (outcome === 'ok') save.result.resolve(undefined);
    else save.result.reject(outcome.reject);
    await flush();
  };
  return { actor, loads, saves, snapshot, form, status, edit, value, wait, load, settle };
}

async function loaded() {
  const f = startForm();
  await f.load();
  return f;
}

describe('challengeFormMachine', () => {
  it('loads the spec of its workspace and starts clean; edits before that change nothing', async () => {
    const f = startForm();
    expect(f.status()).toBe('loading');
    f.edit('text', 'too early');
    expect(selectChallengeDraftForm(f.snapshot())).toBeUndefined();
    await f.load();
    expect(f.status()).toBe('clean');
    expect(f.value('text')).toBe('Intro');
    expect(f.value(`${QUESTION}.weight`)).toBe('0.5');
    f.wait(AUTOSAVE_DELAY_MS * 5);
    expect(f.saves).toHaveLength(0);
  });

  it('saves the spec 1 s after the last change, not before', async () => {
    const f = await loaded();
    f.edit('text', 'Intro 2');
    f.wait(AUTOSAVE_DELAY_MS - 100);
    f.edit(`${QUESTION}.weight`, '0.75');
    f.wait(AUTOSAVE_DELAY_MS - 100);
    expect(f.status()).toBe('unsaved');
    expect(f.saves).toHaveLength(0);
    f.wait(100);
    expect(f.status()).toBe('saving');
    expect(f.saves).toHaveLength(1);
    const { workspaceId, spec } = f.saves[0]!.input;
    expect(workspaceId).toBe('ws-1');
    expect(spec.text).toBe('Intro 2');
    expect(spec.variants[0]!.sections[0]!.questions[0]!.weight).toBe(0.75);
    await f.settle();
    expect(f.status()).toBe('saved');
  });

  it('saves at once when a changed field is left', async () => {
    const f = await loaded();
    f.actor.send({ type: 'challenge.fieldBlurred' });
    expect(f.saves).toHaveLength(0);
    f.edit(`${QUESTION}.grader`, 'matchAny');
    f.actor.send({ type: 'challenge.fieldBlurred' });
    expect(f.saves.map((s) => s.input.spec.variants[0]!.sections[0]!.questions[0]!.grader)).toEqual(
      ['matchAny'],
    );
  });

  it('shows errors beside the fields and does not save until they are fixed', async () => {
    const f = await loaded();
    f.edit(`${QUESTION}.answer`, ' ');
    f.edit(`${QUESTION}.penalty`, 'ten');
    f.edit('transforms.0.value', 'hx:8');
    expect(selectChallengeMessages(f.form())).toEqual({
      [`${QUESTION}.answer`]: MESSAGES.answer,
      [`${QUESTION}.penalty`]: MESSAGES.digits,
      'transforms.0.value': expect.stringContaining('Unknown type'),
    });
    expect(f.status()).toBe('invalid');
    f.actor.send({ type: 'challenge.fieldBlurred' });
    f.wait(AUTOSAVE_DELAY_MS * 3);
    expect(f.saves).toHaveLength(0);
    f.edit(`${QUESTION}.answer`, '22');
    f.edit(`${QUESTION}.penalty`, '10');
    f.edit('transforms.0.value', 'hex:8');
    f.wait(AUTOSAVE_DELAY_MS);
    expect(f.saves).toHaveLength(1);
  });

  it('keeps changes made during a save and saves them next', async () => {
    const f = await loaded();
    f.edit('text', 'first');
    f.wait(AUTOSAVE_DELAY_MS);
    f.edit('text', 'second');
    await f.settle();
    expect(f.status()).toBe('unsaved');
    f.wait(AUTOSAVE_DELAY_MS);
    expect(f.saves.map((s) => s.input.spec.text)).toEqual(['first', 'second']);
    await f.settle();
    expect(f.status()).toBe('saved');
  });

  it('keeps the draft when a save fails, says why, and retries on request', async () => {
    const f = await loaded();
    f.edit('text', 'kept');
    f.wait(AUTOSAVE_DELAY_MS);
    await f.settle({ reject: { status: 400, message: 'ResourceNotFound' } });
    expect(f.status()).toBe('failed');
    expect(selectChallengeError(f.form())).toBe('It was not found: it may have been deleted.');
    expect(f.value('text')).toBe('kept');
    expect(selectCanRetry(f.form())).toBe(true);
    f.actor.send({ type: 'challenge.retryRequested' });
    expect(f.status()).toBe('saving');
    expect(selectChallengeError(f.form())).toBeNull();
    await f.settle();
    expect(f.saves.map((s) => s.input.spec.text)).toEqual(['kept', 'kept']);
    expect(f.status()).toBe('saved');
  });

  it('offers a retry when the spec cannot be loaded', async () => {
    const f = startForm();
    await f.load({ reject: { status: 403, message: 'ActionForbidden' } });
    expect(f.status()).toBe('loadFailed');
    expect(selectChallengeLoadError(f.snapshot())).toBe('You are not allowed to do this.');
    f.actor.send({ type: 'challenge.retryRequested' });
    expect(f.loads).toHaveLength(2);
    await f.load();
    expect(f.status()).toBe('clean');
  });

  it('adds transforms, variants, question sets and questions, and autosaves only once they are valid', async () => {
    const f = await loaded();
    f.actor.send({ type: 'challenge.itemAdded', list: 'variants.0.sections' });
    f.actor.send({ type: 'challenge.itemAdded', list: 'variants.0.sections.2.questions' });
    f.actor.send({ type: 'challenge.itemAdded', list: 'transforms' });
    f.actor.send({ type: 'challenge.itemAdded', list: 'variants' });
    expect(f.status()).toBe('invalid');
    f.edit('variants.0.sections.2.questions.0.text', 'New?');
    f.edit('variants.0.sections.2.questions.0.answer', 'yes');
    f.edit('transforms.1.key', 'pick');
    f.edit('transforms.1.value', 'list:2:a b c');
    f.wait(AUTOSAVE_DELAY_MS);
    const spec = f.saves[0]!.input.spec;
    expect(spec.transforms).toEqual([
      { key: 'flag', value: 'hex:8' },
      { key: 'pick', value: 'list:2:a b c' },
    ]);
    expect(spec.variants).toHaveLength(2);
    expect(spec.variants[0]!.sections[2]!.questions[0]).toMatchObject({
      text: 'New?',
      answer: 'yes',
    });
  });

  it('removes an item only after confirmation', async () => {
    const f = await loaded();
    f.actor.send({ type: 'challenge.removeRequested', path: 'variants.0.sections.0' });
    expect(selectConfirmingRemoval(f.snapshot())).toBe('variants.0.sections.0');
    expect(f.status()).toBe('clean');
    f.actor.send({ type: 'challenge.removeCancelled' });
    expect(selectConfirmingRemoval(f.snapshot())).toBeNull();
    expect(f.value('variants.0.sections.0.name')).toBe('Recon');
    f.actor.send({ type: 'challenge.removeConfirmed' });
    expect(f.status()).toBe('clean');
    f.actor.send({ type: 'challenge.removeRequested', path: 'variants.0.sections.0' });
    f.actor.send({ type: 'challenge.removeConfirmed' });
    expect(selectConfirmingRemoval(f.snapshot())).toBeNull();
    expect(f.value('variants.0.sections.0.questions.0.text')).toBe('Flag?');
    f.wait(AUTOSAVE_DELAY_MS);
    expect(f.saves[0]!.input.spec.variants[0]!.sections).toHaveLength(1);
  });

  it("keeps a new item's messages quiet until its field is touched or a save is asked for", async () => {
    const f = await loaded();
    const shows = (path: string) => selectShowsMessage(path)(f.snapshot());
    f.actor.send({ type: 'challenge.itemAdded', list: 'variants.0.sections.0.questions' });
    f.actor.send({ type: 'challenge.itemAdded', list: 'variants.0.sections.0.questions' });
    const added = 'variants.0.sections.0.questions.1';
    const later = 'variants.0.sections.0.questions.2';
    expect(selectChallengeMessages(f.form())[`${added}.text`]).toBe(MESSAGES.questionText);
    expect([shows(`${added}.text`), shows(`${later}.answer`)]).toEqual([false, false]);
    // A loaded item's messages always show.
    f.edit(`${QUESTION}.answer`, '');
    expect(shows(`${QUESTION}.answer`)).toBe(true);
    f.actor.send({ type: 'challenge.fieldBlurred', path: `${added}.text` });
    f.edit(`${later}.answer`, 'x');
    expect([shows(`${added}.text`), shows(`${added}.answer`)]).toEqual([true, false]);
    // Removing the first new question moves the second, and what was touched of it, up one.
    f.actor.send({ type: 'challenge.removeRequested', path: added });
    f.actor.send({ type: 'challenge.removeConfirmed' });
    expect(selectFreshItems(f.snapshot())).toEqual({
      items: [added],
      touched: [`${added}.answer`],
    });
    expect([shows(`${added}.text`), shows(`${added}.answer`)]).toEqual([false, true]);
    f.actor.send({ type: 'challenge.saveRequested' });
    expect(shows(`${added}.text`)).toBe(true);
    expect(f.status()).toBe('invalid');
    expect(f.saves).toHaveLength(0);
  });

  it('saves a valid draft at once when a save is asked for', async () => {
    const f = await loaded();
    f.edit('text', 'now');
    f.actor.send({ type: 'challenge.saveRequested' });
    expect(f.status()).toBe('saving');
    expect(f.saves[0]!.input.spec.text).toBe('now');
  });

  it('reaches every state', () => {
    const reachable = challengeFormMachine.provide({
      actors: { loadChallenge: fromPromise(async () => SPEC) },
    });
    expect(
      unreachedStateIds(reachable, {
        serializeState: (snapshot) => {
          const { context } = snapshot as ChallengeFormSnapshot;
          return JSON.stringify([snapshot.value, context.confirming]);
        },
        inputs: [{ workspaceId: 'ws-1' }],
        payloads: [{ type: 'challenge.removeRequested', path: 'transforms.0' }],
      }),
    ).toEqual([]);
  });
});

/**
 * Model-based test: the autosave rule (valid changes save 1 s after the last change or on blur;
 * invalid ones wait; failures keep the draft and retry on request) as an abstract machine driving
 * the real actor. Each visit of `saving` is exactly one save.
 */
describe('challengeFormMachine against the autosave model', () => {
  type ModelEvent =
    | { type: 'EDIT_VALID' }
    | { type: 'EDIT_INVALID' }
    | { type: 'WAIT' }
    | { type: 'BLUR' }
    | { type: 'SAVE_SUCCEEDED' }
    | { type: 'SAVE_FAILED' }
    | { type: 'RETRY' };

  const editing = { EDIT_VALID: 'unsaved', EDIT_INVALID: 'invalid' } as const;
  const model = createMachine({
    types: {} as { events: ModelEvent },
    id: 'challengeModel',
    initial: 'clean',
    states: {
      clean: { on: { ...editing, WAIT: 'clean', BLUR: 'clean' } },
      unsaved: { on: { ...editing, WAIT: 'saving', BLUR: 'saving' } },
      invalid: { on: { ...editing, WAIT: 'invalid', BLUR: 'invalid' } },
      saving: { on: { SAVE_SUCCEEDED: 'saved', SAVE_FAILED: 'failed' } },
      saved: { on: { ...editing, WAIT: 'saved' } },
      failed: { on: { ...editing, RETRY: 'saving' } },
    },
  });

  it('agrees with the form it drives', () => {
    expect(
      modelDisagreements(model, autosaveFormMachine, {
        states: {
          clean: 'pristine',
          unsaved: 'editing.debouncing',
          invalid: 'editing.debouncing',
          saving: 'saving.sending',
          saved: 'saved',
          failed: 'failed',
        },
        events: {
          EDIT_VALID: 'form.edited',
          EDIT_INVALID: 'form.edited',
          WAIT: 'xstate.after.autosave.autosaveForm.editing.debouncing',
          BLUR: 'form.blurred',
          SAVE_SUCCEEDED: 'xstate.done.actor.save',
          SAVE_FAILED: 'xstate.error.actor.save',
          RETRY: 'form.retryRequested',
        },
        // The challenge always has its delay; a blur during a save: autosaveFormMachine's tests.
        unmodelledStates: ['editing.waiting', 'saving.resaveQueued'],
        // Nothing updates the challenge from elsewhere.
        unmodelledEvents: ['form.updatedRemotely'],
      }),
    ).toEqual([]);
  });

  for (const path of modelPaths(model)) {
    it(path.description, async () => {
      const f = await loaded();
      let edits = 0;
      let expectedSaves = 0;
      const expectStatus = (status: ReturnType<typeof selectChallengeSaveStatus>) => () => {
        if (status === 'saving') expectedSaves += 1;
        expect(f.status()).toBe(status);
        expect(f.saves).toHaveLength(expectedSaves);
      };
      await path.test({
        states: {
          clean: expectStatus('clean'),
          unsaved: expectStatus('unsaved'),
          invalid: expectStatus('invalid'),
          saving: expectStatus('saving'),
          saved: expectStatus('saved'),
          failed: expectStatus('failed'),
        },
        events: {
          EDIT_VALID: () => f.edit(`${QUESTION}.answer`, `answer ${++edits}`),
          EDIT_INVALID: () => f.edit(`${QUESTION}.answer`, ''),
          WAIT: () => f.wait(AUTOSAVE_DELAY_MS),
          BLUR: () => f.actor.send({ type: 'challenge.fieldBlurred' }),
          SAVE_SUCCEEDED: () => f.settle(),
          SAVE_FAILED: () => f.settle({ reject: { message: 'Error' } }),
          RETRY: () => f.actor.send({ type: 'challenge.retryRequested' }),
        },
      });
    });
  }
});
