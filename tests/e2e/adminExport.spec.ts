import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { accessToken, apiOf, extraServer, signIn } from './support';

// Export and import in the admin Dashboard (issue 17): an admin downloads a workspace's archive
// from one server (picked by name) and uploads it on a second server with an empty database, where the workspace
// and its guide arrive; a file that is not an archive is refused with a sentence.

test('a workspace downloaded from one server is uploaded on an empty second server', async ({
  browser,
}) => {
  // Two server start-ups.
  test.setTimeout(150_000);
  const second = extraServer(E2E_PORT + 1);
  const firstContext = await browser.newContext({ acceptDownloads: true });
  const secondContext = await browser.newContext({ baseURL: second.baseURL });
  try {
    const startingSecond = second.start();
    const page = await firstContext.newPage();
    await signIn(page, 'admin');
    const api = await apiOf(page);
    const name = `Exported lab ${Date.now()}`;
    const { id } = await api<{ id: string }>('POST', 'workspace', { name });
    const guide = `# Welcome\n\nThe guide of ${name}.`;
    const put = await page.request.put(`/api/document/${id}`, {
      headers: { Authorization: `Bearer ${await accessToken(page)}`, 'content-type': 'text/plain' },
      data: guide,
    });
    expect(put.ok()).toBe(true);

    await page.goto('/admin');
    const panel = page.getByRole('region', { name: 'Export and import' });
    await expect(panel.getByRole('button', { name: 'Download' })).toBeDisabled();
    // Picked by name from a searchable list, not by id; the file is named after it.
    await expect(panel.getByText('_disks.txt')).toBeVisible();
    await expect(panel).toContainText('copy each of those files to the same path');
    await panel.getByLabel('Search by name').fill(name);
    const list = panel.getByRole('list', { name: 'Workspaces' });
    await expect(list.getByRole('checkbox')).toHaveCount(1);
    await list.getByRole('checkbox', { name }).check();
    await expect(panel.getByText('1 selected.')).toBeVisible();
    const downloading = page.waitForEvent('download');
    await panel.getByRole('button', { name: 'Download' }).click();
    const download = await downloading;
    const fileName = `topomojo-exported-lab-${name.split(' ').at(-1)}.zip`;
    expect(download.suggestedFilename()).toBe(fileName);
    const zip = await readFile((await download.path())!);
    // A zip's local file header.
    expect(zip.subarray(0, 4).toString('latin1')).toBe('PK\u0003\u0004');
    await expect(panel.getByRole('status')).toHaveText(`Downloaded ${fileName}.`);

    await startingSecond;
    const other = await secondContext.newPage();
    await signIn(other, 'admin');
    const otherApi = await apiOf(other);
    // The second server's database is empty: the workspace is not there yet.
    const missing = await other.request.get(`/api/workspace/${id}`, {
      headers: { Authorization: `Bearer ${await accessToken(other)}` },
    });
    expect(missing.ok()).toBe(false);

    await other.goto('/admin');
    const otherPanel = other.getByRole('region', { name: 'Export and import' });
    await otherPanel
      .getByLabel('Upload an archive')
      .setInputFiles({ name: 'topomojo-export.zip', mimeType: 'application/zip', buffer: zip });
    await expect(otherPanel.getByRole('status')).toContainText('Uploaded: 1 added');
    await expect(
      otherPanel.getByRole('list', { name: 'Workspaces added' }).getByRole('listitem'),
    ).toHaveText([id]);

    const imported = await otherApi<{ id: string; name: string }>('GET', `workspace/${id}`);
    expect(imported.name).toBe(name);
    const document = await other.request.get(`/api/document/${id}`, {
      headers: { Authorization: `Bearer ${await accessToken(other)}` },
    });
    expect(await document.text()).toBe(guide);

    // The same archive again adds nothing.
    await otherPanel
      .getByLabel('Upload an archive')
      .setInputFiles({ name: 'topomojo-export.zip', mimeType: 'application/zip', buffer: zip });
    await expect(otherPanel.getByRole('status')).toHaveText(
      'Nothing was added: every workspace in it is here already.',
    );

    // A text file is refused, with the reason as a sentence.
    await otherPanel.getByLabel('Upload an archive').setInputFiles({
      name: 'notes.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from('not an archive'),
    });
    const refusal = otherPanel.getByRole('alert');
    await expect(refusal).toContainText('This cannot be done: the archive was refused');
    await expect(otherPanel.getByRole('list', { name: 'Workspaces added' })).toHaveCount(0);
  } finally {
    await firstContext.close();
    await secondContext.close();
    await second.stop();
  }
});
