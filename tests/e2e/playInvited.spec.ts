import { expect, test } from '@playwright/test';
import { apiOf, endGame, signIn, startGame } from './support';

// Who sees the manager's actions on the play page: the player who launched the game (its manager)
// and administrators may start, end, deploy, destroy, invite and extend; a player who joined by
// invitation plays (and may reset) but is offered none of them (gs.CanManage, wire reference §1.2).

test('an invited player sees no manager actions; the manager and an administrator do', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const authorContext = await browser.newContext();
  const authorPage = await authorContext.newPage();
  await signIn(authorPage, 'creator');
  const author = await apiOf(authorPage);
  const created = await author<{ id: string }>('POST', 'workspace', { name: 'Shared Lab' });
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${created.id}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: 'Shared Lab',
    audience: 'everyone',
    durationMinutes: 30,
  });
  await authorContext.close();

  const playerContext = await browser.newContext();
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  await startGame(player, created.id);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  const resources = player.getByRole('region', { name: 'Resources' });
  await expect(resources.getByRole('button', { name: /^(Deploy|Destroy)$/ })).toBeVisible();
  await actions.getByRole('button', { name: 'Invite' }).click();
  const link = await actions.getByLabel('Invitation link').inputValue();
  const gamespaceId = /\/mojo\/([0-9a-f]{32})\//.exec(link)?.[1] ?? '';

  // The invited player (an observer by role, which gives no right to manage a game).
  const friendContext = await browser.newContext();
  const friend = await friendContext.newPage();
  await signIn(friend, 'observer');
  await friend.goto(new URL(link).pathname);
  await friend.waitForURL(new RegExp(`/mojo/${gamespaceId}/[^/]+$`));
  const friendActions = friend.getByRole('toolbar', { name: 'Game actions' });
  await expect(friendActions.getByRole('timer', { name: 'Countdown' })).toBeVisible();
  await expect(friendActions.getByRole('button', { name: 'Reset' })).toBeVisible();
  for (const name of ['Start', 'End', 'Invite', /^Add \d+ min$/]) {
    await expect(friendActions.getByRole('button', { name }), String(name)).toHaveCount(0);
  }
  const friendResources = friend.getByRole('region', { name: 'Resources' });
  await expect(friendResources).toBeVisible();
  await expect(friendResources.getByRole('button', { name: /^(Deploy|Destroy)$/ })).toHaveCount(0);
  await expect(friendResources.getByText('No machines are deployed yet')).toBeVisible();
  // The lab has no challenge: no empty heading for one.
  await expect(friend.getByRole('region', { name: 'Challenge' })).toHaveCount(0);
  await friend.screenshot({ path: test.info().outputPath('play-invited.png') });
  await friendContext.close();

  // An administrator may manage any game.
  const adminContext = await browser.newContext();
  const admin = await adminContext.newPage();
  await signIn(admin, 'admin');
  await admin.goto(`/mojo/${gamespaceId}`);
  const adminActions = admin.getByRole('toolbar', { name: 'Game actions' });
  await expect(adminActions.getByRole('button', { name: 'End' })).toBeVisible();
  await expect(adminActions.getByRole('button', { name: 'Invite' })).toBeVisible();
  await adminContext.close();

  await endGame(player);
  await playerContext.close();
});
