import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { apiOf, linkStockTemplate, signIn } from './support';

// The Dashboard's Warm pools panel on the sim driver (docs/operations.md "Warm pools"): empty at
// first; an administrator finds a workspace by searching its name (the panel never loads every
// workspace), sets its pool to 2 and watches the keeper make 2 sets ready, then turns it off from
// the row's Edit size. A size beyond the server's cap is explained before it is sent; the panel,
// its matches open, has no serious accessibility finding.

/** A workspace named `name` with one stock machine, so that its pooled sets have something. */
async function workspaceWithMachine(page: Page, name: string): Promise<string> {
  const admin = await apiOf(page);
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  await linkStockTemplate(admin, workspace.id, 'linux-server');
  return workspace.id;
}

test('an admin finds a workspace by name, sets its pool to 2, sees 2 sets ready, and turns it off', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const labId = await workspaceWithMachine(page, 'Pool Lab');
  await workspaceWithMachine(page, 'Pool Annex');

  // The panel's searches: each asks for one small page of the names that match.
  const searches: URLSearchParams[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/api/workspaces' && url.searchParams.has('term')) {
      searches.push(url.searchParams);
    }
  });
  await page.goto('/admin');
  const panel = page.getByRole('region', { name: 'Warm pools' });
  await expect(panel.getByRole('status')).toHaveText('No workspace keeps a warm pool.');

  const workspace = panel.getByRole('combobox', { name: 'Workspace' });
  const matches = panel.getByRole('listbox', { name: 'Workspaces found' }).getByRole('option');
  await workspace.fill('Pool');
  await expect(workspace).toHaveAttribute('aria-expanded', 'true');
  await expect(matches).toHaveCount(2);
  await expect(matches.filter({ hasText: 'Pool Lab' })).toContainText(labId);
  const { violations } = await new AxeBuilder({ page })
    .include('[aria-labelledby="tp-warm-pools"]')
    .analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
  await panel.screenshot({ path: test.info().outputPath('warm-pools-search.png') });

  // By keyboard: a narrower name, the arrow onto the match, Enter.
  await workspace.fill('Pool L');
  await expect(matches).toHaveCount(1);
  await workspace.press('ArrowDown');
  await expect(matches.first()).toHaveAttribute('aria-selected', 'true');
  await workspace.press('Enter');
  await expect(workspace).toHaveValue('Pool Lab');
  await expect(workspace).toHaveAttribute('aria-expanded', 'false');
  await expect(panel.getByText(`Workspace id ${labId}`)).toBeVisible();
  expect(searches.map((q) => [q.get('term'), q.get('take')])).toEqual([
    ['Pool', '8'],
    ['Pool L', '8'],
  ]);

  const size = panel.getByLabel(/^Sets to keep ready/);
  await size.fill('501');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('alert')).toHaveText(
    'The size must be a whole number from 0 to 500.',
  );
  await expect(size).toHaveValue('501');

  await size.fill('2');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('status')).toHaveText('The pool of Pool Lab keeps 2 sets ready.');
  const table = panel.getByRole('table', { name: 'Warm pools' });
  const row = table.getByRole('row').filter({ hasText: labId });
  await expect(row.getByRole('cell').first()).toHaveText(`Pool Lab${labId}`);
  await expect(row.getByRole('cell').nth(1)).toHaveText('2');

  // The keeper deploys the sets in the background: Refresh until both are ready.
  const ready = row.getByRole('cell').nth(3);
  const refresh = panel.getByRole('button', { name: 'Refresh warm pools' });
  await expect(async () => {
    await refresh.click();
    await expect(refresh).toBeEnabled();
    await expect(ready).toHaveText('2', { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
  await panel.screenshot({ path: test.info().outputPath('warm-pools.png') });

  // The row's Edit size fills the form with the pool; 0 turns it off.
  await row.getByRole('button', { name: 'Edit the size of Pool Lab' }).click();
  await expect(workspace).toHaveValue('Pool Lab');
  await expect(size).toBeFocused();
  await expect(size).toHaveValue('2');
  await size.fill('0');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('status')).toHaveText('The pool of Pool Lab is off.');
  await expect(row.getByRole('cell').nth(1)).toHaveText('0');
  await expect(async () => {
    await refresh.click();
    await expect(refresh).toBeEnabled();
    await expect(ready).toHaveText('0', { timeout: 1_000 });
  }).toPass({ timeout: 60_000 });
});
