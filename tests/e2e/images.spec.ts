import { expect, test, type Page } from '@playwright/test';
import { signIn } from './support';

/** A 1x1 PNG: small enough to inline, real enough for the browser to decode. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** Creates a workspace with New Workspace and returns its id. */
async function newWorkspace(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1];
  if (!id) throw new Error(`no workspace id in ${page.url()}`);
  return id;
}

test('an author uploads a PNG in the image manager, inserts it and sees it in the preview', async ({
  page,
}) => {
  await signIn(page, 'creator');
  const id = await newWorkspace(page);
  await page.getByRole('link', { name: 'Document' }).click();
  await page.waitForURL(new RegExp(`/topo/${id}/document$`));

  await page.getByRole('button', { name: 'Images' }).click();
  const images = page.getByRole('region', { name: 'Images' });
  // The real limit, which the server enforces: 50,000,000 bytes.
  await expect(images.getByText('Each file under 50 MB')).toBeVisible();
  await expect(images.getByText('5MB limit')).toHaveCount(0);
  await images.getByLabel('Upload').setInputFiles([
    { name: 'network.png', mimeType: 'image/png', buffer: PNG },
    // Not a type the manager takes: silently left out.
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('notes') },
  ]);

  const item = images.getByRole('listitem').filter({ hasText: /^network.*\.png/ });
  await expect(item).toHaveCount(1);
  await expect(images.getByRole('listitem')).toHaveCount(1);
  const filename = (await item.getByRole('link').textContent()) ?? '';
  const url = `/docs/${id}/${encodeURIComponent(filename)}`;
  // The thumbnail is decorative (alt=""): the name beside it says what it is.
  await expect(item.locator('img')).toHaveAttribute('src', url);

  // The editor takes text once the document has loaded.
  await expect(page.getByTestId('document-editor')).toHaveAttribute('data-readonly', 'false', {
    timeout: 20_000,
  });
  await item.getByRole('button', { name: `Insert ${filename}` }).click();
  await page.getByRole('button', { name: 'Preview' }).click();
  const preview = page.getByRole('article', { name: 'Document preview' });
  const image = preview.getByRole('img', { name: filename });
  await expect(image).toHaveAttribute('src', url);
  await expect(image).toHaveClass(/img-fluid/);
  // Served from /docs and decoded by the browser: the preview really shows it.
  await expect
    .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
    .toBe(1);
});
