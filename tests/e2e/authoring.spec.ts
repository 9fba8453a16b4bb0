import { expect, test, type Page } from '@playwright/test';
import { signIn } from './support';

const present = (page: Page) => page.getByRole('list', { name: 'Present' });
const settingsForm = (page: Page) => page.getByRole('form', { name: 'Workspace settings' });

/** Creates a workspace with New Workspace and returns its id. */
async function newWorkspace(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1];
  if (!id) throw new Error(`no workspace id in ${page.url()}`);
  return id;
}

test('an author edits settings and a linked template, and invites a collaborator; a stranger is refused', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const creatorContext = await browser.newContext({
    permissions: ['clipboard-read', 'clipboard-write'],
  });
  const playerContext = await browser.newContext();
  const observerContext = await browser.newContext();
  try {
    const creator = await creatorContext.newPage();
    await signIn(creator, 'creator');
    const id = await newWorkspace(creator);

    // Settings: the name saves when the field is left, and is there after a reload.
    const form = settingsForm(creator);
    await expect(form.getByLabel('Id')).toHaveValue(id);
    await form.getByLabel('Name', { exact: true }).fill('Intro Lab');
    await form.getByLabel('Name', { exact: true }).blur();
    await expect(form.getByRole('status')).toHaveText('Saved');
    await expect(creator.getByRole('heading', { name: 'Intro Lab' })).toBeVisible();
    await creator.reload();
    await expect(settingsForm(creator).getByLabel('Name', { exact: true })).toHaveValue(
      'Intro Lab',
    );

    // Templates: link the stock linux-server from the selector.
    await creator.getByRole('link', { name: 'Templates' }).click();
    await creator.waitForURL(new RegExp(`/topo/${id}/templates$`));
    await creator.getByRole('searchbox', { name: 'Search templates' }).fill('linux');
    const toAdd = creator.getByRole('list', { name: 'Templates to add' });
    await toAdd
      .getByRole('listitem')
      .filter({ hasText: 'linux-server' })
      .getByRole('button', { name: 'Add' })
      .click();
    const template = creator.getByRole('group', { name: /^Template linux-server$/ });
    await expect(template).toBeVisible();
    // The topology draws the machine on its network.
    const topology = creator.getByRole('img', { name: /^Topology: / });
    await expect(topology).toHaveAccessibleName('Topology: Machine linux-server on lan.');

    // The name is required, and spaces become hyphens as it is typed.
    const name = template.getByLabel('Name', { exact: true });
    await name.fill('');
    await name.blur();
    await expect(template.getByText('Please enter a name for this template.')).toBeVisible();
    await name.pressSequentially('web server 1');
    await expect(name).toHaveValue('web-server-1');
    await expect(template.getByText('Please enter a name for this template.')).toHaveCount(0);
    await name.blur();
    await expect(creator.getByRole('group', { name: 'Template web-server-1' })).toBeVisible();
    // The machine bar and the topology take the new name at once, without a reload.
    const renamed = creator.getByRole('group', { name: 'Template web-server-1' });
    await expect(renamed.getByRole('group', { name: 'Machine web-server-1' })).toBeVisible();
    await expect(renamed.getByRole('group', { name: /^Machine linux-server/ })).toHaveCount(0);
    await expect(topology).toHaveAccessibleName('Topology: Machine web-server-1 on lan.');
    await creator.screenshot({ path: test.info().outputPath('authoring-topology.png') });

    // Invitation: a link to the workspace, copied to the clipboard with a confirmation.
    await creator.getByRole('link', { name: 'Settings' }).click();
    await creator.getByRole('button', { name: 'Generate invitation' }).click();
    const linkField = creator.getByLabel('Invitation link');
    await expect(linkField).toHaveValue(new RegExp(`/topo/${id}/invite/[0-9a-f]{32}$`));
    const link = await linkField.inputValue();
    await creator.getByRole('button', { name: 'Copy' }).click();
    await expect(creator.getByRole('status').filter({ hasText: 'Copied' })).toBeVisible();
    expect(await creator.evaluate(() => navigator.clipboard.readText())).toBe(link);

    // A second user opens the link, joins, and lands on the settings; both see each other.
    const player = await playerContext.newPage();
    await signIn(player, 'player');
    await player.goto(link);
    await player.waitForURL(new RegExp(`/topo/${id}/settings$`));
    await expect(player.getByRole('heading', { name: 'Intro Lab' })).toBeVisible();
    await expect(
      present(creator).getByRole('listitem', { name: 'Player, connected' }),
    ).toBeVisible();
    await expect(
      present(player).getByRole('listitem', { name: 'Creator, connected' }),
    ).toBeVisible();

    // Someone who is not a collaborator cannot open the workspace.
    const observer = await observerContext.newPage();
    await signIn(observer, 'observer');
    await observer.goto(`/topo/${id}/settings`);
    await expect(
      observer.getByRole('heading', { name: 'You are not allowed to do this.' }),
    ).toBeVisible();
    await observer.getByRole('button', { name: 'Continue' }).click();
    await observer.waitForURL((url) => url.pathname === '/');
  } finally {
    await creatorContext.close();
    await playerContext.close();
    await observerContext.close();
  }
});

test('an author is not offered what cannot be done, clones the workspace, then deletes the copy', async ({
  page,
}) => {
  await signIn(page, 'creator');
  const id = await newWorkspace(page);

  // The only manager cannot be removed (the server keeps them): Remove is not offered, and the
  // list says why.
  const collaborators = page.getByRole('list', { name: 'Collaborators' });
  await expect(collaborators.getByRole('listitem')).toHaveCount(1);
  await expect(collaborators.getByRole('listitem')).toContainText(
    'Cannot be removed: the only manager.',
  );
  await expect(collaborators.getByRole('button', { name: 'Remove' })).toHaveCount(0);

  // A new workspace has no gamespace: the Templates tab offers none to delete.
  await page
    .getByRole('navigation', { name: 'Workspace sections' })
    .getByRole('link', { name: 'Templates' })
    .click();
  await expect(page.getByText('This workspace has no templates yet.')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Delete gamespaces' })).toHaveCount(0);
  await expect(page.getByText('Changing templates does not affect running gamespaces')).toHaveCount(
    0,
  );
  await page
    .getByRole('navigation', { name: 'Workspace sections' })
    .getByRole('link', { name: 'Settings' })
    .click();

  await page.getByRole('button', { name: 'Clone' }).click();
  await page
    .getByRole('group', { name: 'Clone this workspace?' })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await page.waitForURL(
    (url) => /^\/topo\/[0-9a-f]{32}\/settings$/.test(url.pathname) && !url.pathname.includes(id),
  );
  await expect(page.getByRole('heading', { name: 'Workspace Title-CLONE' })).toBeVisible();

  await page.getByRole('button', { name: 'Delete' }).click();
  await page
    .getByRole('group', { name: 'Delete this workspace and its templates? This cannot be undone.' })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await page.waitForURL((url) => url.pathname === '/');
  await expect(page.getByText('Getting Started')).toBeVisible();
});
