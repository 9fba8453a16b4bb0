import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { screenText } from '../../server/hypervisor/qemu/qmp';
import { buildTinyImage } from '../../server/hypervisor/qemu/tinyImage';
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

// Real machines in the browser: a server of the test's own with the qemu driver. An author
// publishes a workspace whose tiny Linux machine is made twice (two replicas) and whose guest
// settings carry a generated flag; a player launches it, opens a machine's console, sees the shell
// prompt on the live screen, types a command and sees its output, reads the flag the challenge
// generated on the machine's screen and scores with it. What is on the screen is read from the
// machine's text-mode framebuffer through its monitor, and the console's canvas must show it too.

const CHALLENGE = flagChallenge('Two tiny machines are yours.', 'Look at the console.');

interface GameVm {
  id: string;
  name: string;
}

test('a player gets real machines: the console shows the prompt, runs a command, and shows the generated flag', async ({
  browser,
}) => {
  test.setTimeout(300_000);
  const cache = resolve('node_modules/.cache/topoplay-images');
  await buildTinyImage(cache);
  const root = mkdtempSync(join(tmpdir(), 'tpq-'));
  const images = join(root, 'images');
  mkdirSync(images);
  for (const file of readdirSync(cache)) symlinkSync(join(cache, file), join(images, file));
  const stateDir = join(root, 's');
  const server = extraServer(E2E_PORT + 2, {
    E2E_HYPERVISOR: 'qemu',
    QEMU_IMAGES_DIR: images,
    QEMU_STATE_DIR: stateDir,
  });
  await server.start();
  const qmpOf = (vm: GameVm) => join(stateDir, 'machines', vm.id, 'qmp.sock');
  const screenOf = async (vm: GameVm) => (await screenText(qmpOf(vm))).join('\n');

  try {
    // The author: the tiny stock machine twice, its guest settings carrying the flag.
    const authorContext = await browser.newContext({ baseURL: server.baseURL });
    const page = await authorContext.newPage();
    await signIn(page, 'creator');
    await page.getByRole('button', { name: 'New Workspace' }).click();
    await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
    const author = await apiOf(page);
    const stock = await author<Array<{ id: string; name: string }>>('GET', 'templates?term=tiny');
    const tiny = stock.find((t) => t.name === 'tiny-linux');
    expect(tiny).toBeDefined();
    const linked = await author<Record<string, unknown>>('POST', 'template', {
      templateId: tiny?.id,
      workspaceId,
    });
    await publishFlagLab(author, workspaceId, linked, {
      name: 'Real Lab',
      replicas: 2,
      challenge: CHALLENGE,
    });

    // The player launches it.
    const player = await signedInPage(browser, server.baseURL, 'player');
    await startGame(player, workspaceId);
    const gamespaceId = /\/mojo\/([0-9a-f]{32})/.exec(player.url())?.[1] ?? '';
    const playerApi = await apiOf(player);
    const game = await playerApi<{ vms: GameVm[] }>('GET', `gamespace/${gamespaceId}`);
    expect(game.vms.map((vm) => vm.name).sort()).toEqual(['box_1', 'box_2']);
    const first = game.vms.find((vm) => vm.name === 'box_1')!;

    // Its console, in a new tab, connects to the live screen.
    const resources = player.getByRole('region', { name: 'Resources' });
    const controller = resources.getByRole('group', { name: 'Machine box_1', exact: true });
    await expect(controller.getByText('Running')).toBeVisible({ timeout: 60_000 });
    const [consolePage] = await Promise.all([
      player.waitForEvent('popup'),
      controller.getByRole('button', { name: 'Console' }).click(),
    ]);
    const consoleBar = consolePage.getByRole('banner', { name: 'Console toolbar' });
    await expect(consoleBar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });

    // The machine booted to its prompt, and the canvas shows the screen. Its host name is the
    // machine's name with the underscore a host name cannot hold as a dash.
    await expect
      .poll(() => screenOf(first), { timeout: 90_000, intervals: [500] })
      .toMatch(/box-1:~# /);
    await expect.poll(async () => (await canvasPixels(consolePage)).lit).toBeGreaterThan(2_000);
    await consolePage.screenshot({ path: test.info().outputPath('qemu-console-prompt.png') });

    // A command typed into the console runs, and its output is on the screen.
    const before = await canvasPixels(consolePage);
    await consolePage.locator('.tp-console-screen canvas').click();
    // Unshifted keys only: the keyboard types key by key, without holding Shift as a person would.
    await consolePage.keyboard.type('expr 50 - 8');
    await consolePage.keyboard.press('Enter');
    await expect
      .poll(async () => (await screenOf(first)).split('\n').map((row) => row.trim()), {
        timeout: 30_000,
      })
      .toContain('42');
    await expect.poll(async () => (await canvasPixels(consolePage)).digest).not.toBe(before.digest);
    await consolePage.screenshot({ path: test.info().outputPath('qemu-console-command.png') });

    // Pasted text is typed, Shift held where a US keyboard needs it.
    await consoleBar.getByLabel('Text to paste').fill('echo $((6*7))-Ok');
    await consoleBar.getByRole('button', { name: 'Paste', exact: true }).click();
    await expect
      .poll(() => screenOf(first), { timeout: 30_000 })
      .toContain('box-1:~# echo $((6*7))-Ok');
    await consolePage.keyboard.press('Enter');
    await expect
      .poll(async () => (await screenOf(first)).split('\n').map((row) => row.trim()), {
        timeout: 30_000,
      })
      .toContain('42-Ok');

    // The flag the challenge generated is printed on the machine at boot; it scores.
    const flag = /guestinfo\.flag = ([0-9a-f]{10})/.exec(await screenOf(first))?.[1] ?? '';
    expect(flag).toMatch(/^[0-9a-f]{10}$/);
    await scoreFlag(player, flag);

    // Ending the game removes its machines: no QEMU process of the game is left.
    await consolePage.close();
    await expect
      .poll(
        async () => (await playerApi<{ vms: GameVm[] }>('GET', `gamespace/${gamespaceId}`)).vms,
        {
          timeout: 30_000,
        },
      )
      .toEqual([]);
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
