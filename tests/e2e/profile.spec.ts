import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { E2E_PASSWORD } from '../../playwright.config';
import { apiOf, signIn, topBar } from './support';

// The profile (issue 29): the top bar says who is signed in and with which role, and links to a
// page where a player issues and revokes its own API keys and changes its password. The player is
// made for the test (a user with a local sign-in), so that changing its password leaves the
// seeded accounts the other specs sign in with as they were.

const SHOTS = process.env.E2E_SHOTS;

/** A new user with the User role and a local sign-in, made by the admin. */
async function newPlayer(admin: Page, name: string, username: string): Promise<string> {
  const api = await apiOf(admin);
  const user = await api<{ id: string }>('POST', 'user', { name });
  await api('PUT', `user/${user.id}/password`, { password: E2E_PASSWORD, username });
  return user.id;
}

test('a player sees who they are, manages their own API keys and changes their password', async ({
  browser,
}) => {
  // Three sign-ins and two password derivations on a shared machine.
  test.setTimeout(180_000);
  const suffix = Date.now().toString(36);
  const name = `Pat ${suffix}`;
  const username = `pat-${suffix}`;
  const newPassword = `a new password ${suffix}`;
  const adminContext = await browser.newContext();
  const context = await browser.newContext();
  await context.grantPermissions(['clipboard-read', 'clipboard-write']);
  try {
    const admin = await adminContext.newPage();
    await signIn(admin, 'admin');
    const id = await newPlayer(admin, name, username);

    const page = await context.newPage();
    await signIn(page, username);
    // The top bar: the name and the role, as the link to the profile.
    const me = topBar(page).getByRole('link', { name: `${name} User` });
    await expect(me).toBeVisible();
    await me.click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
    await expect(page.getByText(/^User — /)).toBeVisible();

    // A key, shown once, that works with x-api-key.
    const keys = page.getByRole('region', { name: 'API keys' });
    await expect(keys.getByText('You have no API keys.')).toBeVisible();
    await keys.getByRole('button', { name: 'Issue a new key' }).click();
    const shown = keys.getByRole('group', { name: 'Your new API key' });
    await expect(shown).toContainText('This key is shown only once');
    const value = await shown.getByLabel('Your new API key').inputValue();
    expect(value).toMatch(/^[A-Za-z0-9_]{32}$/);
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expect(shown.getByRole('status')).toHaveText('Copied');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(value);
    const asKey = await page.request.get('/api/user', { headers: { 'x-api-key': value } });
    expect(asKey.status()).toBe(200);
    expect((await asKey.json()).id).toBe(id);
    // The key cannot issue keys of its own.
    const minted = await page.request.post(`/api/apikey/${id}`, {
      headers: { 'x-api-key': value },
    });
    expect(minted.status()).toBe(403);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/profile-new-key.png`, fullPage: true });
    await shown.getByRole('button', { name: 'Done' }).click();
    await expect(shown).toHaveCount(0);

    // Listed with a time a person reads, not ISO; revoked after a confirmation.
    const list = keys.getByRole('list', { name: 'Your API keys' });
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await expect(list.getByRole('listitem')).toContainText(/created \S/);
    await expect(list.getByRole('listitem')).not.toContainText(/\d{4}-\d{2}-\d{2}T/);
    await list.getByRole('button', { name: /^Revoke the key created / }).click();
    const confirm = list.getByRole('group', { name: 'Confirm revoking' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect(list.getByRole('listitem')).toHaveCount(1);
    await list.getByRole('button', { name: /^Revoke the key created / }).click();
    await confirm.getByRole('button', { name: 'Revoke' }).click();
    await expect(keys.getByText('You have no API keys.')).toBeVisible();
    const revoked = await page.request.get('/api/user', { headers: { 'x-api-key': value } });
    expect(revoked.status()).toBe(401);

    // The password: each mistake said plainly, nothing typed lost.
    const password = page.getByRole('region', { name: 'Password' });
    const current = password.getByLabel('Current password');
    const next = password.getByLabel('New password', { exact: true });
    const again = password.getByLabel('New password again');
    const change = password.getByRole('button', { name: 'Change password' });
    await current.fill(E2E_PASSWORD);
    await next.fill('short');
    await again.fill('short');
    await change.click();
    await expect(password.getByRole('alert')).toHaveText(/too short: use at least 8 characters/);
    await next.fill(newPassword);
    await again.fill(`${newPassword}!`);
    await change.click();
    await expect(password.getByRole('alert')).toHaveText(/do not match/);
    await again.fill(newPassword);
    await current.fill('not my password');
    await change.click();
    await expect(password.getByRole('alert')).toHaveText(/current password is not right/);
    await expect(next).toHaveValue(newPassword);
    if (SHOTS)
      await page.screenshot({ path: `${SHOTS}/profile-wrong-password.png`, fullPage: true });
    await current.fill(E2E_PASSWORD);
    await change.click();
    await expect(password.getByRole('status')).toHaveText(/Your password was changed/);
    await expect(password.getByRole('alert')).toHaveCount(0);
    await expect(current).toHaveValue('');

    // Signed out, the new password signs in.
    await topBar(page).getByRole('button', { name: 'Logout' }).click();
    // Through the identity provider's sign-out page and back.
    await expect(page.getByText('Please login to continue.')).toBeVisible({ timeout: 30_000 });
    await signIn(page, username, newPassword);
    await expect(topBar(page).getByRole('link', { name: `${name} User` })).toBeVisible();
  } finally {
    await context.close();
    await adminContext.close();
  }
});

test('on a phone the top bar keeps the role as the link to the profile', async ({ browser }) => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  try {
    const page = await context.newPage();
    await signIn(page, 'player');
    // The seeded player, Player.
    const me = topBar(page).getByRole('link', { name: /User/ });
    await expect(me).toBeVisible();
    // Its name is the role alone: the icon shows, the user's name gives way.
    await expect(me).toHaveAccessibleName('User');
    await expect(me.getByText('Player', { exact: true })).toBeHidden();
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/profile-phone-topbar.png` });
    await me.click();
    await expect(page).toHaveURL(/\/profile$/);
    await expect(page.getByRole('region', { name: 'API keys' })).toBeVisible();
    // The page and the top bar pass the accessibility checks at this width.
    await page
      .getByRole('region', { name: 'API keys' })
      .getByRole('button', { name: 'Issue a new key' })
      .click();
    await expect(page.getByText('This key is shown only once', { exact: false })).toBeVisible();
    const { violations } = await new AxeBuilder({ page }).analyze();
    const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(
      serious.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
    ).toEqual([]);
    if (SHOTS) await page.screenshot({ path: `${SHOTS}/profile-phone.png`, fullPage: true });
  } finally {
    await context.close();
  }
});
