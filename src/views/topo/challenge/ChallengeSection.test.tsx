// @vitest-environment jsdom
import { act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { normalizeChallengeSpec, type ChallengeSpec } from '../../../domain/challenge';
import { MESSAGES } from '../../../domain/challengeForm';
import { autosaveFormMachine } from '../../../machines/autosaveFormMachine';
import { challengeFormMachine } from '../../../machines/challengeFormMachine';
import { flush } from '../../../machines/testing/deferred';
import { ChallengeForm, TRANSFORM_HELP } from './ChallengeSection';
import { GRADER_HELP, WEIGHT_HELP } from './ChallengeVariant';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

const SPEC = normalizeChallengeSpec({
  text: 'Find the flags',
  transforms: [{ key: 'flag', value: 'hex:12' }],
  variants: [
    {
      sections: [
        { name: 'Recon', questions: [{ text: 'Port?', answer: '22', weight: 0.5 }] },
        { name: 'Exploit', preReqTotal: 0.5, questions: [{ text: 'Flag?', answer: '##flag##' }] },
      ],
    },
  ],
});

async function renderForm(load: () => Promise<ChallengeSpec> = async () => SPEC) {
  const saves: ChallengeSpec[] = [];
  const form = createActor(
    challengeFormMachine.provide({
      actors: {
        loadChallenge: fromPromise(load),
        form: autosaveFormMachine.provide({
          actors: {
            save: fromPromise<unknown, { workspaceId: string; spec: ChallengeSpec }>(
              async ({ input }) => {
                saves.push(input.spec);
              },
            ),
          },
        }),
      },
    }),
    { input: { workspaceId: 'ws-1' } },
  ).start();
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  await act(async () => root?.render(<ChallengeForm form={form} />));
  await act(flush);
  const el = container;
  /** The `n`th group (fieldset or role=group) with that name. */
  const group = (name: string, scope: ParentNode = el, n = 0): HTMLElement => {
    const found = [...scope.querySelectorAll<HTMLElement>('fieldset, [role="group"]')].filter(
      (g) =>
        (g.tagName === 'FIELDSET'
          ? g.querySelector(':scope > legend')?.textContent
          : g.getAttribute('aria-label')) === name,
    )[n];
    if (!found) throw new Error(`no group ${name}`);
    return found;
  };
  const control = (label: string, scope: ParentNode = el) => {
    const found = [...scope.querySelectorAll('label')].find(
      (l) => l.textContent?.trim() === label && l.htmlFor,
    );
    const target = found && el.querySelector<HTMLInputElement>(`[id="${found.htmlFor}"]`);
    if (!target) throw new Error(`no control labelled ${label}`);
    return target;
  };
  const type = async (input: HTMLInputElement | HTMLTextAreaElement, text: string) => {
    const proto = input instanceof HTMLTextAreaElement ? HTMLTextAreaElement : HTMLInputElement;
    const setter = Object.getOwnPropertyDescriptor(proto.prototype, 'value')?.set;
    await act(async () => {
      input.focus();
      setter?.call(input, text);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
  };
  const button = (name: string, scope: ParentNode = el) =>
    [...scope.querySelectorAll('button')].find((b) => b.textContent?.trim() === name);
  const click = async (name: string, scope: ParentNode = el) => {
    const b = button(name, scope);
    if (!b) throw new Error(`no button ${name}`);
    await act(async () => b.click());
  };
  return { el, form, saves, group, control, type, button, click };
}

describe('ChallengeForm', () => {
  it('shows the loaded spec in labelled fields, with the spec help texts', async () => {
    const view = await renderForm();
    expect(view.el.querySelector('form')?.getAttribute('aria-label')).toBe('Challenge');
    expect(view.control('Challenge text (markdown)').value).toBe('Find the flags');
    const transform = view.group('Transform 1');
    expect(view.control('Key', transform).value).toBe('flag');
    expect(view.control('Value', transform).value).toBe('hex:12');
    const recon = view.group('Question set 1');
    expect(view.control('Name', recon).value).toBe('Recon');
    const question = view.group('Question 1', recon);
    expect(view.control('Answer', question).value).toBe('22');
    expect(view.control('Weight', question).value).toBe('0.5');
    expect(view.el.textContent).toContain(GRADER_HELP);
    expect(view.el.textContent).toContain(WEIGHT_HELP);
    expect(GRADER_HELP).toBe(
      'Match (exact), MatchAny (one of the pipe-delimited answers), MatchAll (all pipe-delimited answers in any order), MatchAlpha (exact after stripping symbols)',
    );
    for (const line of TRANSFORM_HELP) expect(view.el.textContent).toContain(line);
    const radios = [...question.querySelectorAll<HTMLInputElement>('input[type="radio"]')];
    expect(radios.map((r) => [r.parentElement?.textContent?.trim(), r.checked])).toEqual([
      ['Match', true],
      ['MatchAny', false],
      ['MatchAll', false],
      ['MatchAlpha', false],
    ]);
  });

  it('offers prerequisites from the second question set on only', async () => {
    const view = await renderForm();
    const label = 'Prerequisite: total weight scored';
    expect(() => view.control(label, view.group('Question set 1'))).toThrow();
    expect(view.control(label, view.group('Question set 2')).value).toBe('0.5');
  });

  it('previews an example value of a transform', async () => {
    const view = await renderForm();
    const transform = view.group('Transform 1');
    expect(transform.querySelector('code')?.textContent).toMatch(/^[0-9a-f]{12}$/);
    await view.type(view.control('Value', transform), 'int:99-999');
    const n = Number(transform.querySelector('code')?.textContent);
    expect(n >= 99 && n < 999).toBe(true);
    await view.type(view.control('Value', transform), 'hx:3');
    expect(transform.querySelector('code')).toBeNull();
    expect(transform.textContent).toContain("Unknown type 'hx'");
  });

  it('says how saving works in the status bar before any change, so the bar is never empty', async () => {
    const view = await renderForm();
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe(
      'Changes are saved as you make them.',
    );
  });

  it('shows an error beside a field and saves nothing until it is fixed; a fixed field saves on blur', async () => {
    const view = await renderForm();
    const question = view.group('Question 1', view.group('Question set 1'));
    const answer = view.control('Answer', question);
    await view.type(answer, '');
    await act(async () => answer.blur());
    expect(answer.getAttribute('aria-invalid')).toBe('true');
    expect(question.textContent).toContain(MESSAGES.answer);
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe(
      'Not saved: correct the field marked in error.',
    );
    expect(view.saves).toHaveLength(0);
    await view.type(answer, '22/tcp');
    await act(async () => answer.blur());
    await act(flush);
    expect(view.saves.map((s) => s.variants[0]!.sections[0]!.questions[0]!.answer)).toEqual([
      '22/tcp',
    ]);
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe('Saved');
  });

  it('saves canary answers one per line, and shows them again as lines', async () => {
    const view = await renderForm();
    const question = view.group('Question 1', view.group('Question set 1'));
    const canaries = view.control('Canary answers (one per line)', question);
    expect(canaries.value).toBe('');
    await view.type(canaries, 'flag{decoy}\n\n  flag{a,b}  ');
    await act(async () => canaries.blur());
    await act(flush);
    expect(view.saves.map((s) => s.variants[0]!.sections[0]!.questions[0]!.canaries)).toEqual([
      ['flag{decoy}', 'flag{a,b}'],
    ]);
    // A question without canaries is saved without the field, as the reference writes it.
    expect(view.saves[0]!.variants[0]!.sections[1]!.questions[0]).not.toHaveProperty('canaries');
  });

  it('changes the grader with its radio buttons', async () => {
    const view = await renderForm();
    const question = view.group('Question 1', view.group('Question set 2'));
    const matchAll = [...question.querySelectorAll<HTMLInputElement>('input[type="radio"]')][2]!;
    await act(async () => {
      matchAll.focus();
      matchAll.click();
    });
    expect(matchAll.checked).toBe(true);
    await act(async () => matchAll.blur());
    await act(flush);
    expect(view.saves[0]!.variants[0]!.sections[1]!.questions[0]!.grader).toBe('matchAll');
  });

  it('adds a question and removes one only after confirmation', async () => {
    const view = await renderForm();
    const recon = view.group('Question set 1');
    await view.click('Add question', recon);
    // The new question is empty, and quiet about it until touched.
    const added = view.group('Question 2', view.group('Question set 1'));
    expect(view.control('Answer', added).value).toBe('');
    expect(added.querySelector('[aria-invalid]')).toBeNull();
    expect(view.el.querySelector('[role="status"]')?.textContent).toBe(
      'Not saved: new items have fields to fill in.',
    );
    await view.click('Remove question', view.group('Question 1', view.group('Question set 1')));
    await view.click('Cancel');
    expect(
      view.control('Answer', view.group('Question 1', view.group('Question set 1'))).value,
    ).toBe('22');
    await view.click('Remove question', view.group('Question 1', view.group('Question set 1')));
    await view.click('Confirm');
    // The new, empty question is now the first.
    expect(
      view.control('Answer', view.group('Question 1', view.group('Question set 1'))).value,
    ).toBe('');
    const first = view.group('Question 1', view.group('Question set 1'));
    expect(first.querySelector('[aria-invalid]')).toBeNull();
    expect(() => view.group('Question 2', view.group('Question set 1'))).toThrow();
  });

  it('says when the challenge cannot be loaded and retries', async () => {
    let attempts = 0;
    const view = await renderForm(async () => {
      attempts += 1;
      if (attempts === 1) throw { status: 403, message: 'ActionForbidden' };
      return SPEC;
    });
    expect(view.el.querySelector('[role="alert"]')?.textContent).toContain(
      'You are not allowed to do this.',
    );
    await view.click('Retry');
    await act(flush);
    expect(view.control('Challenge text (markdown)').value).toBe('Find the flags');
  });
});
