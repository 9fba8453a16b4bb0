import AxeBuilder from '@axe-core/playwright';
import { expect, test } from '@playwright/test';
import { apiOf, signIn } from './support';

// The Dashboard's Warm pools panel on the sim driver (docs/operations.md "Warm pools"): empty at
// first, an administrator sets a workspace's pool size and its row appears; a size beyond the
// server's cap is explained before it is sent; the panel has no serious accessibility finding.

test('an admin sets a workspace pool size and reads the pool in the table', async ({ page }) => {
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name: 'Pool Lab' });

  await page.goto('/admin');
  const panel = page.getByRole('region', { name: 'Warm pools' });
  await expect(panel.getByRole('status')).toHaveText('No workspace keeps a warm pool.');

  await panel.getByLabel('Workspace id').fill(workspace.id);
  await panel.getByLabel(/^Sets to keep ready/).fill('51');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('alert')).toHaveText(
    'The size must be a whole number from 0 to 50.',
  );
  await expect(panel.getByLabel(/^Sets to keep ready/)).toHaveValue('51');

  await panel.getByLabel(/^Sets to keep ready/).fill('1');
  await panel.getByRole('button', { name: 'Save' }).click();
  await expect(panel.getByRole('status')).toHaveText(
    `The pool of ${workspace.id} keeps 1 set ready.`,
  );
  const row = panel.getByRole('table', { name: 'Warm pools' }).getByRole('row').nth(1);
  await expect(row.getByRole('cell').first()).toHaveText(workspace.id);
  await expect(row.getByRole('cell').nth(1)).toHaveText('1');

  await panel.getByRole('button', { name: 'Refresh warm pools' }).click();
  await expect(panel.getByRole('button', { name: 'Refresh warm pools' })).toBeEnabled();
  await panel.screenshot({ path: test.info().outputPath('warm-pools.png') });

  const { violations } = await new AxeBuilder({ page })
    .include('[aria-labelledby="tp-warm-pools"]')
    .analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help}`)).toEqual([]);
});
