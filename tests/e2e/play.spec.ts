import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// The gamespace play page end to end against the real server: an author publishes a workspace with
// a machine and a two-set challenge; a player launches it from its play page, deploys, answers
// (wrong, then right), unlocks the second set and finishes with 'Game Over'; a second person joins
// through the invitation link.

const CHALLENGE = {
  text: 'Find the **flags**.',
  transforms: [],
  variants: [
    {
      text: 'You are on the blue network.',
      sections: [
        {
          name: 'Recon',
          text: 'Look around.',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [
            { text: 'Which port is open?', answer: '22', weight: 50, grader: 'match' },
            { text: 'Which service listens on it?', answer: 'ssh', weight: 0, grader: 'match' },
          ],
        },
        {
          name: 'Exploit',
          text: 'Get in.',
          preReqPrevSection: 0,
          preReqTotal: 0.5,
          questions: [{ text: 'Which user owns the flag?', answer: 'root', weight: 0 }],
        },
      ],
    },
  ],
};

async function confirm(page: Page, question: string) {
  const prompt = page.getByRole('group', { name: question });
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Confirm' }).click();
}

test('a player launches a workspace, deploys, answers both question sets and ends at Game Over; a friend joins by invitation', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);

  // The author: a workspace with a linked stock machine and the challenge, open to everyone.
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const author = await apiOf(page);
  const stock = await author<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  expect(parent).toBeDefined();
  await author('POST', 'template', { templateId: parent?.id, workspaceId });
  await author('PUT', `challenge/${workspaceId}`, CHALLENGE);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: 'Blue Lab',
    audience: 'everyone',
    durationMinutes: 60,
  });

  // The player opens the workspace's play page and starts a game.
  // Tall enough that the screenshots show the whole page, which scrolls inside the shell.
  const playerContext = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${workspaceId}`);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  // The launch is held until the page has shown that it runs: Start stays, disabled, saying so.
  let releaseLaunch = () => {};
  const launchHeld = new Promise<void>((resolve) => (releaseLaunch = resolve));
  await player.route('**/api/gamespace', async (route) => {
    await launchHeld;
    await route.continue();
  });
  await actions.getByRole('button', { name: 'Start' }).click();
  await confirm(player, 'Start the game?');
  await expect(actions.getByRole('button', { name: 'Starting…' })).toBeDisabled();
  await expect(
    player.getByRole('status').filter({ hasText: 'Starting the game: its machines are being' }),
  ).toBeVisible();
  releaseLaunch();
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 20_000 });
  await player.unroute('**/api/gamespace');
  await expect(player.getByText('Starting the game')).toHaveCount(0);
  const clock = player.getByRole('timer', { name: 'Countdown' });
  await expect(clock).toHaveText(/^00:5\d:\d\d$/);
  await expect(player.getByRole('heading', { name: 'Game Over' })).toHaveCount(0);
  const score = player.getByRole('status', { name: 'Score' });
  const attempts = player.getByRole('status', { name: 'Attempts' });
  await expect(score).toHaveText('Score 0 / 100');
  await expect(attempts).toHaveText('Attempts 0 / 3');

  // A started game comes with its machines; destroy them, then deploy them again.
  const resources = player.getByRole('region', { name: 'Resources' });
  await expect(resources.getByText(/^linux-server/)).toBeVisible({ timeout: 30_000 });
  const destroy = resources.getByRole('button', { name: 'Destroy' });
  await destroy.click();
  // The question stands beside the button that asked, not in the page's header.
  const destroyPrompt = resources.getByRole('group', { name: 'Destroy the machines?' });
  await expect(destroyPrompt).toBeVisible();
  const asked = (await destroy.boundingBox())!;
  const question = (await destroyPrompt.boundingBox())!;
  expect(question.x).toBeGreaterThanOrEqual(asked.x + asked.width);
  expect(Math.abs(question.y + question.height / 2 - (asked.y + asked.height / 2))).toBeLessThan(8);
  await confirm(player, 'Destroy the machines?');
  await expect(resources.getByText(/^linux-server/)).toHaveCount(0, { timeout: 30_000 });
  await resources.getByRole('button', { name: 'Deploy' }).click();
  await expect(resources.getByRole('group', { name: 'Deploy the machines?' })).toBeVisible();
  await confirm(player, 'Deploy the machines?');
  await expect(resources.getByRole('button', { name: 'Destroy' })).toBeVisible({
    timeout: 30_000,
  });
  await expect(resources.getByText(/^linux-server/)).toBeVisible({ timeout: 30_000 });

  // The workspace's play page opens the player's active game again after a reload.
  await player.reload();
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible();
  await expect(resources.getByText(/^linux-server/)).toBeVisible();

  // The first set: a wrong answer, then the right one.
  const quiz = player.getByRole('region', { name: 'Challenge' });
  await expect(quiz.getByText('You are on the blue network.')).toBeVisible();
  const recon = quiz.getByRole('region', { name: 'Recon' });
  await expect(recon.getByText('Which port is open?')).toBeVisible();
  await expect(quiz.getByRole('region', { name: 'Exploit' })).toHaveCount(0);
  await recon.getByLabel('Answer 1.1').fill('80');
  await recon.getByLabel('Answer 1.2').fill('ssh');
  await recon.getByRole('button', { name: 'Submit' }).click();
  await confirm(player, 'Submit Recon?');
  await expect(recon.getByText('✗ incorrect')).toBeVisible();
  await expect(recon.getByText('✓ correct')).toHaveCount(1);
  await expect(quiz.getByRole('region', { name: 'Exploit' })).toHaveCount(0);
  // The right answer scored its quarter (the weightless questions share the other half).
  await expect(score).toHaveText('Score 25 / 100');
  await expect(attempts).toHaveText('Attempts 1 / 3');
  await expect(quiz.getByText('1 more question set unlocks as you score.')).toBeVisible();
  await player.screenshot({ path: test.info().outputPath('play-during.png') });

  await recon.getByLabel('Answer 1.1').fill('22');
  await recon.getByRole('button', { name: 'Submit' }).click();
  await confirm(player, 'Submit Recon?');
  await expect(recon.getByText('✓ correct')).toHaveCount(2);
  await expect(score).toHaveText('Score 75 / 100');
  await expect(attempts).toHaveText('Attempts 2 / 3');
  await expect(recon.getByLabel('Answer 1.1')).toHaveAttribute('readonly', '');
  await expect(recon.getByRole('button', { name: 'Submit' })).toHaveCount(0);

  // The second set unlocked with half the weight scored.
  const exploit = quiz.getByRole('region', { name: 'Exploit' });
  await expect(exploit.getByText('Which user owns the flag?')).toBeVisible();

  // A friend joins through the invitation link.
  await playerContext.grantPermissions(['clipboard-read', 'clipboard-write']);
  await actions.getByRole('button', { name: 'Invite' }).click();
  const link = await actions.getByLabel('Invitation link').inputValue();
  expect(link).toMatch(/\/mojo\/[0-9a-f]{32}\/[^/]+\/[^/]+$/);
  const gamespaceId = /\/mojo\/([0-9a-f]{32})\//.exec(link)?.[1] ?? '';
  const friendContext = await browser.newContext();
  const friend = await friendContext.newPage();
  await signIn(friend, 'observer');
  await friend.goto(new URL(link).pathname);
  await friend.waitForURL(new RegExp(`/mojo/${gamespaceId}/[^/]+$`));
  await expect(friend.getByRole('heading', { name: 'Blue Lab', level: 1 })).toBeVisible();
  await expect(friend.getByRole('timer', { name: 'Countdown' })).toHaveText(/^00:5\d:\d\d$/);
  await expect(
    friend.getByRole('region', { name: 'Challenge' }).getByRole('region', { name: 'Recon' }),
  ).toBeVisible();
  await friendContext.close();

  // The last answer completes the challenge: the game is over.
  await exploit.getByLabel('Answer 2.1').fill('root');
  await exploit.getByRole('button', { name: 'Submit' }).click();
  await confirm(player, 'Submit Exploit?');
  await expect(player.getByRole('heading', { name: 'Game Over' })).toBeVisible({
    timeout: 15_000,
  });
  await expect(player.getByText('Every question is answered: full score.')).toBeVisible();
  // No countdown to an expiry that no longer matters: the time used and when it ended instead.
  await expect(clock).toHaveCount(0);
  await expect(player.getByText(/^Time used 00:0\d:\d\d of 01:00:00$/)).toBeVisible();
  await expect(player.getByText(/^Ended /)).toBeVisible();
  await expect(score).toHaveText('Score 100 / 100');
  await expect(attempts).toHaveText('Attempts 3 / 3');
  await expect(quiz.getByText(/unlocks? as you score/)).toHaveCount(0);
  await expect(quiz.getByRole('button', { name: 'Submit' })).toHaveCount(0);
  // A new game is offered under Game Over, saying what it is, not as a bare Start.
  await expect(actions.getByRole('button', { name: 'Start' })).toHaveCount(0);
  await expect(
    player.getByText('A new game of this workspace starts with its own machines'),
  ).toBeVisible();
  await player.getByRole('button', { name: 'Start a new game' }).click();
  await expect(player.getByRole('group', { name: 'Start a new game?' })).toBeVisible();
  await player.getByRole('button', { name: 'Cancel' }).click();
  await expect(actions.getByLabel('Invitation link')).toHaveCount(0);
  await player.screenshot({ path: test.info().outputPath('play-over.png') });
  await playerContext.close();
});

test('a player who uses up their attempts sees why the game ended, and the answers stay read-only', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const authorContext = await browser.newContext();
  const authorPage = await authorContext.newPage();
  await signIn(authorPage, 'creator');
  await authorPage.getByRole('button', { name: 'New Workspace' }).click();
  await authorPage.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(authorPage.url())?.[1] ?? '';
  const author = await apiOf(authorPage);
  // One question to answer, and a second set that opens only once it is answered.
  await author('PUT', `challenge/${workspaceId}`, {
    text: 'Guess.',
    transforms: [],
    variants: [
      {
        text: 'One try in three.',
        sections: [
          {
            name: 'Guess',
            preReqPrevSection: 0,
            preReqTotal: 0,
            questions: [{ text: 'Which number?', answer: '7', grader: 'match' }],
          },
          {
            name: 'Bonus',
            preReqPrevSection: 0,
            preReqTotal: 0.5,
            questions: [{ text: 'Which colour?', answer: 'red', grader: 'match' }],
          },
        ],
      },
    ],
  });
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', { ...workspace, name: 'Guess Lab', audience: 'everyone' });
  await authorContext.close();

  const context = await browser.newContext({ viewport: { width: 1280, height: 1100 } });
  const player = await context.newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${workspaceId}`);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  // The launch is held until the page has shown that it runs: Start stays, disabled, saying so.
  let releaseLaunch = () => {};
  const launchHeld = new Promise<void>((resolve) => (releaseLaunch = resolve));
  await player.route('**/api/gamespace', async (route) => {
    await launchHeld;
    await route.continue();
  });
  await actions.getByRole('button', { name: 'Start' }).click();
  await confirm(player, 'Start the game?');
  await expect(actions.getByRole('button', { name: 'Starting…' })).toBeDisabled();
  await expect(
    player.getByRole('status').filter({ hasText: 'Starting the game: its machines are being' }),
  ).toBeVisible();
  releaseLaunch();
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 20_000 });
  await player.unroute('**/api/gamespace');
  await expect(player.getByText('Starting the game')).toHaveCount(0);
  const score = player.getByRole('status', { name: 'Score' });
  const attempts = player.getByRole('status', { name: 'Attempts' });
  await expect(score).toHaveText('Score 0 / 100');
  await expect(attempts).toHaveText('Attempts 0 / 3');
  const quiz = player.getByRole('region', { name: 'Challenge' });
  const guess = quiz.getByRole('region', { name: 'Guess' });
  await expect(quiz.getByText('1 more question set unlocks as you score.')).toBeVisible();

  const game = await (await apiOf(player))<{ id: string }>('GET', `gamespace/${workspaceId}`);

  // Three wrong guesses use up the attempts: the server ends the game.
  for (const [i, wrong] of ['1', '2', '3'].entries()) {
    await guess.getByLabel('Answer 1.1').fill(wrong);
    await guess.getByRole('button', { name: 'Submit' }).click();
    await confirm(player, 'Submit Guess?');
    await expect(attempts).toHaveText(`Attempts ${i + 1} / 3`);
    await expect(score).toHaveText('Score 0 / 100');
  }
  await expect(player.getByRole('heading', { name: 'Game Over' })).toBeVisible();
  await expect(player.getByText('All attempts are used up.')).toBeVisible();
  await expect(guess.getByLabel('Answer 1.1')).toHaveAttribute('readonly', '');
  await expect(guess.getByLabel('Answer 1.1')).toHaveValue('3');
  await expect(guess.getByRole('button', { name: 'Submit' })).toHaveCount(0);
  await expect(quiz.getByText(/unlocks? as you score/)).toHaveCount(0);
  await expect(quiz.getByText('1 more question set stayed locked.')).toBeVisible();
  // The game's own page shows the same later: the reason comes from the game's state.
  await player.goto(`/mojo/${game.id}`);
  await expect(player.getByText('All attempts are used up.')).toBeVisible();
  await expect(score).toHaveText('Score 0 / 100');
  await expect(attempts).toHaveText('Attempts 3 / 3');
  await expect(guess.getByLabel('Answer 1.1')).toHaveAttribute('readonly', '');
  await player.screenshot({ path: test.info().outputPath('play-attempts-used-up.png') });
  await context.close();
});

test('a player is warned as the time runs out and extends the game; a friend is told who may', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  // A five-minute game: the warning shows from its start.
  const authorContext = await browser.newContext();
  const authorPage = await authorContext.newPage();
  await signIn(authorPage, 'creator');
  const author = await apiOf(authorPage);
  const created = await author<{ id: string }>('POST', 'workspace', { name: 'Short Lab' });
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${created.id}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: 'Short Lab',
    audience: 'everyone',
    durationMinutes: 5,
  });
  await authorContext.close();

  const playerContext = await browser.newContext();
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${created.id}`);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  await actions.getByRole('button', { name: 'Start' }).click();
  await confirm(player, 'Start the game?');
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 20_000 });
  const notice = player.getByRole('alert').filter({ hasText: 'left.' });
  await expect(notice).toHaveText('Less than 5 minutes left. Add 15 min gives the game more time.');

  // A friend who joins plays, but may not extend: the notice says who may.
  await actions.getByRole('button', { name: 'Invite' }).click();
  const link = await actions.getByLabel('Invitation link').inputValue();
  const friendContext = await browser.newContext();
  const friend = await friendContext.newPage();
  await signIn(friend, 'observer');
  await friend.goto(new URL(link).pathname);
  await expect(friend.getByRole('alert').filter({ hasText: 'left.' })).toHaveText(
    'Less than 5 minutes left. Only Player or an administrator can extend the game.',
  );
  const friendActions = friend.getByRole('toolbar', { name: 'Game actions' });
  await expect(friendActions.getByRole('timer', { name: 'Countdown' })).toBeVisible();
  await expect(friendActions.getByRole('button', { name: 'End' })).toHaveCount(0);
  await expect(friendActions.getByRole('button', { name: /^Add \d+ min$/ })).toHaveCount(0);

  // The player extends it: the clock moves on, for the friend too, and the notice goes.
  await actions.getByRole('button', { name: 'Add 15 min' }).click();
  await confirm(player, 'Add 15 minutes to the game?');
  const clock = player.getByRole('timer', { name: 'Countdown' });
  await expect(clock).toHaveText(/^00:(19:[0-5]\d|20:00)$/);
  await expect(notice).toHaveCount(0);
  await expect(friend.getByRole('timer', { name: 'Countdown' })).toHaveText(/^00:19:\d\d$/);
  await expect(friend.getByRole('alert').filter({ hasText: 'left.' })).toHaveCount(0);
  // Still the manager after the hub's update, which carries no one's rights.
  await expect(actions.getByRole('button', { name: 'Add 15 min' })).toBeEnabled();
  await player.screenshot({ path: test.info().outputPath('play-extended.png') });
  await friendContext.close();
  await playerContext.close();
});

test('an address that names no gamespace shows at once that it was not found, with the way home', async ({
  page,
}) => {
  await signIn(page, 'player');
  await page.goto('/mojo/0123456789abcdef0123456789abcdef/x');
  await expect(page.getByRole('heading', { name: 'Gamespace not found', level: 1 })).toBeVisible();
  await expect(page).toHaveTitle('Gamespace not found — Topoplay');
  await expect(page.getByRole('button', { name: 'Start' })).toHaveCount(0);
  await expect(page.getByRole('timer', { name: 'Countdown' })).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('play-not-found.png') });
  await page.getByRole('main').getByRole('link', { name: 'Home' }).click();
  await expect(page).toHaveURL(/\/$/);
});
