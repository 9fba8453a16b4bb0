import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// The author tries their own lab end to end against the real server: a workspace with two linked
// stock machines and a one-set challenge, launched from the workspace editor's Play tab with its
// own settings; a machine's console opens in a new tab from the play page; Reset deletes the
// game and its machines and the workspace offers a new start; End ends the new game at
// 'Game Over'.

const CHALLENGE = {
  text: 'Map the **network**.',
  transforms: [],
  variants: [
    {
      text: 'Two machines share the lan.',
      sections: [
        {
          name: 'Survey',
          text: 'Look around.',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'Which network do they share?', answer: 'lan', grader: 'match' }],
        },
      ],
    },
  ],
};

/** The two stock templates the workspace links. */
const MACHINES = ['linux-server', 'workstation'] as const;

async function confirm(page: Page, question: string) {
  const prompt = page.getByRole('group', { name: question });
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Confirm' }).click();
}

interface GameVm {
  id: string;
  name: string;
}

test('an author launches their workspace from the Play tab with their own settings, opens a console, resets and ends the game', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  // Tall enough that the screenshot shows the whole page, which scrolls inside the shell.
  const context = await browser.newContext({ viewport: { width: 1280, height: 1400 } });
  const page = await context.newPage();

  // The author: a workspace with two linked stock machines and the challenge, open to everyone.
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const author = await apiOf(page);
  // Linking keeps each parent's name (no other template of the workspace has it), and the
  // players' machines are named the same.
  const names: string[] = [];
  for (const name of MACHINES) {
    const stock = await author<Array<{ id: string; name: string }>>(
      'GET',
      `templates?term=${name}`,
    );
    const parent = stock.find((t) => t.name === name);
    expect(parent, `stock template ${name}`).toBeDefined();
    const linked = await author<{ name: string }>('POST', 'template', {
      templateId: parent?.id,
      workspaceId,
    });
    expect(linked.name).toBe(name);
    names.push(linked.name);
  }
  const [serverName = '', workstationName = ''] = names;
  await author('PUT', `challenge/${workspaceId}`, CHALLENGE);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: 'Green Lab',
    audience: 'everyone',
    durationMinutes: 60,
  });

  // The Play tab of the workspace editor shows the launch settings with their defaults.
  await page.reload();
  await page
    .getByRole('navigation', { name: 'Workspace sections' })
    .getByRole('link', { name: 'Play' })
    .click();
  await page.waitForURL(new RegExp(`/topo/${workspaceId}/play$`));
  const launch = page.getByRole('form', { name: 'Launch settings' });
  await expect(launch.getByLabel('Variant')).toHaveValue('0');
  await expect(launch.getByLabel('Max attempts')).toHaveValue('3');
  // Max minutes offers the workspace's own 60 minutes.
  await expect(launch.getByLabel('Max minutes')).toHaveValue('');
  await expect(launch.getByLabel('Max minutes')).toHaveAttribute('placeholder', '60');
  await expect(launch.getByLabel('Points')).toHaveValue('100');
  await expect(launch.getByRole('checkbox', { name: 'Allow reset' })).toBeChecked();
  await expect(launch.getByRole('checkbox', { name: 'Allow preview' })).not.toBeChecked();
  await expect(launch.getByRole('checkbox', { name: 'Start' })).toBeChecked();

  // A 30-minute game: Launch opens the new gamespace's play page, started, with both machines.
  await launch.getByLabel('Max minutes').fill('30');
  await expect(launch.getByLabel('Max minutes')).toHaveValue('30');
  await launch.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/mojo\/[0-9a-f]{32}\/[^/]+$/, { timeout: 30_000 });
  const gamespaceId = /\/mojo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  expect(gamespaceId).not.toBe(workspaceId);
  await expect(page.getByRole('heading', { name: 'Green Lab', level: 1 })).toBeVisible();
  const actions = page.getByRole('toolbar', { name: 'Game actions' });
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 20_000 });
  await expect(actions.getByRole('button', { name: 'Reset' })).toBeEnabled();
  await expect(actions.getByRole('button', { name: 'Start' })).toHaveCount(0);
  const clock = page.getByRole('timer', { name: 'Countdown' });
  await expect(clock).toHaveText(/^00:(29:[0-5]\d|30:00)$/);
  const resources = page.getByRole('region', { name: 'Resources' });
  for (const name of names) {
    await expect(
      resources.getByRole('group', { name: `Machine ${name}`, exact: true }),
    ).toBeVisible({
      timeout: 30_000,
    });
  }
  await expect(resources.getByRole('button', { name: 'Destroy' })).toBeVisible();
  await expect(page.getByRole('region', { name: 'Challenge' }).getByText('Survey')).toBeVisible();

  // The machines as the server has them: their ids name the console pages.
  const game = await author<{ vms: GameVm[] }>('GET', `gamespace/${gamespaceId}`);
  expect(game.vms.map((vm) => vm.name).sort()).toEqual([serverName, workstationName]);
  const server = game.vms.find((vm) => vm.name === serverName) as GameVm;

  // The machine controller's Console opens the console page in a new tab: f=1, s the gamespace,
  // v the machine name before '#'.
  const controller = resources.getByRole('group', {
    name: `Machine ${serverName}`,
    exact: true,
  });
  await expect(controller.getByText('Running')).toBeVisible({ timeout: 30_000 });
  const consoleButton = controller.getByRole('button', { name: 'Console' });
  await expect(consoleButton).toBeEnabled();
  const [consolePage] = await Promise.all([page.waitForEvent('popup'), consoleButton.click()]);
  await consolePage.waitForLoadState();
  const consoleUrl = new URL(consolePage.url());
  expect(consoleUrl.pathname).toBe(`/console/${server.id}/${serverName}`);
  expect(consoleUrl.search).toBe(`?f=1&s=${gamespaceId}&v=${serverName}`);
  const consoleBar = consolePage.getByRole('banner', { name: 'Console toolbar' });
  await expect(consoleBar.getByRole('heading', { name: serverName })).toBeVisible();
  await expect(consoleBar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(consolePage.locator('.tp-console-screen canvas')).toBeVisible();
  await expect(consolePage.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  await consolePage.close();

  // An administrator sees the game's machines on the server (the author may not list them).
  const adminContext = await browser.newContext();
  const adminPage = await adminContext.newPage();
  await signIn(adminPage, 'admin');
  const admin = await apiOf(adminPage);
  const listed = await admin<GameVm[]>('GET', `vms?filter=${gamespaceId}`);
  expect(listed.map((vm) => vm.id).sort()).toEqual(game.vms.map((vm) => vm.id).sort());

  // Reset deletes the game with its machines and answers; the page falls back to the workspace,
  // which offers a new start.
  await actions.getByRole('button', { name: 'Reset' }).click();
  await confirm(page, 'Reset the game? Its machines and answers are deleted.');
  await expect(actions.getByRole('button', { name: 'Start' })).toBeVisible({ timeout: 20_000 });
  await expect(actions.getByRole('button', { name: 'End' })).toHaveCount(0);
  await expect(actions.getByRole('button', { name: 'Reset' })).toHaveCount(0);
  await expect(resources).toHaveCount(0);
  await expect(page.getByRole('region', { name: 'Challenge' })).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Game Over' })).toHaveCount(0);
  await expect(clock).toHaveText('00:00:00');
  await expect(page.getByRole('heading', { name: 'Green Lab', level: 1 })).toBeVisible();
  // The address names the workspace now, not the deleted game.
  await expect(page).toHaveURL(new RegExp(`/mojo/${workspaceId}$`));
  await expect
    .poll(async () => (await admin<GameVm[]>('GET', `vms?filter=${gamespaceId}`)).length, {
      timeout: 20_000,
    })
    .toBe(0);

  // Start launches a new game of the workspace (its own 60 minutes) with fresh machines.
  await actions.getByRole('button', { name: 'Start' }).click();
  await confirm(page, 'Start the game?');
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 30_000 });
  await expect(clock).toHaveText(/^00:5\d:\d\d$|^01:00:00$/);
  for (const name of names) {
    await expect(
      resources.getByRole('group', { name: `Machine ${name}`, exact: true }),
    ).toBeVisible({
      timeout: 30_000,
    });
  }
  // A reload finds the new game again.
  await page.reload();
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible();
  const again = await author<{ id: string; vms: GameVm[] }>('GET', `gamespace/${workspaceId}`);
  expect(again.id).not.toBe(gamespaceId);
  expect(again.vms.map((vm) => vm.id)).not.toContain(server.id);

  // End: the game is over, no machines are listed, and a new game is offered.
  const submit = page.getByRole('region', { name: 'Challenge' }).getByRole('button', {
    name: 'Submit',
  });
  await expect(submit.first()).toBeVisible();
  await actions.getByRole('button', { name: 'End' }).click();
  await confirm(page, 'End the game?');
  await expect(page.getByRole('heading', { name: 'Game Over' })).toBeVisible({ timeout: 15_000 });
  // Submit goes with End: counted the moment Game Over shows, not waited for.
  expect(await submit.count()).toBe(0);
  await expect(page.getByText('The game was ended.')).toBeVisible();
  await expect(clock).toHaveCount(0);
  await expect(page.getByText(/^Time used \d\d:\d\d:\d\d of 01:00:00$/)).toBeVisible();
  await expect(page.getByRole('button', { name: 'Start a new game' })).toBeVisible();
  await expect(actions.getByRole('button', { name: 'End' })).toHaveCount(0);
  await expect(actions.getByRole('button', { name: 'Reset' })).toHaveCount(0);
  await expect(resources).toHaveCount(0);
  await expect(page.getByRole('group', { name: /^Machine / })).toHaveCount(0);
  await expect(
    page.getByRole('region', { name: 'Challenge' }).getByRole('button', { name: 'Submit' }),
  ).toHaveCount(0);
  await page.screenshot({ path: test.info().outputPath('playtab-over.png') });
  await adminContext.close();
  await context.close();
});

test("the Play tab offers the workspace's duration as Max minutes, explains Variant and Start, and says when it lowers a value", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const author = await apiOf(page);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', { ...workspace, name: 'Short Lab', durationMinutes: 30 });

  await page.goto(`/topo/${workspaceId}/play`);
  const launch = page.getByRole('form', { name: 'Launch settings' });
  const minutes = launch.getByLabel('Max minutes');
  // The default is the workspace's duration, so nothing is lowered before the author chooses.
  await expect(minutes).toHaveValue('');
  await expect(minutes).toHaveAttribute('placeholder', '30');
  await expect(minutes).toHaveAccessibleDescription(
    "At most 30 minutes: the workspace's duration. Left empty, the game lasts 30 minutes.",
  );
  const lowered = launch.getByRole('status');
  await expect(lowered).toHaveCount(0);
  // Variant and Start say what they do.
  await expect(launch.getByLabel('Variant')).toHaveAccessibleDescription(
    /^0: a variant picked at random for each game\. 1, 2, …: that variant/,
  );
  await expect(launch.getByRole('checkbox', { name: 'Start' })).toHaveAccessibleDescription(
    /^Deploy the machines and start the clock at launch\. Unchecked, the game waits/,
  );
  // Launch lines up with the fields above it.
  const fieldBox = await minutes.boundingBox();
  const launchBox = await launch.getByRole('button', { name: 'Launch' }).boundingBox();
  expect(launchBox?.x).toBe(fieldBox?.x);
  await page.screenshot({ path: test.info().outputPath('playtab-cap.png') });
  await minutes.fill('20');
  await expect(lowered).toHaveCount(0);
  await minutes.fill('45');
  await expect(lowered).toHaveText('45 minutes is lowered to 30 at launch.');
  await minutes.fill('');
  await expect(lowered).toHaveCount(0);

  // The game gets the workspace's 30 minutes.
  await launch.getByRole('button', { name: 'Launch' }).click();
  await page.waitForURL(/\/mojo\/[0-9a-f]{32}\/[^/]+$/, { timeout: 30_000 });
  await expect(page.getByRole('timer', { name: 'Countdown' })).toHaveText(
    /^00:(29:[0-5]\d|30:00)$/,
    { timeout: 20_000 },
  );
});
