import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// Help requests: a player raises a hand from the play page; an observer of the audience sees it
// on the Observe page as it comes, claims it (the player sees who is on it) and answers (the
// player sees the answer), all without reloading; an observer outside the audience never sees it.

/** No serious or critical axe-core finding within `selector` (the help panel, the queue). */
async function expectAccessible(page: Page, selector: string) {
  const { violations } = await new AxeBuilder({ page }).include(selector).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
}

async function openObserve(page: Page) {
  await page.goto('/observe');
  const queue = page.getByRole('region', { name: 'Help requests' });
  await expect(queue.getByText('No one is waiting for help.')).toBeVisible();
  return queue;
}

test('a player raises a hand, an observer claims and answers it live', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  const stamp = Date.now();
  const audience = `help-team-${stamp}`;
  const message = `The router will not boot (${stamp})`;
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Help Lab ${stamp}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience, durationMinutes: 60 });
  const observerUser = (
    await admin<Array<Record<string, unknown>>>('GET', 'users?term=observer')
  ).find((u) => u.name === 'Observer');
  await admin('POST', 'user', { ...observerUser, scope: audience });
  const playerUser = (
    await admin<Array<{ id: string; name: string }>>('GET', 'users?term=player')
  ).find((u) => u.name === 'Player');
  const game = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: playerUser?.id, subjectName: 'Player' }],
    startGamespace: true,
    maxMinutes: 60,
  });

  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const observer = await context.newPage();
  await signIn(observer, 'observer');
  const queue = await openObserve(observer);
  const outsiderContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const outsider = await outsiderContext.newPage();
  // The creator observes too, but the workspace's audience does not reach their scope.
  await signIn(outsider, 'creator');
  const outsiderQueue = await openObserve(outsider);

  const playerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${game.id}`);
  const help = player.getByRole('region', { name: 'Help' });
  await help.getByRole('button', { name: 'Ask for help' }).click();
  const box = help.getByLabel('What do you need help with?');
  await expect(box).toBeFocused();
  await expect(help.getByRole('button', { name: 'Send' })).toBeDisabled();
  await box.fill(message);
  await expect(help.getByText(`${message.length} / 500`)).toBeVisible();
  await player.screenshot({ path: test.info().outputPath('help-player-composing.png') });
  await expectAccessible(player, '.tp-help');
  await help.getByRole('button', { name: 'Send' }).click();
  await expect(help.getByRole('status')).toHaveText('Waiting for someone');
  await expect(help.getByLabel('Your message')).toHaveText(message);
  await player.screenshot({ path: test.info().outputPath('help-player-waiting.png') });

  // Live on the observer's page (its queue reloads only every 30 s: the hub brought it).
  const item = queue.getByRole('listitem', { name: /^Help request of Player in / });
  await expect(item).toContainText(message);
  await expect(item).toContainText(/waiting \d+s/);
  await expect(item).toContainText('Unclaimed');
  await expect(queue.getByText('1 open')).toBeVisible();
  await observer.screenshot({ path: test.info().outputPath('help-observer-open.png') });
  await expectAccessible(observer, '.tp-hq');

  await item.getByRole('button', { name: 'Claim' }).click();
  await expect(item).toContainText('You are on it');
  await expect(item.getByRole('button', { name: /Claim|Take over/ })).toHaveCount(0);
  await expect(help.getByRole('status')).toHaveText('Observer is on it');
  await player.screenshot({ path: test.info().outputPath('help-player-claimed.png') });

  await item.getByLabel('Answer to Player').fill('Check the second network card.');
  await item.getByRole('button', { name: 'Answer' }).click();
  await expect(queue.getByText('No one is waiting for help.')).toBeVisible();
  const done = queue.getByRole('group').filter({ hasText: 'Answered and cancelled (1)' });
  await done.getByText('Answered and cancelled (1)').click();
  await expect(done).toContainText('Answered by Observer');
  await observer.screenshot({ path: test.info().outputPath('help-observer-answered.png') });
  await expectAccessible(observer, '.tp-hq');

  await expect(help.getByRole('status')).toHaveText('Answered by Observer');
  await expect(help.getByLabel('Answer')).toHaveText('Check the second network card.');
  await expect(help.getByRole('button', { name: 'Ask again' })).toBeVisible();
  await player.screenshot({ path: test.info().outputPath('help-player-answered.png') });
  await expectAccessible(player, '.tp-help');

  // The observer outside the audience saw none of it, live or loaded.
  await expect(outsider.getByText(message)).toHaveCount(0);
  await outsiderQueue.getByRole('button', { name: 'Refresh' }).click();
  await expect(outsiderQueue.getByText('No one is waiting for help.')).toBeVisible();
  await expect(outsider.getByText(message)).toHaveCount(0);

  await Promise.all([context, outsiderContext, playerContext].map((c) => c.close()));
  await admin('DELETE', `gamespace/${game.id}`);
});
