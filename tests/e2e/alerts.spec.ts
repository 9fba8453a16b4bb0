import { expect, test } from '@playwright/test';
import { apiOf, endGame, signIn, startGame } from './support';

// Answer-sharing alerts: a player submits the flag generated for another gamespace of the same
// workspace; it is graded wrong as any wrong answer, and an observer of the workspace's audience
// reads, on the Observe page, who submitted whose answer to which question. An observer the
// audience does not reach is told nothing.

const CHALLENGE = {
  text: 'Find the flag on your machine.',
  transforms: [{ key: 'flag', value: 'hex:10' }],
  variants: [
    {
      text: '',
      sections: [
        {
          name: 'Flags',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [
            { text: 'What is the flag?', answer: 'flag{##flag##}', weight: 100, grader: 'match' },
          ],
        },
      ],
    },
  ],
};

test("an observer sees a player submit another gamespace's flag; one beyond the audience does not", async ({
  page,
  browser,
}) => {
  test.setTimeout(150_000);
  const audience = `alerts-${Date.now()}`;
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Shared Flags ${Date.now()}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const stock = await admin<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience, durationMinutes: 60 });
  // The observer's scope reaches the audience, and the player's so that they may play; the
  // creator (an observer of no scope) stays beyond it.
  const account = async (term: string, shown: string) =>
    (await admin<Array<Record<string, unknown>>>('GET', `users?term=${term}`)).find(
      (u) => u.name === shown,
    )!;
  const observerUser = await account('observer', 'Observer');
  const playerUser = await account('player', 'Player');
  await admin('POST', 'user', { ...observerUser, scope: audience });
  await admin('POST', 'user', { ...playerUser, scope: audience });

  try {
    // Another team's gamespace of the workspace, and the flag generated for it.
    const red = await admin<{ id: string }>('POST', 'gamespace', {
      resourceId: workspace.id,
      players: [{ subjectId: `red-${Date.now()}`, subjectName: 'Team Red' }],
      startGamespace: false,
      maxMinutes: 60,
      points: 100,
    });
    const redSpec = await admin<{
      challenge: { sections: Array<{ questions: Array<{ answer: string }> }> };
    }>('GET', `gamespace/${red.id}/challenge`);
    const redFlag = redSpec.challenge.sections[0]!.questions[0]!.answer;
    expect(redFlag).toMatch(/^flag\{[0-9a-f]{10}\}$/);

    // Both observers have the Observe page open before anything happens.
    const watching = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const observer = await watching.newPage();
    await signIn(observer, 'observer');
    await observer.getByRole('link', { name: 'Observe', exact: true }).click();
    const alerts = observer.getByRole('region', { name: 'Alerts' });
    await expect(alerts.getByText('No alerts.').or(alerts.getByRole('list'))).toBeVisible();
    const beyond = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const outsider = await beyond.newPage();
    await signIn(outsider, 'creator');
    await outsider.goto('/observe');
    const outsiderAlerts = outsider.getByRole('region', { name: 'Alerts' });
    await expect(outsiderAlerts).toBeVisible();

    // The player starts the game and submits red's flag on the play page: wrong, no points.
    const playing = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
    const player = await playing.newPage();
    await signIn(player, 'player');
    await startGame(player, workspace.id);
    const section = player
      .getByRole('region', { name: 'Challenge' })
      .getByRole('region', { name: 'Flags' });
    await section.getByLabel('Answer 1.1').fill(redFlag);
    await section.getByRole('button', { name: 'Submit' }).click();
    await player
      .getByRole('group', { name: 'Submit Flags?' })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await expect(section.getByText('✗ incorrect')).toBeVisible();
    await expect(player.getByRole('status', { name: 'Score' })).toHaveText('Score 0 / 100');
    // Nothing on the player's page speaks of an alert or of the other team.
    await expect(player.getByText(/alert|Team Red/i)).toHaveCount(0);

    // The observer reads who submitted whose answer, to which question.
    const sentence =
      'Player submitted the answer generated for Team Red — Question 1 of Set 1 (Flags)';
    const item = alerts.getByRole('listitem').filter({ hasText: sentence });
    await expect(item).toBeVisible({ timeout: 30_000 });
    await expect(item).toContainText(redFlag);
    await expect(item).toContainText('What is the flag?');
    await observer.screenshot({ path: test.info().outputPath('alerts.png'), fullPage: true });

    // The observer beyond the audience, reloaded since, sees no such alert.
    await outsider.reload();
    await expect(
      outsiderAlerts.getByText('No alerts.').or(outsiderAlerts.getByRole('list')),
    ).toBeVisible();
    await expect(outsiderAlerts.getByText(/Team Red/)).toHaveCount(0);

    await endGame(player);
    await Promise.all([watching.close(), beyond.close(), playing.close()]);
    await admin('DELETE', `gamespace/${red.id}`);
  } finally {
    // Other specs on this server expect the player's scope as it was.
    await admin('POST', 'user', playerUser);
  }
});
