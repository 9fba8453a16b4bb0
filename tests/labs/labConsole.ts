import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, type Page } from '@playwright/test';
import { screenText } from '../../server/hypervisor/qemu/qmp';
import { apiOf, extraServer, startGame } from '../e2e/support';
import { LABS_IMAGES } from './images';

// What the lab checks share: a server of their own with the qemu driver on the cached stock
// images, and a machine's console in the browser, typed into as a player does and read from the
// machine's VGA text screen through its monitor (the Debian images boot with `nomodeset`).

export const USER = 'alice';
// Lower-case letters and digits, as every command typed here: the console types key by key,
// without holding Shift (`W` would arrive as `w`).
export const PASSWORD = 'labpass42';
/** Guest settings that make the user, with the password, on a machine. */
export const CREDENTIALS = `cloud.user=${USER};cloud.password=${PASSWORD}`;

// Boots under software emulation, three machines at once on two cores.
export const BOOT_MS = 360_000;
export const COMMAND_MS = 60_000;

/** What `ping -c 2` prints when no reply came. */
export const NO_REPLY = /2 packets transmitted, 0 received[\s\S]*100% packet loss/;

/** A server of the test's own (port LABS_PORT, 6651) whose qemu driver has the cached images. */
export async function labServer() {
  const root = mkdtempSync(join(tmpdir(), 'tpl-'));
  const images = join(root, 'images');
  mkdirSync(images);
  for (const file of readdirSync(LABS_IMAGES)) {
    if (!file.startsWith('.')) symlinkSync(join(LABS_IMAGES, file), join(images, file));
  }
  const stateDir = join(root, 's');
  const server = extraServer(Number(process.env.LABS_PORT ?? 6651), {
    E2E_HYPERVISOR: 'qemu',
    QEMU_IMAGES_DIR: images,
    QEMU_STATE_DIR: stateDir,
  });
  await server.start();
  return {
    baseURL: server.baseURL,
    stateDir,
    async stop() {
      await server.stop();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

export interface GameVm {
  id: string;
  name: string;
}

/** The player starts the workspace's game; its machines, now and as the API answers later. */
export async function launch(page: Page, workspaceId: string) {
  await startGame(page, workspaceId);
  const gamespaceId = /\/mojo\/([0-9a-f]{32})/.exec(page.url())?.[1] ?? '';
  const api = await apiOf(page);
  const machines = async () =>
    (await api<{ vms: GameVm[] }>('GET', `gamespace/${gamespaceId}`)).vms;
  const vms = await machines();
  const vmOf = (name: string) => {
    const vm = vms.find((v) => v.name === name);
    expect(vm, `machine ${name}`).toBeDefined();
    return vm!;
  };
  return { page, vms, vmOf, machines };
}

/** The group of a machine's controls on the game page. */
export const controllerOf = (player: Page, name: string) =>
  player
    .getByRole('region', { name: 'Resources' })
    .getByRole('group', { name: `Machine ${name}`, exact: true });

/** A machine's console in the browser, and its screen read through its monitor. */
export interface Console {
  page: Page;
  /** The machine's hostname: its name. */
  host: string;
  screen(): Promise<string>;
  rows(): Promise<string[]>;
}

/** The machine's screen, read through its monitor, without a console open. */
export const screenOf = (stateDir: string, vm: GameVm) => async () =>
  (await screenText(join(stateDir, 'machines', vm.id, 'qmp.sock'))).join('\n');

/** Resolves when the machine shows its login prompt (its network and sshd are then up). */
export async function bootedToLogin(stateDir: string, vm: GameVm) {
  await expect
    .poll(screenOf(stateDir, vm), { timeout: BOOT_MS, intervals: [1_000] })
    .toContain(`${vm.name} login:`);
}

/** Opens the machine's console from the game page, as the player does, in a new tab. */
export async function openConsole(player: Page, vm: GameVm, stateDir: string): Promise<Console> {
  const controller = controllerOf(player, vm.name);
  await expect(controller.getByText('Running')).toBeVisible({ timeout: 60_000 });
  const [page] = await Promise.all([
    player.waitForEvent('popup'),
    controller.getByRole('button', { name: 'Console' }).click(),
  ]);
  const bar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(bar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  const qmp = join(stateDir, 'machines', vm.id, 'qmp.sock');
  const rows = async () => (await screenText(qmp)).map((row) => row.trimEnd());
  return { page, host: vm.name, rows, screen: async () => (await rows()).join('\n') };
}

/** Logs in at the console's login prompt as USER; resolves at the shell prompt. */
export async function logIn(console: Console) {
  await expect
    .poll(console.screen, { timeout: BOOT_MS, intervals: [1_000] })
    .toContain(`${console.host} login:`);
  await console.page.locator('.tp-console-screen canvas').click();
  await console.page.keyboard.type(USER);
  await console.page.keyboard.press('Enter');
  await expect.poll(console.screen, { timeout: COMMAND_MS }).toContain('Password:');
  await console.page.keyboard.type(PASSWORD);
  await console.page.keyboard.press('Enter');
  await expect
    .poll(console.screen, { timeout: COMMAND_MS })
    .toContain(`${USER}@${console.host}:~$`);
}

/**
 * Waits for the shell prompt (the command before has ended: what is typed while one runs may go
 * to it, as sudo's terminal swallows it), clears the screen and types `command` at the prompt,
 * which is then the first row.
 */
export async function run(console: Console, command: string) {
  const prompt = `${USER}@${console.host}:~$`;
  await expect
    .poll(
      async () =>
        (await console.rows())
          .filter((row) => row.trim() !== '')
          .at(-1)
          ?.trim(),
      {
        timeout: COMMAND_MS,
      },
    )
    .toBe(prompt);
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

/**
 * Runs `command` on `address` by ssh from the console's shell, as USER with PASSWORD, and
 * resolves once `expected` is a row of its output. An sshd that is not listening yet (the other
 * machine is still starting) refuses the connection, and one that does not answer is interrupted:
 * the command is run again.
 */
export async function sshRun(console: Console, address: string, command: string, expected: string) {
  await expect(async () => {
    await run(
      console,
      `ssh -o stricthostkeychecking=no -o connecttimeout=10 ${address} ${command}`,
    );
    try {
      await expect
        .poll(console.screen, { timeout: COMMAND_MS })
        .toMatch(/password:|Connection refused|No route to host|timed out/);
    } catch (error) {
      // An ssh that hangs (an sshd that cloud-init restarts while it answers) holds the shell:
      // end it, so that the next attempt finds the prompt.
      await console.page.keyboard.press('Control+c');
      throw error;
    }
    expect(await console.screen()).toContain(`${USER}@${address}'s password:`);
  }).toPass({ timeout: 3 * COMMAND_MS });
  await console.page.keyboard.type(PASSWORD);
  await console.page.keyboard.press('Enter');
  await expect
    .poll(async () => (await console.rows()).map((row) => row.trim()), { timeout: COMMAND_MS })
    .toContain(expected);
}

/**
 * Resolves once the machine's screen has shown `text`, read every 250 ms from now on: for what a
 * machine shows briefly (an installer that powers off when done). A monitor that does not answer
 * (the machine not started yet, or off) reads as nothing.
 */
export async function screenShowed(stateDir: string, vm: GameVm, text: string, timeout = BOOT_MS) {
  const screen = screenOf(stateDir, vm);
  await expect.poll(() => screen().catch(() => ''), { timeout, intervals: [250] }).toContain(text);
}
