import { expect, test, type Locator } from '@playwright/test';
import { signIn } from './support';

const DEPLOYED_MESSAGE = 'Cannot edit while template is deployed.';

/** The machine's state badge ('Not initialized', 'Not deployed', 'Running', 'Off', ...). */
const stateOf = (machine: Locator) => machine.locator('.tp-vm-state');

test("an author initializes an unlinked template's disks, deploys its machine, powers it, opens its console and deletes it", async ({
  page,
  context,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';

  // Link the stock linux-server: its machine can be deployed at once from the parent's disks.
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('searchbox', { name: 'Search templates' }).fill('linux');
  await page
    .getByRole('list', { name: 'Templates to add' })
    .getByRole('listitem')
    .filter({ hasText: 'linux-server' })
    .getByRole('button', { name: 'Add' })
    .click();
  const template = page.getByRole('group', { name: /^Template linux-server$/ });
  await expect(template).toBeVisible();
  const templateName = ((await template.getAttribute('aria-label')) ?? '').replace('Template ', '');
  const machine = template.getByRole('group', { name: `Machine ${templateName}` });
  await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible();

  // Unlinked, the template needs its own disks: Initialize copies them, with visible progress.
  await template.getByRole('button', { name: 'Unlink' }).click();
  await expect(machine.getByRole('button', { name: 'Initialize' })).toBeVisible();
  await expect(stateOf(machine)).toHaveText(/Not initialized/);
  await machine.getByRole('button', { name: 'Initialize' }).click();
  const progress = machine.getByRole('progressbar', { name: 'Initializing' });
  await expect(progress).toBeVisible();
  await expect(machine.getByText(/^\d+%$/)).toBeVisible();
  await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible({ timeout: 15_000 });
  await expect(progress).toHaveCount(0);

  // Deploy: the machine is there, and the template is locked while it is.
  await machine.getByRole('button', { name: 'Deploy' }).click();
  await expect(machine.getByRole('button', { name: 'Console' })).toBeEnabled();
  await expect(template.getByText(DEPLOYED_MESSAGE)).toBeVisible();
  await expect(template.getByLabel('Name', { exact: true })).toBeDisabled();
  await expect(stateOf(machine)).toHaveText(/Running|Off/);

  // Power: whichever state it came up in, it is turned off and on again.
  if ((await stateOf(machine).textContent())?.includes('Running')) {
    await machine.getByRole('button', { name: 'Stop' }).click();
    await expect(stateOf(machine)).toHaveText(/Off/);
  }
  await machine.getByRole('button', { name: 'Start' }).click();
  await expect(stateOf(machine)).toHaveText(/Running/);
  await machine.getByRole('button', { name: 'Stop' }).click();
  await expect(stateOf(machine)).toHaveText(/Off/);
  await expect(machine.getByRole('button', { name: 'Start' })).toBeEnabled();

  await page.screenshot({ path: test.info().outputPath('templates-deployed.png'), fullPage: true });

  // Console: a new tab at /console/{id}/{name}?f=0&s={workspace}&v={name}.
  const [consoleTab] = await Promise.all([
    context.waitForEvent('page'),
    machine.getByRole('button', { name: 'Console' }).click(),
  ]);
  const url = new URL(consoleTab.url());
  expect(url.pathname).toMatch(new RegExp(`^/console/[^/]+/${templateName}$`));
  expect(url.search).toBe(`?f=0&s=${workspaceId}&v=${templateName}`);
  await consoleTab.close();

  // Delete, confirmed: the template can be deployed again and edited.
  await machine.getByRole('button', { name: 'Delete machine' }).click();
  await machine
    .getByRole('group', { name: `Delete machine ${templateName}?` })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible();
  await expect(template.getByText(DEPLOYED_MESSAGE)).toHaveCount(0);
  await expect(template.getByLabel('Name', { exact: true })).toBeEnabled();
});

test('the confirmation of a machine delete appears beside the button, takes the focus, and Escape cancels it', async ({
  page,
}) => {
  test.setTimeout(90_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('searchbox', { name: 'Search templates' }).fill('linux');
  await page
    .getByRole('list', { name: 'Templates to add' })
    .getByRole('listitem')
    .filter({ hasText: 'linux-server' })
    .getByRole('button', { name: 'Add' })
    .click();
  const template = page.getByRole('group', { name: /^Template linux-server$/ });
  const templateName = ((await template.getAttribute('aria-label')) ?? '').replace('Template ', '');
  const machine = template.getByRole('group', { name: `Machine ${templateName}` });
  await machine.getByRole('button', { name: 'Deploy' }).click();
  const remove = machine.getByRole('button', { name: 'Delete machine' });
  await expect(remove).toBeEnabled();

  await remove.click();
  const prompt = machine.getByRole('group', { name: `Delete machine ${templateName}?` });
  await expect(prompt).toBeVisible();
  await expect(prompt.getByRole('button', { name: 'Cancel' })).toBeFocused();
  // Beside the button that asked: on its row, starting right after it.
  const button = (await remove.boundingBox())!;
  const box = (await prompt.boundingBox())!;
  expect(box.x - (button.x + button.width)).toBeGreaterThanOrEqual(0);
  expect(box.x - (button.x + button.width)).toBeLessThan(24);
  expect(Math.abs(box.y + box.height / 2 - (button.y + button.height / 2))).toBeLessThan(8);
  await page.screenshot({ path: test.info().outputPath('vm-delete-confirmation.png') });

  await page.keyboard.press('Escape');
  await expect(prompt).toHaveCount(0);
  await expect(remove).toBeFocused();

  await remove.click();
  await prompt.getByRole('button', { name: 'Confirm' }).click();
  await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible();
});
