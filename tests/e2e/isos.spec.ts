import { readFileSync } from 'node:fs';
import { expect, test } from '@playwright/test';
import { signIn } from './support';

/** A small ISO image, as an author would bring one (made as tests/server/isos.test.ts says). */
const TINY_ISO = readFileSync('tests/fixtures/tiny.iso');

test('an author uploads files on the Files tab and mounts one in a template', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';

  // Files: a text file (wrapped into an image by the server) and a real ISO image.
  await page.getByRole('link', { name: 'Files' }).click();
  await page.waitForURL(new RegExp(`/topo/${id}/files$`));
  // The file input's button is dressed as the product's outlined buttons, not the browser's.
  const chooseButton = await page
    .getByLabel('Choose files to upload, or drop them here')
    .evaluate((input) => {
      const style = getComputedStyle(input, '::file-selector-button');
      return {
        border: style.borderTopColor,
        color: style.color,
        radius: style.borderTopLeftRadius,
      };
    });
  expect(chooseButton).toEqual({
    border: 'rgb(37, 99, 235)',
    color: 'rgb(37, 99, 235)',
    radius: '6px',
  });
  await page.getByLabel('Choose files to upload, or drop them here').setInputFiles([
    { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('lab notes\n'.repeat(50)) },
    { name: 'tools.iso', mimeType: 'application/octet-stream', buffer: TINY_ISO },
  ]);
  const uploads = page.getByRole('list').filter({ has: page.getByRole('progressbar') });
  for (const name of ['notes.txt', 'tools.iso']) {
    const row = uploads.getByRole('listitem').filter({ hasText: name });
    await expect(row.getByRole('progressbar', { name: `Upload of ${name}` })).toHaveAttribute(
      'value',
      '100',
    );
    await expect(row.getByRole('status')).toHaveText('Uploaded');
  }

  // The list is read again shortly after the uploads end.
  const isoFiles = page.getByRole('region', { name: 'ISO files', exact: true });
  await expect(isoFiles.getByText('notes.txt.iso', { exact: true })).toBeVisible();
  await expect(isoFiles.getByText('tools.iso', { exact: true })).toBeVisible();
  await isoFiles.getByRole('button', { name: 'Usage of tools.iso' }).click();
  await expect(page.getByText('No template uses this ISO.')).toBeVisible();

  // Templates: the template's ISO chooser finds the wrapped file and mounts it.
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
  await template.getByRole('searchbox', { name: 'Search ISOs' }).fill('notes');
  const chooser = template.getByLabel('ISO', { exact: true });
  await expect(chooser.getByRole('option', { name: 'notes.txt.iso' })).toHaveCount(1);
  await expect(chooser.getByRole('option', { name: 'tools.iso' })).toHaveCount(0);
  await chooser.selectOption({ label: 'notes.txt.iso' });
  await expect(chooser).toHaveValue(`${id}/notes.txt.iso`);
  await chooser.blur();

  // The choice is saved: the Files tab now reports the template using the ISO.
  await page.getByRole('link', { name: 'Files' }).click();
  await page
    .getByRole('region', { name: 'ISO files', exact: true })
    .getByRole('button', { name: 'Usage of notes.txt.iso' })
    .click();
  await expect(
    page.getByRole('region', { name: 'Usage of notes.txt.iso' }).getByRole('listitem'),
  ).toHaveText(/^linux-server\b/);
});
