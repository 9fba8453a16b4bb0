import { expect, test } from '@playwright/test';
import { signIn } from './support';

// The About page leads to the API's reference, the server's page at /api, which names the
// product rather than the generator's default branding.

test('About links to the API reference, a page named for the product', async ({ page }) => {
  test.setTimeout(150_000);
  await signIn(page, 'player');
  await page.goto('/about');
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/api\/?$/);
  await expect(page).toHaveTitle('Topoplay API');
  // The page's script and the document are large: on a loaded machine they took 32 s.
  await expect(page.getByRole('heading', { name: /Topoplay API/ })).toBeVisible({
    timeout: 90_000,
  });
  await expect(page.locator('.topbar')).toHaveCount(0);
  // Every operation has a summary, and the health routes have their own tag.
  await expect(page.getByRole('heading', { name: 'Health' })).toBeVisible();
  // With more than 136 operations, Swagger UI draws them as the page scrolls to them, so one far
  // down is reached by its link (deepLinking), as a reader following a link would.
  // Opened afresh: Swagger UI follows a link's fragment when the page loads.
  await page.goto('about:blank');
  await page.goto('/api#/Admin/RunJanitorCleanup');
  const janitor = page.locator('.opblock-summary', { hasText: '/api/admin/janitor' });
  await expect(janitor.first()).toContainText('Run janitor cleanup', { timeout: 90_000 });
  await expect(page.getByRole('link', { name: 'Back to Topoplay' })).toHaveAttribute('href', '/');
});
