import { expect, test, type Locator, type Page } from '@playwright/test';
import { signIn } from './support';

// The Challenge tab end to end: an author builds a challenge (a transform, a variant with two
// question sets of two questions each), the form saves itself, and a reload shows all of it.

const challengeForm = (page: Page) => page.getByRole('form', { name: 'Challenge' });
const group = (scope: Locator, name: string) => scope.getByRole('group', { name, exact: true });

interface AuthoredQuestion {
  text: string;
  answer: string;
  weight?: string;
  grader?: string;
  hidden?: boolean;
}

const QUESTIONS: AuthoredQuestion[][] = [
  [
    { text: 'Which port is open?', answer: '22', weight: '40' },
    { text: 'Which service listens on it?', answer: 'ssh|openssh', grader: 'MatchAny' },
  ],
  [
    { text: 'What is the flag?', answer: '##flag##', weight: '30' },
    { text: 'Which user owns it?', answer: 'root', hidden: true },
  ],
];

test('an author fills a challenge, it saves itself, and a reload shows it intact', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  await page.getByRole('link', { name: 'Challenge' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/challenge$/);

  const form = challengeForm(page);
  await form.getByLabel('Challenge text (markdown)').fill('Find the **flags**.');

  // A transform, with its example value previewed as it is typed.
  await form.getByRole('button', { name: 'Add transform' }).click();
  const transform = group(form, 'Transform 1');
  await transform.getByLabel('Key', { exact: true }).fill('flag');
  await transform.getByLabel('Value', { exact: true }).fill('hex:12');
  await expect(transform.locator('code')).toHaveText(/^[0-9a-f]{12}$/);

  await form.getByRole('button', { name: 'Add variant' }).click();
  const variant = group(form, 'Variant 1');
  await variant.getByLabel('Variant text (markdown)').fill('You are on the blue network.');
  for (const [s, questions] of QUESTIONS.entries()) {
    await variant.getByRole('button', { name: 'Add question set' }).click();
    const set = group(variant, `Question set ${s + 1}`);
    await set.getByLabel('Name', { exact: true }).fill(`Set ${s + 1}`);
    if (s > 0) await set.getByLabel('Prerequisite: total weight scored').fill('0.4');
    for (const [q, question] of questions.entries()) {
      await set.getByRole('button', { name: 'Add question', exact: true }).click();
      const item = group(set, `Question ${q + 1}`);
      await item.getByLabel('Question', { exact: true }).fill(question.text);
      await item.getByLabel('Answer', { exact: true }).fill(question.answer);
      if (question.weight) await item.getByLabel('Weight', { exact: true }).fill(question.weight);
      if (question.grader) await item.getByLabel(question.grader, { exact: true }).check();
      if (question.hidden) await item.getByLabel('Hidden', { exact: true }).check();
    }
  }
  // The last change: the form saves it a second after it was made.
  await group(group(variant, 'Question set 2'), 'Question 2')
    .getByLabel('Example', { exact: true })
    .fill('alice');
  await expect(form.getByRole('status')).toHaveText('Saved');

  await page.reload();
  const reloaded = challengeForm(page);
  const set2 = group(group(reloaded, 'Variant 1'), 'Question set 2');
  await expect(group(set2, 'Question 2').getByLabel('Example', { exact: true })).toHaveValue(
    'alice',
  );
  await expect(reloaded.getByLabel('Challenge text (markdown)')).toHaveValue('Find the **flags**.');
  const savedTransform = group(reloaded, 'Transform 1');
  await expect(savedTransform.getByLabel('Key', { exact: true })).toHaveValue('flag');
  await expect(savedTransform.getByLabel('Value', { exact: true })).toHaveValue('hex:12');
  const savedVariant = group(reloaded, 'Variant 1');
  await expect(savedVariant.getByLabel('Variant text (markdown)')).toHaveValue(
    'You are on the blue network.',
  );
  await expect(group(savedVariant, 'Question set 3')).toHaveCount(0);
  for (const [s, questions] of QUESTIONS.entries()) {
    const set = group(savedVariant, `Question set ${s + 1}`);
    await expect(set.getByLabel('Name', { exact: true })).toHaveValue(`Set ${s + 1}`);
    await expect(set.getByLabel('Prerequisite: total weight scored')).toHaveCount(s > 0 ? 1 : 0);
    if (s > 0) await expect(set.getByLabel('Prerequisite: total weight scored')).toHaveValue('0.4');
    await expect(group(set, 'Question 3')).toHaveCount(0);
    for (const [q, question] of questions.entries()) {
      const item = group(set, `Question ${q + 1}`);
      await expect(item.getByLabel('Question', { exact: true })).toHaveValue(question.text);
      await expect(item.getByLabel('Answer', { exact: true })).toHaveValue(question.answer);
      await expect(item.getByLabel('Weight', { exact: true })).toHaveValue(question.weight ?? '');
      await expect(item.getByLabel(question.grader ?? 'Match', { exact: true })).toBeChecked();
      await expect(item.getByLabel('Hidden', { exact: true })).toBeChecked({
        checked: question.hidden ?? false,
      });
    }
  }
});
