import { expect, test, type Page } from '@playwright/test';
import { DESKTOP_BOTH_WAYS } from '../../src/domain/clipboard';
import {
  apiOf,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  signedInPage,
} from '../e2e/support';
import { BOOT_MS, controllerOf, labServer, launch, openConsole } from './labConsole';

// Copy and paste both ways on the Debian desktop (debian-desktop.qcow2, which the stock
// linux-desktop template runs), played in Chromium on a real QEMU machine: what the desktop
// copies (xclip in its xterm) lands on the browser's clipboard without pressing anything, and
// what the browser's clipboard holds, handed over by Paste, is the desktop's clipboard (read back
// in the xterm and handed to topoplay-copy, which the server reads through the guest agent). The
// desktop is graphical: its screen cannot be read as text, so the test types into the xterm that
// the session opens at the top left.

const COPIED = 'copiedinthedesktop42';
const PASTED = 'pastedfromthebrowser7';
/** Clicks into the xterm (90x26 at +24+24 on the 1280x800 desktop) and types `command`. */
async function typeInXterm(console: Page, command: string) {
  const canvas = console.locator('.tp-console-screen canvas');
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no console canvas');
  await canvas.click({ position: { x: box.width * 0.15, y: box.height * 0.25 } });
  // The console types key by key without Shift: the pipe is pressed with it.
  const [left, right] = command.split(' | ');
  await console.keyboard.type(`${left} `);
  if (right !== undefined) {
    await console.keyboard.press('Shift+Backslash');
    await console.keyboard.type(` ${right}`);
  }
  await console.keyboard.press('Enter');
}

const browserClipboard = (page: Page) => () =>
  page.evaluate(() => navigator.clipboard.readText()).catch(() => '');

test('copy and paste both ways on the Debian desktop, through QEMU’s vdagent', async ({
  browser,
}) => {
  const server = await labServer();
  const { stateDir } = server;

  try {
    const author = await signedInPage(browser, server.baseURL, 'creator');
    const api = await apiOf(author);
    const lab = await api<{ id: string }>('POST', 'workspace', { name: 'Desktop Lab' });
    await linkStockTemplate(api, lab.id, 'linux-desktop', { name: 'desk', guestinfo: '' });
    const challenge = flagChallenge('A desktop is yours.', 'Copy and paste.');
    await publishWorkspace(api, lab.id, 'Desktop Lab', challenge);

    const player = await signedInPage(browser, server.baseURL, 'player');
    await player.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    const game = await launch(player, lab.id);
    const started = Date.now();
    const vm = game.vmOf('desk');
    // Running once its guest agent answers, which on the desktop comes late in its boot.
    await expect(controllerOf(game.page, 'desk').getByText('Running')).toBeVisible({
      timeout: BOOT_MS,
    });
    const runningSeconds = Math.round((Date.now() - started) / 1000);
    const desk = await openConsole(game.page, vm, stateDir);
    const clipboard = desk.page.getByRole('group', { name: 'Clipboard' });
    await expect(clipboard).toContainText(DESKTOP_BOTH_WAYS);
    await desk.page.evaluate(() => navigator.clipboard.writeText('before'));

    // Copy: the desktop's clipboard reaches the browser's as it is copied, once the desktop is
    // up (what is typed before it goes nowhere that matters).
    const readClipboard = browserClipboard(desk.page);
    await expect(async () => {
      await typeInXterm(desk.page, `echo -n ${COPIED} | xclip -selection clipboard`);
      await expect.poll(readClipboard, { timeout: 30_000 }).toBe(COPIED);
    }).toPass({ timeout: BOOT_MS, intervals: [5_000] });
    const seconds = Math.round((Date.now() - started) / 1000);
    console.log(`desktop: ${runningSeconds} s to Running, ${seconds} s to the first copy`);
    await expect(clipboard).toContainText(`Copied ${COPIED.length} characters to your clipboard.`);
    await desk.page.screenshot({ path: test.info().outputPath('desktop-copied.png') });

    // Paste: the browser's clipboard becomes the desktop's; the xterm reads it back.
    await desk.page.evaluate((text) => navigator.clipboard.writeText(text), PASTED);
    const toolbar = desk.page.getByRole('banner', { name: 'Console toolbar' });
    await expect(toolbar.getByLabel('Text to paste')).toHaveValue('');
    await toolbar.getByRole('button', { name: 'Paste', exact: true }).click();
    const playerApi = await apiOf(game.page);
    // noVNC ends the text with the NUL the extended clipboard's text format ends with, and QEMU
    // 7.2 hands the desktop that NUL too.
    const copiedOut = async () =>
      (await playerApi<{ text: string }>('POST', `vm/${vm.id}/clipboard/copy`)).text;
    await expect(async () => {
      await typeInXterm(desk.page, 'xclip -selection clipboard -o | topoplay-copy');
      await expect.poll(copiedOut, { timeout: 30_000 }).toBe(`${PASTED}\0`);
    }).toPass({ timeout: 120_000, intervals: [2_000] });
    await desk.page.screenshot({ path: test.info().outputPath('desktop-pasted.png') });
  } finally {
    await server.stop();
  }
});
