import { expect, test } from '@playwright/test';
import { signIn } from './support';

// The admin Users section (issue 17): an admin adds a user, issues an API key that then works
// with `x-api-key`, changes the user's role, and gives it a password it signs in with.

test('an admin adds a user with a working API key, a new role and a password', async ({
  browser,
}) => {
  const adminContext = await browser.newContext();
  const userContext = await browser.newContext();
  try {
    const admin = await adminContext.newPage();
    await signIn(admin, 'admin');
    await admin.goto('/admin/users');
    const users = admin.getByRole('region', { name: 'Users' }).first();
    await expect(users.getByRole('heading', { name: 'Users' })).toBeVisible();

    const suffix = Date.now().toString(36);
    const name = `Dana ${suffix}`;
    await admin.getByLabel('New user name').fill(name);
    await admin.getByRole('button', { name: 'Add user' }).click();
    const editor = admin.getByRole('region', { name: 'User', exact: true });
    await expect(editor.getByRole('heading', { name })).toBeVisible();
    // The list is searched again and holds the new user.
    await admin.getByLabel('term').fill(name);
    await expect(
      admin.getByRole('list', { name: 'Users' }).getByRole('button', { name }),
    ).toBeVisible();

    // An API key, shown once, that authenticates as the new user.
    await editor.getByRole('button', { name: 'New API key' }).click();
    const value = await editor.getByLabel('New API key value').inputValue();
    expect(value).not.toBe('');
    const me = await admin.request.get('/api/user', { headers: { 'x-api-key': value } });
    expect(me.status()).toBe(200);
    expect((await me.json()).name).toBe(name);
    await editor.getByRole('button', { name: 'Done' }).click();
    await expect(editor.getByLabel('New API key value')).toHaveCount(0);
    // Listed under its owner, with a time a person reads rather than ISO.
    const keys = editor.getByRole('list', { name: `API keys of ${name}` });
    await expect(keys.getByRole('listitem')).toHaveCount(1);
    await expect(keys.getByRole('listitem')).toContainText(/^Created \S.*issued by /);
    await expect(keys.getByRole('listitem')).not.toContainText(/\d{4}-\d{2}-\d{2}T/);

    // Each limit says what 0 means.
    await expect(editor.getByLabel('Gamespace limit')).toHaveAccessibleDescription(
      '0: no limit on the gamespaces running at once.',
    );
    await expect(editor.getByLabel('Workspace limit')).toHaveAccessibleDescription(
      /^0: may not create workspaces/,
    );

    // A new role, saved: the key now acts as a creator.
    await editor.getByLabel('Role').selectOption('creator');
    await editor.getByRole('button', { name: 'Save' }).click();
    // Said beside the Save button, not at the top of the page.
    await expect(editor.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const after = await admin.request.get('/api/user', { headers: { 'x-api-key': value } });
    expect((await after.json()).isCreator).toBe(true);

    // A local sign-in with a password set by the admin.
    const username = `dana-${suffix}`;
    const account = editor.getByRole('region', { name: 'Local account' });
    await account.getByLabel('Username').fill(username);
    await account.getByLabel('New password').fill('a password for Dana');
    await account.getByRole('button', { name: 'Set password' }).click();
    await expect(account.getByText(`Signs in as ${username}`)).toBeVisible();
    // Said in the account's own section, beside its form.
    await expect(account.getByRole('status')).toHaveText('Password set');

    const user = await userContext.newPage();
    await signIn(user, username, 'a password for Dana');

    // Disabled, the account signs in no more.
    await account.getByRole('button', { name: 'Disable account' }).click();
    await expect(account.getByText(`Signs in as ${username} (disabled)`)).toBeVisible();
  } finally {
    await adminContext.close();
    await userContext.close();
  }
});
