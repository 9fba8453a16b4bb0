import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { signIn } from './support';

// Disk image import (issue 31): an admin uploads a qcow2 and a vmdk in the Template Manager's
// Disk Images panel, watches their progress, sees them listed as qcow2 images with their sizes,
// sees a bad file refused with its reason, makes a template from one and deletes the other.

/**
 * A 24 MiB disk with 20 MiB of random data, as qcow2 and vmdk (made with qemu-img): each is
 * three chunks of the SPA's 8 MiB, so that its progress has steps between 0 and 100.
 */
function diskFiles() {
  const dir = mkdtempSync(join(tmpdir(), 'topoplay-e2e-disks-'));
  const raw = join(dir, 'disk.raw');
  execFileSync('qemu-img', ['create', '-q', '-f', 'raw', raw, '24M']);
  writeFileSync(raw, randomBytes(20 * 1024 * 1024), { flag: 'r+' });
  execFileSync('qemu-img', ['convert', '-f', 'raw', '-O', 'qcow2', raw, join(dir, 'd.qcow2')]);
  execFileSync('qemu-img', ['convert', '-f', 'raw', '-O', 'vmdk', raw, join(dir, 'd.vmdk')]);
  const files = {
    qcow2: readFileSync(join(dir, 'd.qcow2')),
    vmdk: readFileSync(join(dir, 'd.vmdk')),
  };
  rmSync(dir, { recursive: true, force: true });
  return files;
}

test('an admin imports disk images and makes a template from one', async ({ page }) => {
  const { qcow2, vmdk } = diskFiles();
  const suffix = Date.now().toString(36);
  const web = `web-${suffix}`;
  const desk = `desk-${suffix}`;
  await signIn(page, 'admin');
  await page.goto('/admin/templates');
  const panel = page.getByRole('region', { name: 'Disk images' });
  await expect(panel.getByRole('heading', { name: 'Disk images' })).toBeVisible();

  // Every value the upload progress bars take, recorded as the page changes them.
  await panel.evaluate((root) => {
    const seen: Record<string, number[]> = {};
    (window as unknown as { progressSeen: typeof seen }).progressSeen = seen;
    const record = (bar: Element) => {
      const name = bar.getAttribute('aria-label') ?? '';
      const values = (seen[name] ??= []);
      const value = Number((bar as HTMLProgressElement).value);
      if (values.at(-1) !== value) values.push(value);
    };
    new MutationObserver((changes) => {
      for (const change of changes) {
        const nodes = change.type === 'attributes' ? [change.target] : [...change.addedNodes];
        for (const node of nodes) {
          if (!(node instanceof Element)) continue;
          if (node.matches('progress')) record(node);
          node.querySelectorAll('progress').forEach(record);
        }
      }
    }).observe(root, { subtree: true, childList: true, attributes: true });
  });
  await panel.getByLabel('Upload disk images').setInputFiles([
    { name: `${web}.qcow2`, mimeType: 'application/octet-stream', buffer: qcow2 },
    { name: `${desk}.vmdk`, mimeType: 'application/octet-stream', buffer: vmdk },
    {
      name: `bad-${suffix}.qcow2`,
      mimeType: 'application/octet-stream',
      buffer: Buffer.from('no'),
    },
  ]);
  const uploads = panel.getByRole('list', { name: 'Disk image uploads' });
  for (const name of [`${web}.qcow2`, `${desk}.vmdk`]) {
    const row = uploads.getByRole('listitem').filter({ hasText: name });
    await expect(row.getByRole('progressbar', { name: `Upload of ${name}` })).toHaveAttribute(
      'value',
      '100',
    );
    await expect(row.getByRole('status')).toHaveText('Imported');
  }
  // Each went through steps on its way: the share of the chunks the server had.
  const seen = await page.evaluate(
    () => (window as unknown as { progressSeen: Record<string, number[]> }).progressSeen,
  );
  for (const name of [`${web}.qcow2`, `${desk}.vmdk`]) {
    const values = seen[`Upload of ${name}`] ?? [];
    expect(
      values.some((v) => v > 0 && v < 100),
      `${name}: ${values.join(', ')}`,
    ).toBe(true);
    expect(values.at(-1)).toBe(100);
  }
  const bad = uploads.getByRole('listitem').filter({ hasText: `bad-${suffix}.qcow2` });
  await expect(bad.getByRole('status')).toHaveText('Failed');
  await expect(bad.getByRole('alert')).toHaveText(
    'This cannot be done: the file is not a qcow2 image: qemu-img reads it as raw.',
  );

  // Both listed as qcow2 images, with their sizes on disk and as a guest sees them.
  const list = panel.getByRole('table', { name: 'Disk image list' });
  for (const name of [`${web}.qcow2`, `${desk}.qcow2`]) {
    const row = list.getByRole('row').filter({ hasText: name });
    await expect(row.getByRole('cell').nth(1)).toHaveText(/^2\d MiB$/);
    await expect(row.getByRole('cell').nth(2)).toHaveText('24 MiB');
    await expect(row.getByRole('cell').nth(3)).toHaveText('none');
  }
  await expect(list.getByRole('row').filter({ hasText: `bad-${suffix}` })).toHaveCount(0);
  await panel.screenshot({ path: 'test-results/disk-images.png' });

  // A template from the qcow2: it opens in the manager, and the image cannot go while it is used.
  await panel.getByRole('button', { name: `New template from ${web}.qcow2` }).click();
  const form = page.getByRole('form', { name: `Template ${web}` });
  await expect(form.getByLabel('Detail (VmTemplate JSON)')).toHaveValue(
    new RegExp(`"Path":\\s*"${web}\\.qcow2"`),
  );
  const webRow = list.getByRole('row').filter({ hasText: `${web}.qcow2` });
  await expect(webRow.getByRole('cell').nth(3)).toHaveText(web);
  await expect(webRow.getByRole('button', { name: `Delete ${web}.qcow2` })).toBeDisabled();

  // The unused one is deleted after a confirmation.
  await panel.getByRole('button', { name: `Delete ${desk}.qcow2` }).click();
  await panel
    .getByRole('alertdialog', { name: `Delete ${desk}.qcow2?` })
    .getByRole('button', { name: 'Delete' })
    .click();
  await expect(list.getByRole('row').filter({ hasText: `${desk}.qcow2` })).toHaveCount(0);
  await expect(webRow).toBeVisible();
});

test('a failed disk image upload resumes where it stopped when the file is chosen again', async ({
  page,
}) => {
  const { qcow2 } = diskFiles();
  // A file on disk: the browser gives it the same last change each time it is chosen.
  const dir = mkdtempSync(join(tmpdir(), 'topoplay-e2e-resume-'));
  const name = `resume-${Date.now().toString(36)}.qcow2`;
  const path = join(dir, name);
  writeFileSync(path, qcow2);
  try {
    await signIn(page, 'admin');
    await page.goto('/admin/templates');
    const panel = page.getByRole('region', { name: 'Disk images' });
    const chunks: string[] = [];
    page.on('request', (request) => {
      const offset = /\/chunk\?offset=(\d+)$/.exec(request.url())?.[1];
      if (offset) chunks.push(offset);
    });
    // The network fails for the second chunk, every time it is tried.
    const second = `**/api/admin/diskimage/*/chunk?offset=${8 * 1024 * 1024}`;
    await page.route(second, (route) => route.abort('failed'));
    await panel.getByLabel('Upload disk images').setInputFiles(path);
    const row = panel
      .getByRole('list', { name: 'Disk image uploads' })
      .getByRole('listitem')
      .filter({ hasText: name });
    await expect(row.getByRole('status')).toHaveText('Failed');
    expect(chunks).toEqual(['0', '8388608', '8388608', '8388608', '8388608']);

    // Back on the network, the same file goes on from the bytes the server has.
    await page.unroute(second);
    await row.getByRole('button', { name: 'Remove' }).click();
    chunks.length = 0;
    await panel.getByLabel('Upload disk images').setInputFiles(path);
    await expect(row.getByRole('status')).toHaveText('Imported');
    expect(chunks).toEqual(['8388608', '16777216']);
    await expect(
      panel
        .getByRole('table', { name: 'Disk image list' })
        .getByRole('row')
        .filter({ hasText: name }),
    ).toBeVisible();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
