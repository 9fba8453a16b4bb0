import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiOf, endGame, signIn } from './support';

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

/** A new workspace's Challenge tab, with one variant and its first question set. */
async function newChallenge(page: Page) {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  await page.getByRole('link', { name: 'Challenge' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/challenge$/);
  const form = challengeForm(page);
  await form.getByRole('button', { name: 'Add variant' }).click();
  const variant = group(form, 'Variant 1');
  await variant.getByRole('button', { name: 'Add question set' }).click();
  return { workspaceId, form, variant };
}

test('a new question shows its errors only once touched; the status says what keeps it unsaved', async ({
  page,
}) => {
  const { form, variant } = await newChallenge(page);
  const set = group(variant, 'Question set 1');
  await set.getByRole('button', { name: 'Add question', exact: true }).click();
  const question = group(set, 'Question 1');
  const status = form.getByRole('status');
  const text = question.getByLabel('Question', { exact: true });
  const answer = question.getByLabel('Answer', { exact: true });

  // Empty and untouched: nothing is marked yet, and the status does not point at marks.
  await expect(form.locator('[aria-invalid="true"]')).toHaveCount(0);
  await expect(form.getByText('Please enter the question.')).toHaveCount(0);
  await expect(status).toHaveText('Not saved: new items have fields to fill in.');

  // Left empty: that field is marked, the one not yet visited is not.
  await text.focus();
  await text.blur();
  await expect(text).toHaveAttribute('aria-invalid', 'true');
  await expect(question.getByText('Please enter the question.')).toBeVisible();
  await expect(answer).not.toHaveAttribute('aria-invalid', 'true');
  await expect(status).toHaveText('Not saved: correct the field marked in error.');

  // Asking to see what to correct marks every field and goes to the first; the status stays in
  // view, above the fields whichever way the page is scrolled.
  await form.getByRole('button', { name: 'Show fields to correct' }).click();
  await expect(answer).toHaveAttribute('aria-invalid', 'true');
  await expect(text).toBeFocused();
  await expect(status).toHaveText('Not saved: correct the 2 fields marked in error.');
  await question.getByRole('button', { name: 'Remove question' }).scrollIntoViewIfNeeded();
  await expect(status).toBeInViewport();

  await text.fill('Which port?');
  await answer.fill('22');
  await expect(status).toHaveText('Saved');
});

test('a prerequisite written in points (30 of weights 30, 20, 50) opens the second set', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const { workspaceId, form, variant } = await newChallenge(page);
  const fillQuestion = async (set: Locator, n: number, answer: string, weight: string) => {
    await set.getByRole('button', { name: 'Add question', exact: true }).click();
    const item = group(set, `Question ${n}`);
    await item.getByLabel('Question', { exact: true }).fill(`Question ${answer}?`);
    await item.getByLabel('Answer', { exact: true }).fill(answer);
    await item.getByLabel('Weight', { exact: true }).fill(weight);
  };
  const first = group(variant, 'Question set 1');
  await first.getByLabel('Name', { exact: true }).fill('Recon');
  await fillQuestion(first, 1, 'alpha', '30');
  await fillQuestion(first, 2, 'bravo', '20');
  await variant.getByRole('button', { name: 'Add question set' }).click();
  const second = group(variant, 'Question set 2');
  await second.getByLabel('Name', { exact: true }).fill('Exploit');
  await second.getByLabel('Prerequisite: weight scored in the previous set').fill('30');
  await fillQuestion(second, 1, 'charlie', '50');
  await expect(form.getByRole('status')).toHaveText('Saved');

  // Saved as the fraction it stands for.
  await page.reload();
  await expect(
    group(group(challengeForm(page), 'Variant 1'), 'Question set 2').getByLabel(
      'Prerequisite: weight scored in the previous set',
    ),
  ).toHaveValue('0.3');
  const author = await apiOf(page);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', { ...workspace, name: 'Points Lab', audience: 'everyone' });

  // The player answers question 1 only: 30 scored in the first set opens the second.
  const player = await (await browser.newContext()).newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${workspaceId}`);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  await actions.getByRole('button', { name: 'Start' }).click();
  await player
    .getByRole('group', { name: 'Start the game?' })
    .getByRole('button', {
      name: 'Confirm',
    })
    .click();
  const quiz = player.getByRole('region', { name: 'Challenge' });
  const recon = quiz.getByRole('region', { name: 'Recon' });
  await expect(recon.getByLabel('Answer 1.1')).toBeVisible({ timeout: 20_000 });
  await expect(quiz.getByRole('region', { name: 'Exploit' })).toHaveCount(0);
  await recon.getByLabel('Answer 1.1').fill('alpha');
  await recon.getByLabel('Answer 1.2').fill('wrong');
  await recon.getByRole('button', { name: 'Submit' }).click();
  await player
    .getByRole('group', { name: 'Submit Recon?' })
    .getByRole('button', {
      name: 'Confirm',
    })
    .click();
  await expect(player.getByRole('status', { name: 'Score' })).toHaveText('Score 30 / 100');
  await expect(
    quiz.getByRole('region', { name: 'Exploit' }).getByText('Question charlie?'),
  ).toBeVisible();
  await endGame(player);
});
