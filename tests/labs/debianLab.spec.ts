import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { screenText } from '../../server/hypervisor/qemu/qmp';
import {
  apiOf,
  canvasPixels,
  extraServer,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  scoreFlag,
  signedInPage,
  startGame,
} from '../e2e/support';
import { LABS_IMAGES } from './images';

// A lab of two Debian machines, played in the browser on real QEMU machines (issue 31). The author
// links the stock linux-server twice into a workspace: `alpha` and `bravo` on the lab's `lan`, at
// static addresses, with a user and password, and `alpha` with the challenge's generated flag; a
// second workspace has one machine, `charlie`, at another address of the same subnet. A player
// launches the lab and a second person the other; the player logs in on alpha's console with the
// author's credentials, reads the flag file there and scores with it, logs in to bravo by ssh and
// sees its hostname, and cannot reach charlie; on charlie's console its address is the one asked
// for, and alpha is out of its reach too. What the machines show is read from their VGA text
// screens through their monitors (the images boot with `nomodeset`).

const PORT = Number(process.env.LABS_PORT ?? 6651);
const USER = 'alice';
// Lower-case letters and digits, as every command typed here: the console types key by key,
// without holding Shift (`W` would arrive as `w`).
const PASSWORD = 'labpass42';
const CREDENTIALS = `cloud.user=${USER};cloud.password=${PASSWORD}`;
const ADDRESSES = { alpha: '10.0.0.11', bravo: '10.0.0.12', charlie: '10.0.0.13' } as const;
type Host = keyof typeof ADDRESSES;
const guestinfo = (host: Host, extra = '') =>
  `${CREDENTIALS};cloud.ip0=${ADDRESSES[host]}/24${extra}`;

// Boots under software emulation, three machines at once on two cores.
const BOOT_MS = 360_000;
const COMMAND_MS = 60_000;
const FLAG = /^[0-9a-f]{10}$/;
const NO_REPLY = /2 packets transmitted, 0 received[\s\S]*100% packet loss/;

interface GameVm {
  id: string;
  name: string;
}

/** A machine's console in the browser, and its screen read through its monitor. */
interface Console {
  page: Page;
  screen(): Promise<string>;
  rows(): Promise<string[]>;
}

async function openConsole(player: Page, vm: GameVm, stateDir: string): Promise<Console> {
  const controller = player
    .getByRole('region', { name: 'Resources' })
    .getByRole('group', { name: `Machine ${vm.name}`, exact: true });
  await expect(controller.getByText('Running')).toBeVisible({ timeout: 60_000 });
  const [page] = await Promise.all([
    player.waitForEvent('popup'),
    controller.getByRole('button', { name: 'Console' }).click(),
  ]);
  const bar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(bar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  const qmp = join(stateDir, 'machines', vm.id, 'qmp.sock');
  const rows = async () => (await screenText(qmp)).map((row) => row.trimEnd());
  return { page, rows, screen: async () => (await rows()).join('\n') };
}

/** Logs in on the console's login prompt as the author's user; resolves at the shell prompt. */
async function logIn(console: Console, host: Host) {
  await expect
    .poll(console.screen, { timeout: BOOT_MS, intervals: [1_000] })
    .toContain(`${host} login:`);
  await console.page.locator('.tp-console-screen canvas').click();
  await console.page.keyboard.type(USER);
  await console.page.keyboard.press('Enter');
  await expect.poll(console.screen, { timeout: COMMAND_MS }).toContain('Password:');
  await console.page.keyboard.type(PASSWORD);
  await console.page.keyboard.press('Enter');
  await expect.poll(console.screen, { timeout: COMMAND_MS }).toContain(`${USER}@${host}:~$`);
}

/** Clears the screen and types `command` at the shell prompt of `host`. */
async function run(console: Console, host: Host, command: string) {
  const prompt = `${USER}@${host}:~$`;
  await console.page.keyboard.type('clear');
  await console.page.keyboard.press('Enter');
  await expect
    .poll(
      async () => {
        const [first = '', ...rest] = await console.rows();
        return first.trim() === prompt && rest.every((row) => row.trim() === '');
      },
      { timeout: COMMAND_MS },
    )
    .toBe(true);
  await console.page.keyboard.type(command);
  await console.page.keyboard.press('Enter');
}

async function launch(page: Page, workspaceId: string) {
  await startGame(page, workspaceId);
  const gamespaceId = /\/mojo\/([0-9a-f]{32})/.exec(page.url())?.[1] ?? '';
  const api = await apiOf(page);
  const machines = async () =>
    (await api<{ vms: GameVm[] }>('GET', `gamespace/${gamespaceId}`)).vms;
  return { page, vms: await machines(), machines };
}

test('a player logs in on a Debian machine, scores its flag, reaches the other by ssh, and no one else', async ({
  browser,
}) => {
  const root = mkdtempSync(join(tmpdir(), 'tpl-'));
  const images = join(root, 'images');
  mkdirSync(images);
  for (const file of readdirSync(LABS_IMAGES)) {
    if (!file.startsWith('.')) symlinkSync(join(LABS_IMAGES, file), join(images, file));
  }
  const stateDir = join(root, 's');
  const server = extraServer(PORT, {
    E2E_HYPERVISOR: 'qemu',
    QEMU_IMAGES_DIR: images,
    QEMU_STATE_DIR: stateDir,
  });
  await server.start();

  try {
    // The author: the lab of two machines, and another of one.
    const author = await signedInPage(browser, server.baseURL, 'creator');
    const api = await apiOf(author);
    const lab = await api<{ id: string }>('POST', 'workspace', { name: 'Debian Lab' });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'alpha',
      guestinfo: guestinfo('alpha', ';flag=##flag##'),
    });
    await linkStockTemplate(api, lab.id, 'linux-server', {
      name: 'bravo',
      guestinfo: guestinfo('bravo'),
    });
    const challenge = flagChallenge('Two Debian machines are yours.', 'Log in on alpha.');
    await publishWorkspace(api, lab.id, 'Debian Lab', challenge);
    const other = await api<{ id: string }>('POST', 'workspace', { name: 'Other Lab' });
    await linkStockTemplate(api, other.id, 'linux-server', {
      name: 'charlie',
      guestinfo: guestinfo('charlie'),
    });
    await publishWorkspace(api, other.id, 'Other Lab', challenge);

    // The player launches the lab, and the author the other, at the same time.
    const player = await signedInPage(browser, server.baseURL, 'player');
    const [game, otherGame] = await Promise.all([launch(player, lab.id), launch(author, other.id)]);
    expect(game.vms.map((vm) => vm.name).sort()).toEqual(['alpha', 'bravo']);
    expect(otherGame.vms.map((vm) => vm.name)).toEqual(['charlie']);
    const vmOf = (vms: GameVm[], name: Host) => vms.find((vm) => vm.name === name)!;

    // Alpha's console: the author's user logs in, in text mode on the canvas as on the screen.
    const alpha = await openConsole(game.page, vmOf(game.vms, 'alpha'), stateDir);
    await logIn(alpha, 'alpha');
    await expect.poll(async () => (await canvasPixels(alpha.page)).lit).toBeGreaterThan(2_000);
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-logged-in.png') });

    // The flag file holds the flag the challenge generated for this gamespace (scored at the end:
    // a full score ends the game).
    // The file is the value alone, without a newline: `echo` ends its line.
    await run(alpha, 'alpha', 'cat /etc/topoplay/guestinfo/flag; echo');
    const flagRow = async () => (await alpha.rows()).find((row) => FLAG.test(row)) ?? '';
    await expect.poll(flagRow, { timeout: COMMAND_MS }).toMatch(FLAG);
    const flag = await flagRow();
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-flag.png') });

    // Bravo, by ssh on the lab network: its hostname, run there.
    await run(alpha, 'alpha', `ssh -o stricthostkeychecking=no ${ADDRESSES.bravo} hostname`);
    await expect
      .poll(alpha.screen, { timeout: COMMAND_MS })
      .toContain(`${USER}@${ADDRESSES.bravo}'s password:`);
    await alpha.page.keyboard.type(PASSWORD);
    await alpha.page.keyboard.press('Enter');
    await expect
      .poll(async () => (await alpha.rows()).map((row) => row.trim()), { timeout: COMMAND_MS })
      .toContain('bravo');
    await alpha.page.screenshot({ path: test.info().outputPath('alpha-ssh-bravo.png') });

    // Charlie, in the other gamespace, is out of reach.
    await run(alpha, 'alpha', `ping -c 2 -w 2 ${ADDRESSES.charlie}`);
    await expect.poll(alpha.screen, { timeout: COMMAND_MS }).toMatch(NO_REPLY);

    // On charlie's console: its address is the one asked for, and alpha is out of its reach.
    const charlie = await openConsole(otherGame.page, otherGame.vms[0]!, stateDir);
    await logIn(charlie, 'charlie');
    await run(charlie, 'charlie', 'ip -4 -br addr show dev eth0');
    await expect
      .poll(charlie.screen, { timeout: COMMAND_MS })
      .toMatch(new RegExp(`eth0 +UP +${ADDRESSES.charlie.replace(/\./g, '\\.')}/24`));
    await run(charlie, 'charlie', `ping -c 2 -w 2 ${ADDRESSES.alpha}`);
    await expect.poll(charlie.screen, { timeout: COMMAND_MS }).toMatch(NO_REPLY);
    await charlie.page.screenshot({ path: test.info().outputPath('charlie-ping.png') });

    // The flag scores all the points, which ends the player's game: its machines go.
    await scoreFlag(game.page, flag);
    await alpha.page.close();
    await expect.poll(game.machines, { timeout: 60_000 }).toEqual([]);
  } finally {
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
});
