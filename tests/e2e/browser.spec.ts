import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiOf, signIn, topBar } from './support';

const workspaceBrowser = (page: Page) =>
  page.getByRole('navigation', { name: 'Workspace browser' });

/** Creates a workspace with New Workspace (from home) and returns its id. */
async function newWorkspace(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  await expect(page.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1];
  if (!id) throw new Error(`no workspace id in ${page.url()}`);
  return id;
}

/** PUT /api/workspace/{id}/invite as the signed-in user of `page`: the new invitation code. */
async function inviteCode(page: Page, workspaceId: string): Promise<string> {
  return page.evaluate(async (id) => {
    // oidc-client-ts keeps the signed-in user under 'oidc.user:{authority}:{client id}'.
    const stores = [window.sessionStorage, window.localStorage];
    const stored = stores
      .flatMap((store) => Object.keys(store).map((key) => ({ store, key })))
      .find(({ key }) => key.startsWith('oidc.user:'));
    if (!stored) throw new Error('no signed-in user in storage');
    const user = JSON.parse(stored.store.getItem(stored.key) ?? '{}') as {
      access_token: string;
      token_type?: string;
    };
    const response = await fetch(`/api/workspace/${id}/invite`, {
      method: 'PUT',
      headers: { authorization: `${user.token_type || 'Bearer'} ${user.access_token}` },
    });
    if (!response.ok) throw new Error(`invite: HTTP ${response.status}`);
    return ((await response.json()) as { code: string }).code;
  }, workspaceId);
}

test('Ctrl+O, a search and Enter open a new workspace from the sidebar', async ({ page }) => {
  await signIn(page, 'creator');
  const id = await newWorkspace(page);
  await topBar(page).getByRole('link', { name: 'Home', exact: true }).click();
  await page.waitForURL((url) => url.pathname === '/');

  await page.keyboard.press('Control+o');
  const browser = workspaceBrowser(page);
  await expect(browser).toHaveAttribute('data-state', 'expanded');
  const search = browser.getByRole('searchbox', { name: 'Search' });
  await expect(search).toBeFocused();
  await page.keyboard.type('space tit');

  const card = browser
    .getByRole('list', { name: 'My Workspaces' })
    .getByRole('link', { name: 'Workspace Title' })
    .and(page.locator(`[href="/topo/${id}/settings"]`));
  await expect(card).toBeVisible();
  await card.focus();
  // The sections show while the card holds the focus.
  await expect(
    browser.locator(`[href="/topo/${id}/templates"]`).filter({ hasText: 'Templates' }),
  ).toBeVisible();
  await page.keyboard.press('Enter');
  await page.waitForURL(new RegExp(`/topo/${id}/settings$`));
  await expect(page.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();
});

test('a search that matches nothing lists no workspace', async ({ page }) => {
  await signIn(page, 'creator');
  await newWorkspace(page);
  await page.keyboard.press('Control+o');
  const browser = workspaceBrowser(page);
  await expect(
    browser.getByRole('list', { name: 'My Workspaces' }).getByRole('link', {
      name: 'Workspace Title',
    }),
  ).not.toHaveCount(0);
  const searched = page.waitForRequest(
    (request) =>
      request.url().includes('/api/workspaces?term=no-such-workspace-anywhere') &&
      request.url().includes('filter=my'),
  );
  await browser.getByRole('searchbox', { name: 'Search' }).fill('no-such-workspace-anywhere');
  await searched;
  await expect(
    browser.getByRole('list', { name: 'My Workspaces' }).getByText('No workspaces to show.'),
  ).toBeVisible();
});

test('the browse mode is remembered after a reload', async ({ page }) => {
  await signIn(page, 'player');
  await page.keyboard.press('Control+o');
  const browser = workspaceBrowser(page);
  const modes = browser.getByRole('group', { name: 'Browse' });
  await expect(modes.getByRole('button', { name: 'Workspaces' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await modes.getByRole('button', { name: 'Gamespaces' }).click();
  await expect(modes.getByRole('button', { name: 'Gamespaces' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect(browser.getByRole('heading', { name: 'Active Gamespaces' })).toBeVisible();

  await page.reload();
  await expect(topBar(page).getByRole('button', { name: 'Logout' })).toBeVisible();
  await page.keyboard.press('Control+o');
  await expect(modes.getByRole('button', { name: 'Gamespaces' })).toHaveAttribute(
    'aria-pressed',
    'true',
  );
  await expect(modes.getByRole('button', { name: 'Workspaces' })).toHaveAttribute(
    'aria-pressed',
    'false',
  );
  await expect(browser.getByRole('heading', { name: 'Active Gamespaces' })).toBeVisible();
});

test('signed out, the sidebar asks to sign in', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('Please login to continue.')).toBeVisible();
  await page.keyboard.press('Control+o');
  const browser = workspaceBrowser(page);
  await expect(browser.getByText('Sign in to browse workspaces.')).toBeVisible();
  await expect(browser.getByRole('searchbox', { name: 'Search' })).toHaveCount(0);
});

test('a made-up invitation code is reported invalid', async ({ page }) => {
  await signIn(page, 'player');
  await page.goto(`/topo/${'0'.repeat(32)}/invite/made-up-code`);
  await expect(page.getByText('Invalid invitation code.')).toBeVisible();
  await expect(page).toHaveURL(/\/invite\/made-up-code$/);
});

test("a second user redeeming a workspace's invitation lands on its settings", async ({
  browser,
}) => {
  const creatorContext = await browser.newContext();
  const playerContext = await browser.newContext();
  try {
    const creator = await creatorContext.newPage();
    await signIn(creator, 'creator');
    const id = await newWorkspace(creator);
    const code = await inviteCode(creator, id);

    const player = await playerContext.newPage();
    await signIn(player, 'player');
    await player.goto(`/topo/${id}/invite/${code}`);
    await player.waitForURL(new RegExp(`/topo/${id}/settings$`));
    await expect(player.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();

    // The workspace is now the player's too.
    await player.keyboard.press('Control+o');
    await expect(
      workspaceBrowser(player)
        .getByRole('list', { name: 'My Workspaces' })
        .locator(`[href="/topo/${id}/settings"]`)
        .first(),
    ).toBeVisible();
  } finally {
    await creatorContext.close();
    await playerContext.close();
  }
});

/** A workspace's card title in a list of the sidebar (its sections link to its settings too). */
const card = (list: Locator, id: string) =>
  list.locator(`.tp-browser-card-title[href="/topo/${id}/settings"]`);

/** Pins the sidebar open and returns its list of the user's workspaces. */
async function pinnedWorkspaces(page: Page) {
  const sidebar = workspaceBrowser(page);
  await sidebar.getByRole('button', { name: 'Pin sidebar' }).click();
  await expect(sidebar).toHaveAttribute('data-pinned', 'true');
  return sidebar.getByRole('list', { name: 'My Workspaces' });
}

test('the pinned sidebar lists a new workspace at once, and what another tab of the user creates or deletes without a reload', async ({
  browser,
}) => {
  const firstContext = await browser.newContext();
  const secondContext = await browser.newContext();
  try {
    const first = await firstContext.newPage();
    await signIn(first, 'creator');
    const mine = await pinnedWorkspaces(first);
    const id = await newWorkspace(first);
    await expect(card(mine, id)).toBeVisible();

    const second = await secondContext.newPage();
    await signIn(second, 'creator');
    const other = await newWorkspace(second);
    await expect(card(mine, other)).toBeVisible();
    await (
      await apiOf(second)
    )('DELETE', `workspace/${other}`);
    await expect(card(mine, other)).toHaveCount(0);
    await expect(card(mine, id)).toBeVisible();
  } finally {
    await firstContext.close();
    await secondContext.close();
  }
});

test("a collaborator's clone and delete reach the invitee's pinned sidebar without a reload", async ({
  browser,
}) => {
  const creatorContext = await browser.newContext();
  const playerContext = await browser.newContext();
  try {
    const creator = await creatorContext.newPage();
    await signIn(creator, 'creator');
    const id = await newWorkspace(creator);
    const code = await inviteCode(creator, id);

    const player = await playerContext.newPage();
    await signIn(player, 'player');
    await player.goto(`/topo/${id}/invite/${code}`);
    await player.waitForURL(new RegExp(`/topo/${id}/settings$`));
    const mine = await pinnedWorkspaces(player);
    await expect(card(mine, id)).toBeVisible();
    await topBar(player).getByRole('link', { name: 'Home', exact: true }).click();

    // The copy keeps the original's workers: it is the player's too.
    const api = await apiOf(creator);
    const copy = await api<{ id: string }>('POST', `workspace/${id}/clone`);
    await expect(card(mine, copy.id)).toBeVisible();
    await api('DELETE', `workspace/${copy.id}`);
    await expect(card(mine, copy.id)).toHaveCount(0);
    await expect(card(mine, id)).toBeVisible();
  } finally {
    await creatorContext.close();
    await playerContext.close();
  }
});
