import { expect, test } from '@playwright/test';
import { signIn, topBar } from './support';

// The seeded roles and the top-bar entries each should see (spec: Shell, Roles and permissions).
const roles = [
  { username: 'admin', admin: true, observe: false },
  { username: 'creator', admin: false, observe: true },
  { username: 'observer', admin: false, observe: true },
  { username: 'player', admin: false, observe: false },
];

for (const role of roles) {
  test(`${role.username} signs in and sees the top bar of the role`, async ({ page }) => {
    await signIn(page, role.username);
    const bar = topBar(page);
    await expect(bar.getByRole('link', { name: 'Home', exact: true })).toBeVisible();
    await expect(bar.getByRole('link', { name: 'About', exact: true })).toBeVisible();
    await expect(bar.getByRole('button', { name: 'Logout' })).toBeVisible();
    await expect(bar.getByRole('link', { name: 'Admin', exact: true })).toHaveCount(
      role.admin ? 1 : 0,
    );
    await expect(bar.getByRole('link', { name: 'Observe', exact: true })).toHaveCount(
      role.observe ? 1 : 0,
    );
  });
}

test('a signed-out visitor sees the login prompt and no Logout', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByText('a simple virtual topology builder and player')).toBeVisible();
  await expect(page.getByText('Please login to continue.')).toBeVisible();
  await expect(topBar(page).getByRole('button', { name: 'Logout' })).toHaveCount(0);
});

test('a wrong password is refused with a clear message', async ({ page }) => {
  await page.goto('/login');
  await page.getByRole('button', { name: /^Login with / }).click();
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password').fill('not-the-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('Invalid username or password.')).toBeVisible();
});

test('signed out, /observe goes to /login and back to /observe after login', async ({ page }) => {
  await page.goto('/observe');
  await page.waitForURL(/\/login$/);
  await signIn(page, 'observer');
  await page.waitForURL(/\/observe$/);
  await expect(page.getByRole('heading', { name: 'Gamespaces' })).toBeVisible();
});

test('a player sent to /admin lands on /', async ({ page }) => {
  await signIn(page, 'player');
  await page.goto('/admin');
  await page.waitForURL((url) => url.pathname === '/');
  await expect(page.getByText('Getting Started')).toBeVisible();
});

test('an unknown path shows page-not-found!', async ({ page }) => {
  await page.goto('/no/such/page');
  await expect(page.getByText('page-not-found!')).toBeVisible();
});

test('Ctrl+L toggles the sidebar between 48 and 400 pixels', async ({ page }) => {
  await signIn(page, 'player');
  const sidebar = page.getByRole('navigation', { name: 'Workspace browser' });
  await page.mouse.move(900, 500);
  await expect(sidebar).toHaveAttribute('data-state', 'collapsed');
  expect((await sidebar.boundingBox())?.width).toBe(48);
  await page.keyboard.press('Control+l');
  await expect(sidebar).toHaveAttribute('data-state', 'expanded');
  await expect.poll(async () => (await sidebar.boundingBox())?.width).toBe(400);
  await page.keyboard.press('Control+l');
  await expect(sidebar).toHaveAttribute('data-state', 'collapsed');
});

test('New Workspace lands on /topo/{id}/settings', async ({ page }) => {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  await expect(page.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();
  await expect(page.getByText('Inactive workspaces may be deleted by the janitor.')).toBeVisible();
});

test('a player without a workspace allowance is not offered New Workspace', async ({ page }) => {
  await signIn(page, 'player');
  await expect(page.getByRole('heading', { name: 'Getting Started' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Find A Space' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'New Workspace' })).toHaveCount(0);
});

test('Logout signs out at the identity provider and a new sign-in asks for the password', async ({
  page,
}) => {
  await signIn(page, 'observer');
  await topBar(page).getByRole('button', { name: 'Logout' }).click();
  await expect(page.getByText('Please login to continue.')).toBeVisible();
  await expect(topBar(page).getByRole('button', { name: 'Logout' })).toHaveCount(0);
  await page.getByRole('button', { name: /^Login with / }).click();
  await expect(page.getByLabel('Password')).toBeVisible();
});
