import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { buildTinyImage } from '../../server/hypervisor/qemu/tinyImage';
import { apiOf, extraServer, signedInPage } from './support';

// Stock templates the host cannot run (issue 31), on a server of the test's own with the qemu
// driver and an images folder holding only the tiny image: the admin Template Manager and the
// workspace's Add templates list mark linux-server, workstation, router and linux-desktop
// Unavailable with why, and not tiny-linux; an author may still add one, and the player who launches it is told which
// template cannot run and which image is missing.

const NO_DEBIAN = 'The image debian-12.qcow2 is not in the images folder: run npm run images.';
const NO_ROUTER = 'The image router.qcow2 is not in the images folder: run npm run images.';
const NO_DESKTOP =
  'The image debian-desktop.qcow2 is not in the images folder: run npm run images.';

test('stock templates whose images are missing are marked, and their launch says why', async ({
  browser,
}) => {
  test.setTimeout(180_000);
  const cache = resolve('node_modules/.cache/topoplay-images');
  await buildTinyImage(cache);
  const root = mkdtempSync(join(tmpdir(), 'tpu-'));
  const images = join(root, 'images');
  mkdirSync(images);
  for (const file of readdirSync(cache)) symlinkSync(join(cache, file), join(images, file));
  const server = extraServer(E2E_PORT + 2, {
    E2E_HYPERVISOR: 'qemu',
    QEMU_IMAGES_DIR: images,
    QEMU_STATE_DIR: join(root, 's'),
  });
  await server.start();

  try {
    // The admin's Template Manager.
    const admin = await signedInPage(browser, server.baseURL, 'admin');
    await admin.goto('/admin/templates');
    const list = admin.getByRole('list', { name: 'Templates' });
    const row = (name: string) =>
      list.getByRole('listitem').filter({ has: admin.getByRole('button', { name, exact: true }) });
    await expect(row('linux-server').getByText('Unavailable', { exact: true })).toBeVisible();
    await expect(row('linux-server').getByText(NO_DEBIAN)).toBeVisible();
    await expect(row('linux-server').getByText('Unavailable', { exact: true })).toHaveAttribute(
      'title',
      NO_DEBIAN,
    );
    await expect(row('workstation').getByText(NO_DEBIAN)).toBeVisible();
    await expect(row('router').getByText(NO_ROUTER)).toBeVisible();
    await expect(row('linux-desktop').getByText(NO_DESKTOP)).toBeVisible();
    await expect(row('tiny-linux')).toBeVisible();
    await expect(row('tiny-linux').getByText('Unavailable')).toHaveCount(0);
    // The reason describes the template's button, for those who do not see the tag.
    await expect(
      list.getByRole('button', { name: 'linux-server', exact: true }),
    ).toHaveAccessibleDescription(NO_DEBIAN);
    await admin.screenshot({ path: test.info().outputPath('template-manager-unavailable.png') });

    // An author's Add templates list, in a workspace of their own.
    const author = await signedInPage(browser, server.baseURL, 'creator');
    await author.getByRole('button', { name: 'New Workspace' }).click();
    await author.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(author.url())?.[1] ?? '';
    await author.getByRole('link', { name: 'Templates' }).click();
    await author.getByRole('searchbox', { name: 'Search templates' }).fill('i');
    const toAdd = author.getByRole('list', { name: 'Templates to add' });
    const result = (name: string) => toAdd.getByRole('listitem').filter({ hasText: name });
    await expect(result('linux-server').getByText(NO_DEBIAN)).toBeVisible();
    await expect(result('linux-server').getByText('Unavailable', { exact: true })).toBeVisible();
    await expect(result('linux-desktop').getByText(NO_DESKTOP)).toBeVisible();
    await expect(result('tiny-linux')).toBeVisible();
    await expect(result('tiny-linux').getByText('Unavailable')).toHaveCount(0);
    const add = result('linux-server').getByRole('button', { name: 'Add' });
    await expect(add).toHaveAccessibleDescription(NO_DEBIAN);
    await author.screenshot({ path: test.info().outputPath('add-templates-unavailable.png') });

    // Added all the same, and published.
    await add.click();
    await expect(author.getByRole('group', { name: /^Template linux-server$/ })).toBeVisible();
    const api = await apiOf(author);
    const workspace = await api<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
    await api('PUT', 'workspace', { ...workspace, name: 'Debian Lab', audience: 'everyone' });

    // The player launches it and is told why it cannot start.
    const player = await signedInPage(browser, server.baseURL, 'player');
    await player.goto(`/mojo/${workspaceId}`);
    await player
      .getByRole('toolbar', { name: 'Game actions' })
      .getByRole('button', { name: 'Start' })
      .click();
    await player
      .getByRole('group', { name: 'Start the game?' })
      .getByRole('button', { name: 'Confirm' })
      .click();
    const alert = player.getByRole('alert').filter({ hasText: 'linux-server cannot run' });
    await expect(alert).toContainText(NO_DEBIAN);
    await player.screenshot({ path: test.info().outputPath('launch-refused.png') });
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
