import { expect, test } from '@playwright/test';
import { apiOf, signIn } from './support';

// The admin Dashboard and Machines sections (issue 17): an announcement reaches a player's page
// live, the janitor says when it has nothing to do, and a deployed machine is listed with its
// group. The Hypervisor panel (issue 18) says which driver runs the machines.

test('an admin announces a message that a signed-in player sees live and can dismiss', async ({
  browser,
}) => {
  const playerContext = await browser.newContext();
  const adminContext = await browser.newContext();
  try {
    const player = await playerContext.newPage();
    await signIn(player, 'player');
    // Connected: the player's page hears the hub (no reconnection banner).
    await expect(player.getByRole('button', { name: 'Find A Space' })).toBeVisible();

    const admin = await adminContext.newPage();
    await signIn(admin, 'admin');
    await admin.goto('/admin');
    const message = `Maintenance at noon ${Date.now()}`;
    await admin.getByLabel('Message to every connected user').fill(message);
    await admin.getByRole('button', { name: 'Announce' }).click();
    await expect(
      admin.getByRole('status').filter({ hasText: `Announced: ${message}` }),
    ).toBeVisible();
    await expect(admin.getByLabel('Message to every connected user')).toHaveValue('');

    const announcements = player.getByRole('region', { name: 'Announcements' });
    await expect(announcements.getByText(message)).toBeVisible();
    await announcements.getByRole('button', { name: 'Dismiss announcement' }).click();
    await expect(player.getByText(message)).toHaveCount(0);

    // The live connections list the player's connection.
    await admin.getByRole('button', { name: 'Refresh', exact: true }).click();
    await expect(
      admin
        .getByRole('table', { name: 'Live connections' })
        .getByRole('cell', { name: 'Player' })
        .first(),
    ).toBeVisible();
  } finally {
    await playerContext.close();
    await adminContext.close();
  }
});

test('an admin reads which hypervisor runs the machines, with its figures', async ({ page }) => {
  await signIn(page, 'admin');
  await page.goto('/admin');
  const panel = page.getByRole('region', { name: 'Hypervisor' });
  const status = panel.getByRole('table', { name: 'Hypervisor status' });
  const row = (name: string) =>
    status.getByRole('row').filter({ has: page.getByRole('rowheader', { name, exact: true }) });
  await expect(row('Driver')).toContainText('Simulated machines');
  await expect(row('Acceleration')).toContainText('simulated');
  // The sim driver has no caps: the figures stand alone.
  await expect(row('Running machines').getByRole('cell')).toHaveText(/^\d+$/);
  await expect(row('Memory in use')).toContainText('0 MiB');
  await expect(row('Orphans').getByRole('cell')).toHaveText('0');
  await panel.getByRole('button', { name: 'Refresh hypervisor status' }).click();
  await expect(row('Driver')).toContainText('Simulated machines');
});

test('an admin runs the janitor and reads its report, and sees a deployed machine in Machines', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, 'admin');

  // A workspace with the stock linux-server's machine deployed, made through the API.
  const api = await apiOf(page);
  const workspace = await api<{ id: string }>('POST', 'workspace', { name: 'Janitor lab' });
  const [stock] = await api<{ id: string }[]>('GET', 'templates?term=linux-server');
  expect(stock).toBeDefined();
  const linked = await api<{ id: string; name: string }>('POST', 'template', {
    templateId: stock!.id,
    workspaceId: workspace.id,
  });
  const vm = await api<{ id: string; name: string }>('POST', `vm-template/${linked.id}`, {});

  await page.goto('/admin');
  // A fresh workspace is not idle yet: a dry run finds nothing to do and says so, no empty table.
  await page.getByRole('button', { name: 'Dry run' }).click();
  const janitor = page.getByRole('region', { name: 'Janitor' });
  await expect(janitor.getByRole('status')).toHaveText(
    'Nothing to clean up: a run now would delete nothing.',
  );
  await expect(page.getByRole('table', { name: 'Janitor report' })).toHaveCount(0);

  await page
    .getByRole('navigation', { name: 'Admin sections' })
    .getByRole('link', { name: 'Machines' })
    .click();
  await expect(page).toHaveURL(/\/admin\/machines$/);
  // Shown by its template's name and its workspace's, without the isolation tag.
  const [shown, tag] = vm.name.split('#');
  expect(tag).toMatch(/^[0-9a-f]{32}$/);
  const row = page
    .getByRole('table', { name: 'Machines' })
    .getByRole('row')
    .filter({ hasText: 'Janitor lab' });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').first()).toHaveText(shown!);
  await expect(row).toContainText('Workspace: Janitor lab');
  await expect(row).not.toContainText(tag!);
  // Running: Stop is offered, Start is not.
  await expect(row.getByRole('cell').nth(2)).toHaveText('running');
  await expect(row.getByRole('button', { name: `Stop ${shown}` })).toBeEnabled();
  await expect(row.getByRole('button', { name: `Start ${shown}` })).toHaveCount(0);

  // Delete, asked beside the button: the machine leaves the list.
  await row.getByRole('button', { name: `Delete ${shown}` }).click();
  await row
    .getByRole('group', { name: `Delete machine ${shown}?` })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(row).toHaveCount(0);
});

test("Machines names a machine's workspace, or its gamespace and players, linked to their pages", async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, 'admin');
  const api = await apiOf(page);
  const name = `Owned lab ${Date.now()}`;
  const workspace = await api<{ id: string }>('POST', 'workspace', { name });
  const [stock] = await api<{ id: string }[]>('GET', 'templates?term=linux-server');
  const linked = await api<{ id: string }>('POST', 'template', {
    templateId: stock!.id,
    workspaceId: workspace.id,
  });
  await api('POST', `vm-template/${linked.id}`, {});
  const game = await api<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [
      { subjectId: `owned-${Date.now()}-1`, subjectName: 'Zoe Student' },
      { subjectId: `owned-${Date.now()}-2`, subjectName: 'Abe Student' },
    ],
    startGamespace: true,
    maxMinutes: 60,
  });

  await page.goto('/admin/machines');
  const rows = page.getByRole('table', { name: 'Machines' }).getByRole('row');
  const gameRow = rows.filter({ hasText: `Gamespace: ${name}` });
  await expect(gameRow).toHaveCount(1);
  await expect(gameRow.getByRole('cell').first()).toHaveText('linux-server');
  await expect(gameRow).toContainText('Players: Abe Student, Zoe Student');
  await expect(gameRow).not.toContainText(game.id.replace(/-/g, ''));
  await expect(gameRow.getByRole('link', { name })).toHaveAttribute('href', `/mojo/${game.id}`);

  const workspaceRow = rows.filter({ hasText: `Workspace: ${name}` });
  await expect(workspaceRow).not.toContainText('Players');
  await workspaceRow.getByRole('link', { name }).click();
  await expect(page).toHaveURL(new RegExp(`/topo/${workspace.id}`));
  await api('POST', `gamespace/${game.id}/complete`);
});

test('an admin opens the API reference from the admin area, a page of the product', async ({
  page,
}) => {
  await signIn(page, 'admin');
  await page.goto('/admin');
  await page
    .getByRole('navigation', { name: 'Admin sections' })
    .getByRole('link', { name: 'API reference' })
    .click();
  await expect(page).toHaveURL(/\/api\/?$/);
  await expect(page).toHaveTitle('Topoplay API');
  // The page's script and the document are large: they take a while on a loaded machine.
  await expect(page.getByRole('heading', { name: /Topoplay API/ })).toBeVisible({
    timeout: 30_000,
  });
  // No Swagger top bar: no "Explore" box pointing at /api/json.
  await expect(page.getByRole('button', { name: 'Explore' })).toHaveCount(0);
  await expect(page.locator('.topbar')).toHaveCount(0);
  await expect(page.getByRole('link', { name: 'Back to Topoplay' })).toBeVisible();
});
