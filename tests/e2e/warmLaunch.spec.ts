import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { screenText } from '../../server/hypervisor/qemu/qmp';
import { buildTinyImage } from '../../server/hypervisor/qemu/tinyImage';
import {
  apiOf,
  canvasPixels,
  endGame,
  extraServer,
  flagChallenge,
  publishFlagLab,
  scoreFlag,
  signedInPage,
  signIn,
  startGame,
} from './support';

// A launch from a warm image, in the browser: a server with the qemu driver (warm images on, as by
// default). The player's first game boots its machine, which has the server build the template's
// warm image in the background; the next game's machine is restored from it. Its console shows
// its own prompt, a command runs, and the flag on its screen is the new game's (it scores), not
// the one the first game generated. Then a pool keeps a set ready, and the third game claims it.

const CHALLENGE = flagChallenge('A tiny machine is yours.', 'Look at the console.');

interface GameVm {
  id: string;
  name: string;
}

test('a second launch is restored from the warm image: its own prompt, flag and a live console', async ({
  browser,
}) => {
  test.setTimeout(420_000);
  const cache = resolve('node_modules/.cache/topoplay-images');
  await buildTinyImage(cache);
  const root = mkdtempSync(join(tmpdir(), 'tpw-'));
  const images = join(root, 'images');
  mkdirSync(images);
  for (const file of readdirSync(cache)) symlinkSync(join(cache, file), join(images, file));
  const stateDir = join(root, 's');
  const server = extraServer(E2E_PORT + 5, {
    E2E_HYPERVISOR: 'qemu',
    QEMU_IMAGES_DIR: images,
    QEMU_STATE_DIR: stateDir,
  });
  await server.start();
  const screenOf = async (vm: GameVm) =>
    (await screenText(join(stateDir, 'machines', vm.id, 'qmp.sock'))).join('\n');
  const flagOn = async (vm: GameVm) =>
    /guestinfo\.flag = ([0-9a-f]{10})/.exec(await screenOf(vm))?.[1] ?? '';

  try {
    const authorContext = await browser.newContext({ baseURL: server.baseURL });
    const page = await authorContext.newPage();
    await signIn(page, 'creator');
    await page.getByRole('button', { name: 'New Workspace' }).click();
    await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
    const author = await apiOf(page);
    const stock = await author<Array<{ id: string; name: string }>>('GET', 'templates?term=tiny');
    const tiny = stock.find((t) => t.name === 'tiny-linux');
    const linked = await author<Record<string, unknown>>('POST', 'template', {
      templateId: tiny?.id,
      workspaceId,
    });
    await publishFlagLab(author, workspaceId, linked, {
      name: 'Warm Lab',
      replicas: 1,
      challenge: CHALLENGE,
    });

    // The first game boots its machine; the warm image is built meanwhile.
    const player = await signedInPage(browser, server.baseURL, 'player');
    const playerApi = await apiOf(player);
    const gameVm = async () => {
      const id = /\/mojo\/([0-9a-f]{32})/.exec(player.url())?.[1] ?? '';
      return (await playerApi<{ vms: GameVm[] }>('GET', `gamespace/${id}`)).vms[0]!;
    };
    await startGame(player, workspaceId);
    const booted = await gameVm();
    await expect.poll(() => screenOf(booted), { timeout: 120_000 }).toMatch(/box:~# /);
    const firstFlag = await flagOn(booted);
    expect(firstFlag).toMatch(/^[0-9a-f]{10}$/);
    await endGame(player);
    await expect
      .poll(
        () => {
          const warm = join(stateDir, 'warm');
          const names = existsSync(warm) ? readdirSync(warm) : [];
          return names.some((n) => existsSync(join(warm, n, 'warm.json')));
        },
        { timeout: 180_000, intervals: [1_000] },
      )
      .toBe(true);

    // The second game's machine is restored, and is this game's.
    await startGame(player, workspaceId);
    const restored = await gameVm();
    const record = JSON.parse(
      readFileSync(join(stateDir, 'machines', restored.id, 'machine.json'), 'utf8'),
    );
    expect(record.restoredFrom).toMatch(/^[0-9a-f]{24}$/);
    await expect.poll(() => screenOf(restored), { timeout: 30_000 }).toMatch(/box:~# /);
    const flag = await flagOn(restored);
    expect(flag).toMatch(/^[0-9a-f]{10}$/);
    expect(flag).not.toBe(firstFlag);
    expect(await screenOf(restored)).not.toContain('topoplay-warm');

    const resources = player.getByRole('region', { name: 'Resources' });
    const controller = resources.getByRole('group', { name: 'Machine box', exact: true });
    await expect(controller.getByText('Running')).toBeVisible({ timeout: 30_000 });
    const [consolePage] = await Promise.all([
      player.waitForEvent('popup'),
      controller.getByRole('button', { name: 'Console' }).click(),
    ]);
    const consoleBar = consolePage.getByRole('banner', { name: 'Console toolbar' });
    await expect(consoleBar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
    await expect.poll(async () => (await canvasPixels(consolePage)).lit).toBeGreaterThan(2_000);
    await consolePage.locator('.tp-console-screen canvas').click();
    await consolePage.keyboard.type('expr 50 - 8');
    await consolePage.keyboard.press('Enter');
    await expect
      .poll(async () => (await screenOf(restored)).split('\n').map((row) => row.trim()), {
        timeout: 30_000,
      })
      .toContain('42');
    await consolePage.screenshot({ path: test.info().outputPath('warm-console.png') });
    // The flag is the only question: answering it ends the game.
    await scoreFlag(player, flag);
    await consolePage.close();
    await expect(player.getByRole('heading', { name: 'Game Over' })).toBeVisible();

    // A warm pool: an administrator keeps one set ready, restored and running under a tag of its
    // own. The next launch claims it: the machine was running before the click, it is moved to
    // the game's network and given the game's flag, which its screen shows at once.
    const admin = await apiOf(await signedInPage(browser, server.baseURL, 'admin'));
    await admin('PUT', `admin/pools/${workspaceId}`, { size: 1 });
    const pool = () => admin<{ ready: number }>('GET', `admin/pools/${workspaceId}`);
    await expect.poll(async () => (await pool()).ready, { timeout: 120_000 }).toBe(1);
    const before = new Set(readdirSync(join(stateDir, 'machines')));
    const clicked = Date.now();
    await startGame(player, workspaceId);
    const claimed = await gameVm();
    expect(before.has(claimed.id)).toBe(true);
    await expect(controller.getByText('Running')).toBeVisible({ timeout: 10_000 });
    await expect
      .poll(() => flagOn(claimed), { timeout: 10_000, intervals: [100] })
      .toMatch(/^[0-9a-f]{10}$/);
    const ready = Date.now() - clicked;
    test.info().annotations.push({ type: 'pooled launch', description: `${ready} ms to the flag` });
    console.info(`pooled launch: ${ready} ms from the click to this game's flag on the screen`);
    const pooledFlag = await flagOn(claimed);
    expect([firstFlag, flag]).not.toContain(pooledFlag);
    expect(await screenOf(claimed)).toMatch(/box:~# /);
    await scoreFlag(player, pooledFlag);
    await expect(player.getByRole('heading', { name: 'Game Over' })).toBeVisible();
    // The pool fills again on its own.
    await expect.poll(async () => (await pool()).ready, { timeout: 120_000 }).toBe(1);
    await admin('PUT', `admin/pools/${workspaceId}`, { size: 0 });
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
