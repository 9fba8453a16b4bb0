import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { TINY_INITRD, TINY_KERNEL } from '../../server/hypervisor/qemu/tinyImage';
import { endGame, signedInPage, topBar } from '../e2e/support';
import {
  INSTALLED_MARKER,
  INSTALLING_MARKER,
  makeInstallerIso,
} from '../server/hypervisor/installerIso';
import { LABS_IMAGES } from './images';
import {
  BOOT_MS,
  labServer,
  launch,
  openConsole as openGameConsole,
  screenOf,
  screenShowed,
} from './labConsole';

// An ISO install in the browser on a real QEMU machine (issue 31), every step clicked as people
// do. The admin makes a stock template of an empty disk (a size, no image) in the Template
// Manager and publishes it. An author adds it to a new workspace, unlinks and initializes it,
// uploads a small installer ISO (made here from the tiny image, ../server/hypervisor/
// installerIso.ts) on the Files tab, chooses it as the template's ISO and deploys: on the console
// the installer writes the disk and powers the machine off. The author saves the disk, deletes
// the machine, takes the ISO out and deploys again: the console shows the installed system. The
// workspace opened to everyone, a player's launch boots the installed system as well.

const TEMPLATE = 'installer-box';
const ISO = 'installer.iso';

/** The stock template's detail: one empty disk of 1 GB (a size and no image). */
const EMPTY_DISK_DETAIL = {
  Cpu: '1x1',
  Ram: 1,
  Guest: 'otherLinux64Guest',
  Adapters: 1,
  Eth: [{ Net: 'lan', Type: 'virtio' }],
  Disks: [{ Path: '', Source: '', Controller: 'virtio', Size: 1 }],
};

/** The machine's state badge ('Not initialized', 'Not deployed', 'Running', 'Off', ...). */
const stateOf = (machine: Locator) => machine.locator('.tp-vm-state');

/** Opens the deployed machine's console in a new tab; its id, from the console's address. */
async function openConsole(author: Page, machine: Locator) {
  const [page] = await Promise.all([
    author.waitForEvent('popup'),
    machine.getByRole('button', { name: 'Console' }).click(),
  ]);
  const bar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(bar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  const id = /^\/console\/([^/]+)\//.exec(new URL(page.url()).pathname)?.[1] ?? '';
  expect(id).not.toBe('');
  return { page, id };
}

/** Chooses the template's ISO (`None` for none); resolves once the template is saved with it. */
async function chooseIso(author: Page, chooser: Locator, label: string, path: string) {
  const saved = author.waitForResponse(
    (r) =>
      r.request().method() === 'PUT' &&
      /\/api\/template$/.test(r.url()) &&
      (r.request().postDataJSON() as { iso?: string }).iso === path,
  );
  await chooser.selectOption({ label });
  await expect(chooser).toHaveValue(path);
  await chooser.blur();
  expect((await saved).ok()).toBe(true);
}

/** The machines of the qemu driver's state folder. */
const machineIds = (stateDir: string) =>
  existsSync(join(stateDir, 'machines')) ? readdirSync(join(stateDir, 'machines')) : [];

/** Deploys the template's machine and starts it when it came up off; the machine's id. */
async function deploy(machine: Locator, stateDir: string) {
  const before = machineIds(stateDir);
  await machine.getByRole('button', { name: 'Deploy' }).click();
  await expect(stateOf(machine)).toHaveText(/Running|Off/, { timeout: 60_000 });
  if ((await stateOf(machine).textContent())?.includes('Off')) {
    await machine.getByRole('button', { name: 'Start' }).click();
  }
  await expect(stateOf(machine)).toHaveText(/Running/, { timeout: 60_000 });
  const deployed = machineIds(stateDir).filter((id) => !before.includes(id));
  expect(deployed).toHaveLength(1);
  return deployed[0]!;
}

/** Deletes the deployed machine, confirmed; the template can then be deployed again. */
async function deleteMachine(machine: Locator) {
  await machine.getByRole('button', { name: 'Delete machine' }).click();
  await machine
    .getByRole('group', { name: `Delete machine ${TEMPLATE}?` })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible({ timeout: 60_000 });
}

test('an author installs a system from an ISO on an empty disk, saves it, and a new deploy boots it', async ({
  browser,
}) => {
  const server = await labServer();
  const work = mkdtempSync(join(tmpdir(), 'tpl-iso-'));
  const shot = (name: string) => ({ path: test.info().outputPath(name) });

  try {
    const iso = join(work, ISO);
    await makeInstallerIso(
      join(work, 'build'),
      { kernel: join(LABS_IMAGES, TINY_KERNEL), initrd: join(LABS_IMAGES, TINY_INITRD) },
      iso,
    );

    // The admin: Admin · Templates, New stock template, its name, network and detail, published.
    const admin = await signedInPage(browser, server.baseURL, 'admin');
    await topBar(admin).getByRole('link', { name: 'Admin', exact: true }).click();
    await admin
      .getByRole('navigation', { name: 'Admin sections' })
      .getByRole('link', { name: 'Templates' })
      .click();
    await admin.getByRole('button', { name: 'New stock template' }).click();
    const form = admin.getByRole('form', { name: 'Template new-template' });
    await form.getByLabel('Name', { exact: true }).fill(TEMPLATE);
    await form.getByLabel('Networks', { exact: true }).fill('lan');
    await form.getByLabel('Detail (VmTemplate JSON)').fill(JSON.stringify(EMPTY_DISK_DETAIL));
    await expect(form.getByRole('alert').first()).toHaveText('');
    await form.getByLabel(/^Published/).check();
    await admin.screenshot(shot('admin-new-stock-template.png'));
    await form.getByRole('button', { name: 'Save' }).click();
    const list = admin.getByRole('list', { name: 'Templates' });
    await expect(list.getByRole('listitem').filter({ hasText: TEMPLATE })).toContainText(
      'stock · published',
    );

    // The author: a workspace, the installer ISO on its Files tab.
    const author = await signedInPage(browser, server.baseURL, 'creator');
    await author.getByRole('button', { name: 'New Workspace' }).click();
    await author.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(author.url())?.[1] ?? '';
    await author.getByRole('link', { name: 'Files' }).click();
    await author.getByLabel('Choose files to upload, or drop them here').setInputFiles(iso);
    await expect(
      author.getByRole('listitem').filter({ hasText: ISO }).getByRole('status'),
    ).toHaveText('Uploaded', { timeout: 60_000 });
    const isoFiles = author.getByRole('region', { name: 'ISO files', exact: true });
    await expect(isoFiles.getByText(ISO, { exact: true })).toBeVisible();
    await author.screenshot(shot('author-iso-uploaded.png'));

    // The template added, unlinked (its disk becomes the workspace's own, which Save writes),
    // initialized (the empty disk is made) and given the ISO.
    await author.getByRole('link', { name: 'Templates' }).click();
    await author.getByRole('searchbox', { name: 'Search templates' }).fill('installer');
    await author
      .getByRole('list', { name: 'Templates to add' })
      .getByRole('listitem')
      .filter({ hasText: TEMPLATE })
      .getByRole('button', { name: 'Add' })
      .click();
    const template = author.getByRole('group', { name: `Template ${TEMPLATE}`, exact: true });
    const machine = template.getByRole('group', { name: `Machine ${TEMPLATE}`, exact: true });
    await template.getByRole('button', { name: 'Unlink' }).click();
    await machine.getByRole('button', { name: 'Initialize' }).click();
    await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible({ timeout: 60_000 });
    const chooser = template.getByLabel('ISO', { exact: true });
    await chooser.focus();
    await expect(chooser.getByRole('option', { name: ISO })).toHaveCount(1);
    await chooseIso(author, chooser, ISO, `${workspaceId}/${ISO}`);

    // Deployed and started: the installer boots from the ISO, writes the disk and powers off.
    // The installer shows its marker for a second or two: the screen is watched from the start.
    const installerId = await deploy(machine, server.stateDir);
    const installing = screenShowed(
      server.stateDir,
      { id: installerId, name: TEMPLATE },
      INSTALLING_MARKER,
    );
    const [installer] = await Promise.all([openConsole(author, machine), installing]);
    expect(installer.id).toBe(installerId);
    await installer.page.screenshot(shot('console-installer.png'));
    await expect(stateOf(machine)).toHaveText(/Off/, { timeout: BOOT_MS });
    await installer.page.close();
    await author.screenshot(shot('author-installer-powered-off.png'));

    // Save keeps the disk; the machine is deleted and the ISO taken out. The page says nothing
    // when the disk is saved (the machine's spinner turns while the request runs), and a Delete
    // clicked within the Save's 300 ms debounce replaces it: the test waits for the Save's answer.
    const saved = author.waitForResponse(
      (r) => r.request().method() === 'PUT' && /\/api\/vm$/.test(r.url()),
    );
    await machine.getByRole('button', { name: 'Save' }).click();
    const answer = await saved;
    expect(answer.ok(), await answer.text()).toBe(true);
    expect(answer.request().postDataJSON()).toMatchObject({ type: 'save' });
    await expect(machine).toHaveAttribute('aria-busy', 'false');
    await author.screenshot(shot('author-disk-saved.png'));
    await deleteMachine(machine);
    await chooseIso(author, chooser, 'None', '');

    // Deployed again: the machine boots the installed system from its disk.
    await deploy(machine, server.stateDir);
    const installed = await openConsole(author, machine);
    await expect
      .poll(screenOf(server.stateDir, { id: installed.id, name: TEMPLATE }), {
        timeout: BOOT_MS,
        intervals: [1_000],
      })
      .toContain(INSTALLED_MARKER);
    await installed.page.screenshot(shot('console-installed-system.png'));
    await installed.page.close();
    await deleteMachine(machine);

    // Open to everyone on the Settings tab: a player's launch boots the installed system too.
    await author.getByRole('link', { name: 'Settings' }).click();
    const settings = author.getByRole('form', { name: 'Workspace settings' });
    const published = author.waitForResponse(
      (r) =>
        r.request().method() === 'PUT' &&
        /\/api\/workspace$/.test(r.url()) &&
        (r.request().postDataJSON() as { audience?: string }).audience === 'everyone',
    );
    await settings.getByLabel('Name', { exact: true }).fill('ISO Install Lab');
    await settings.getByLabel('Audience', { exact: true }).fill('everyone');
    await settings.getByLabel('Audience', { exact: true }).blur();
    expect((await published).ok()).toBe(true);
    await expect(settings.getByRole('status')).toHaveText('Saved');
    const player = await signedInPage(browser, server.baseURL, 'player');
    const game = await launch(player, workspaceId);
    expect(game.vms.map((vm) => vm.name)).toEqual([TEMPLATE]);
    const played = await openGameConsole(player, game.vmOf(TEMPLATE), server.stateDir);
    await expect
      .poll(played.screen, { timeout: BOOT_MS, intervals: [1_000] })
      .toContain(INSTALLED_MARKER);
    await played.page.screenshot(shot('player-console-installed-system.png'));
    await played.page.close();
    await endGame(player);
    await expect.poll(game.machines, { timeout: 60_000 }).toEqual([]);
  } finally {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
