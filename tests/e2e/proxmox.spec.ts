import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { startPveSimulator } from '../pvesim/simulator';
import {
  apiOf,
  canvasPixels,
  extraServer,
  flagChallenge,
  publishFlagLab,
  scoreFlag,
  signedInPage,
  signIn,
  startGame,
} from './support';

// The whole path on a Proxmox VE cluster, played against the PVE API SIMULATOR (tests/pvesim,
// over TLS with its certificate pinned): a server of the test's own with HYPERVISOR=proxmox. An
// author links the tiny stock template, unlinks it and initializes it (a full clone of the
// cluster's template, with progress), deploys its machine and opens its console; a player
// launches the published lab, opens the console of their machine (bridged to the simulator's
// vncwebsocket), reads the flag the guest agent wrote into the machine and scores with it; ending
// the game removes the machines and the gamespace's vnets from the cluster.

const CHALLENGE = flagChallenge(
  'A tiny machine on the cluster is yours.',
  'Look in /etc/topoplay-guestinfo.',
);

interface GameVm {
  id: string;
  name: string;
}

test('a lab on a Proxmox cluster (simulated): author, launch, console, grade, cleanup', async ({
  browser,
}) => {
  test.setTimeout(240_000);
  const sim = await startPveSimulator({ tls: true, fullCloneMs: 2_500, agentDelayMs: 500 });
  const server = extraServer(E2E_PORT + 3, {
    E2E_HYPERVISOR: 'proxmox',
    PROXMOX_URL: sim.url,
    PROXMOX_TOKEN_ID: sim.tokenId,
    PROXMOX_TOKEN_SECRET: sim.tokenSecret,
    PROXMOX_FINGERPRINT: sim.fingerprint ?? '',
  });
  await server.start();
  try {
    // The author: tiny-linux, unlinked and initialized into the workspace's own base image.
    const authorContext = await browser.newContext({ baseURL: server.baseURL });
    const page = await authorContext.newPage();
    await signIn(page, 'creator');
    await page.getByRole('button', { name: 'New Workspace' }).click();
    await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('searchbox', { name: 'Search templates' }).fill('tiny');
    await page
      .getByRole('list', { name: 'Templates to add' })
      .getByRole('listitem')
      .filter({ hasText: 'tiny-linux' })
      .getByRole('button', { name: 'Add' })
      .click();
    const template = page.getByRole('group', { name: /^Template tiny-linux$/ });
    await expect(template).toBeVisible();
    const templateName = ((await template.getAttribute('aria-label')) ?? '').replace(
      'Template ',
      '',
    );
    const machine = template.getByRole('group', { name: `Machine ${templateName}` });
    await template.getByRole('button', { name: 'Unlink' }).click();
    await machine.getByRole('button', { name: 'Initialize' }).click();
    await expect(machine.getByRole('progressbar', { name: 'Initializing' })).toBeVisible();
    await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible({ timeout: 30_000 });
    // The copy is a PVE template of the workspace's own, marked as ours.
    const own = sim.vms().filter((vm) => vm.template && vm.tags.includes(workspaceId));
    expect(own.map((vm) => vm.tags.includes('topoplay'))).toEqual([true]);

    await machine.getByRole('button', { name: 'Deploy' }).click();
    await expect(machine.getByText('Running')).toBeVisible({ timeout: 30_000 });
    const [builderConsole] = await Promise.all([
      authorContext.waitForEvent('page'),
      machine.getByRole('button', { name: 'Console' }).click(),
    ]);
    await expect(
      builderConsole.getByRole('banner', { name: 'Console toolbar' }).getByRole('status'),
    ).toHaveText('connected', { timeout: 30_000 });
    await builderConsole.close();
    await machine.getByRole('button', { name: 'Delete machine' }).click();
    await machine
      .getByRole('group', { name: `Delete machine ${templateName}?` })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await expect(machine.getByRole('button', { name: 'Deploy' })).toBeVisible({ timeout: 30_000 });

    // Its guest settings carry the flag; the lab is published.
    const author = await apiOf(page);
    const { templates } = await author<{ templates: Array<Record<string, unknown>> }>(
      'GET',
      `workspace/${workspaceId}`,
    );
    await publishFlagLab(author, workspaceId, templates[0]!, {
      name: 'Cluster Lab',
      replicas: 1,
      challenge: CHALLENGE,
    });

    // The player launches it.
    const player = await signedInPage(browser, server.baseURL, 'player');
    await startGame(player, workspaceId);
    const playerApi = await apiOf(player);
    // The play page's id is the workspace's; the game state names the gamespace.
    const game = await playerApi<{ id: string; vms: GameVm[] }>('GET', `gamespace/${workspaceId}`);
    const gamespaceId = game.id;
    expect(gamespaceId).toMatch(/^[0-9a-f]{32}$/);
    expect(gamespaceId).not.toBe(workspaceId);
    expect(game.vms.map((vm) => vm.name)).toEqual(['box']);
    const vmid = Number(game.vms[0]!.id);

    // The console of the machine on the cluster.
    const resources = player.getByRole('region', { name: 'Resources' });
    const controller = resources.getByRole('group', { name: 'Machine box', exact: true });
    await expect(controller.getByText('Running')).toBeVisible({ timeout: 60_000 });
    // On the cluster: a linked clone of the workspace's base image, on its own vnet.
    const onCluster = sim.vms().filter((vm) => !vm.template && vm.tags.includes(gamespaceId));
    expect(onCluster.map((vm) => vm.vmid)).toEqual([vmid]);
    expect(sim.vnets().filter((v) => v.alias === `lan--${gamespaceId}`)).toHaveLength(1);
    const [consolePage] = await Promise.all([
      player.waitForEvent('popup'),
      controller.getByRole('button', { name: 'Console' }).click(),
    ]);
    const consoleBar = consolePage.getByRole('banner', { name: 'Console toolbar' });
    await expect(consoleBar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
    await expect.poll(async () => (await canvasPixels(consolePage)).lit).toBeGreaterThan(1_000);
    // Keys reach the machine through the bridge, and its screen comes back changed.
    const before = await canvasPixels(consolePage);
    await consolePage.locator('.tp-console-screen canvas').click();
    await consolePage.keyboard.type('hostname');
    await consolePage.keyboard.press('Enter');
    await expect.poll(async () => (await canvasPixels(consolePage)).digest).not.toBe(before.digest);
    await consolePage.screenshot({ path: test.info().outputPath('proxmox-console.png') });
    await consolePage.close();

    // The guest agent wrote the generated flag into the machine; it scores.
    const flagOf = () =>
      /guestinfo\.flag=([0-9a-f]{10})/.exec(
        sim.agentFiles(vmid)['/etc/topoplay-guestinfo'] ?? '',
      )?.[1] ?? '';
    await expect.poll(flagOf, { timeout: 30_000 }).toMatch(/^[0-9a-f]{10}$/);
    const flag = flagOf();
    await scoreFlag(player, flag);
    await player.screenshot({ path: test.info().outputPath('proxmox-scored.png') });

    // A full score ends the game; the janitor's next run (here asked for by an admin) removes its
    // machine and its networks from the cluster.
    await expect(player.getByText('Game Over')).toBeVisible();
    const admin = await signedInPage(browser, server.baseURL, 'admin');
    await admin.goto('/admin');
    await admin.getByRole('button', { name: 'Run janitor' }).click();
    await expect
      .poll(() => sim.vms().filter((vm) => !vm.template && vm.tags.includes(gamespaceId)).length, {
        timeout: 60_000,
      })
      .toBe(0);
    await expect
      .poll(
        () =>
          sim.vnets().filter((v) => v.alias?.endsWith(`--${gamespaceId}`) && v.state !== 'deleted')
            .length,
        { timeout: 30_000 },
      )
      .toBe(0);
  } finally {
    await server.stop();
    await sim.close();
  }
});
