import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import {
  apiOf,
  canvasPixels,
  endGame,
  extraServer,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  signedInPage,
  signIn,
  startGame,
} from './support';

// A machine's console page end to end: the sim machine's VNC console through noVNC, its NIC
// switch, typing into it, an unknown console's error page, the page noticing when the machine
// is stopped, and the console coming back by itself after its server restarts.

interface Vm {
  id: string;
  name: string;
  status: string;
  state: string;
}

/**
 * How many pixels of the console's main area, outside the notice's text and buttons, differ from
 * its background: a screenshot decoded in the page, so that what is counted is what a person sees.
 */
async function strayPixels(page: Page): Promise<number> {
  const area = page.locator('.tp-console-main');
  const box = await area.boundingBox();
  const content = await page
    .locator('.tp-console-notice > *')
    .evaluateAll((nodes) => nodes.map((n) => n.getBoundingClientRect().toJSON() as DOMRect));
  const png = (await area.screenshot()).toString('base64');
  return page.evaluate(
    async ({ png, box, content }) => {
      const image = new Image();
      image.src = `data:image/png;base64,${png}`;
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = image.width;
      canvas.height = image.height;
      const context = canvas.getContext('2d');
      if (!context || !box) return -1;
      context.drawImage(image, 0, 0);
      const data = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const scale = image.width / box.width;
      const inContent = (x: number, y: number) =>
        content.some(
          (r) =>
            x >= (r.left - box.x - 4) * scale &&
            x <= (r.right - box.x + 4) * scale &&
            y >= (r.top - box.y - 4) * scale &&
            y <= (r.bottom - box.y + 4) * scale,
        );
      let stray = 0;
      for (let y = 0; y < canvas.height; y++) {
        for (let x = 0; x < canvas.width; x++) {
          if (inContent(x, y)) continue;
          const i = (y * canvas.width + x) * 4;
          if (data[i] !== data[0] || data[i + 1] !== data[1] || data[i + 2] !== data[2]) stray++;
        }
      }
      return stray;
    },
    { png, box, content },
  );
}

/**
 * Signed in as the creator: a new workspace with the stock linux-server linked (its machine uses
 * the stock disks), deployed and started; the running machine and the workspace.
 */
async function runningMachine(page: Page): Promise<{ machine: Vm; workspaceId: string }> {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const api = await apiOf(page);
  const stock = await api<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  expect(parent).toBeDefined();
  const template = await api<{ id: string; name: string }>('POST', 'template', {
    templateId: parent?.id,
    workspaceId,
  });
  await api('POST', `vm-template/${template.id}`, {});
  let vm: Vm | null = null;
  await expect
    .poll(
      async () => {
        vm = await api<Vm>('GET', `vm-template/${template.id}`);
        if (vm.status === 'deployed' && vm.state === 'off' && !('task' in vm && vm.task))
          await api('PUT', 'vm', { id: vm.id, type: 'start' });
        return `${vm.status}/${vm.state}`;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe('deployed/running');
  return { machine: vm as unknown as Vm, workspaceId };
}

test('an author opens a running machine’s console, types into it, and sees it stop', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { machine, workspaceId } = await runningMachine(page);
  const api = await apiOf(page);
  const name = machine.name.split('#')[0] ?? '';

  // The console page, outside the shell: the toolbar names the machine and says it is connected.
  await page.goto(`/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`);
  await expect(page).toHaveTitle(`${name} — Topoplay`);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('heading', { name })).toBeVisible();
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  const canvas = page.locator('.tp-console-screen canvas');
  await expect(canvas).toBeVisible();
  await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(5_000);

  // One NIC switch per NIC of the machine (linux-server has one), on the network it is on.
  const nic = toolbar.getByRole('combobox', { name: 'NIC 1' });
  await expect(nic).toHaveValue(`lan#${workspaceId}`);
  await expect(toolbar.getByRole('combobox', { name: 'NIC 2' })).toHaveCount(0);
  // The network reads by its name, without the lab's isolation tag.
  await expect(nic.locator('option:checked')).toHaveText('lan');
  // On a laptop's screen the toolbar is one row, its buttons named.
  await page.setViewportSize({ width: 1100, height: 800 });
  const reconnect = toolbar.getByRole('button', { name: 'Reconnect' });
  await expect(reconnect).toHaveText('Reconnect');
  const bar = (await toolbar.boundingBox())!;
  expect(bar.height).toBeLessThan(2 * (await reconnect.boundingBox())!.height);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(1100);
  // Moving it shows where it went, as the server has it.
  await nic.selectOption('bridge-net');
  await expect(nic).toBeEnabled();
  await expect(nic).toHaveValue('bridge-net');
  expect((await api<{ nics: unknown }>('GET', `vm/${machine.id}`)).nics).toEqual([
    { index: 0, network: 'bridge-net' },
  ]);

  // Typing reaches the machine: its screen changes and keeps the new text.
  const before = await canvasPixels(page);
  await canvas.click();
  await page.keyboard.type('hostname');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await canvasPixels(page)).digest).not.toBe(before.digest);
  await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(before.lit);
  await page.screenshot({ path: test.info().outputPath('console-connected.png') });

  // Paste goes in as typed keys as well.
  const typed = await canvasPixels(page);
  await toolbar.getByLabel('Text to paste').fill('echo pasted');
  await toolbar.getByRole('button', { name: 'Paste', exact: true }).click();
  await expect.poll(async () => (await canvasPixels(page)).digest).not.toBe(typed.digest);

  // With the box empty, Paste types what the browser's clipboard holds, read in the click.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.evaluate(() => navigator.clipboard.writeText('echo clipboard'));
  const boxPasted = await canvasPixels(page);
  await expect(toolbar.getByLabel('Text to paste')).toHaveValue('');
  await toolbar.getByRole('button', { name: 'Paste', exact: true }).click();
  await expect.poll(async () => (await canvasPixels(page)).digest).not.toBe(boxPasted.digest);

  // The layout of the machine's keyboard is the user's choice, kept for the next console page.
  const layout = page.getByRole('combobox', { name: 'Keyboard layout of the machine' });
  await expect(layout).toHaveValue('us');
  await layout.selectOption('de');

  // Another console that does not exist, opened in the same page: its error alone, on a plain
  // background, with nothing of the previous screen left under it.
  const unknown = '0123456789abcdef0123456789abcdef';
  await page.evaluate((path) => {
    history.pushState(null, '', path);
    dispatchEvent(new PopStateEvent('popstate'));
  }, `/console/${unknown}/nothing?f=0`);
  await expect(page.getByRole('alert')).toHaveText(/You are not allowed to do this\./);
  await expect(toolbar.getByRole('status')).toHaveText('failed');
  await expect(page.locator('.tp-console-screen')).toBeHidden();
  expect(await strayPixels(page)).toBe(0);
  await page.screenshot({ path: test.info().outputPath('console-unknown.png') });
  await page.goBack();
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(layout).toHaveValue('de');

  // Stopping the machine ends the console: the page says so and offers Retry.
  await api('PUT', 'vm', { id: machine.id, type: 'stop' });
  await expect(page.getByText('The machine is not running.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
  await expect(toolbar.getByRole('status')).toHaveText('not running');
  await page.screenshot({ path: test.info().outputPath('console-stopped.png') });
});

test('a console over the viewer’s cap says why, and opens once the other one closes', async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const server = extraServer(E2E_PORT + 4, { CONSOLE_MAX_PER_USER: '1' });
  await server.start();
  try {
    const first = await browser.newPage({ baseURL: server.baseURL });
    const { machine, workspaceId } = await runningMachine(first);
    const name = machine.name.split('#')[0] ?? '';
    const path = `/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`;
    await first.goto(path);
    const status = (page: Page) =>
      page.getByRole('banner', { name: 'Console toolbar' }).getByRole('status');
    await expect(status(first)).toHaveText('connected', { timeout: 20_000 });

    // The same person in another browser: one console at a time is all this server allows.
    const second = await signedInPage(browser, server.baseURL, 'creator');
    await second.goto(path);
    await expect(second.getByRole('alert')).toContainText(
      'You have 1 console open, the most allowed. Close one to open another.',
      { timeout: 20_000 },
    );
    await second.screenshot({ path: test.info().outputPath('console-over-cap.png') });

    await first.close();
    await second.getByRole('button', { name: 'Retry' }).click();
    await expect(status(second)).toHaveText('connected', { timeout: 20_000 });
  } finally {
    await server.stop();
  }
});

/** The console page's requests for a ticket (GET /api/vm-console/{id}), as they are sent. */
function ticketRequests(page: Page): string[] {
  const sent: string[] = [];
  page.on('request', (request) => {
    if (new URL(request.url()).pathname.startsWith('/api/vm-console/')) sent.push(request.url());
  });
  return sent;
}

test('a console dropped by its server restarting comes back by itself, with a new ticket', async ({
  browser,
}) => {
  // Two server start-ups and a machine to deploy.
  test.setTimeout(180_000);
  // The same data folder across the restart, as a server that restarts keeps its database.
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-e2e-console-'));
  const server = extraServer(E2E_PORT + 6, { E2E_DATA_DIR: dataDir });
  await server.start();
  try {
    const page = await browser.newPage({ baseURL: server.baseURL });
    const { machine, workspaceId } = await runningMachine(page);
    const name = machine.name.split('#')[0] ?? '';
    // The console's WebSockets, each opened with the ticket it was handed.
    const sockets: string[] = [];
    page.on('websocket', (socket) => {
      const url = new URL(socket.url());
      if (url.pathname.startsWith('/api/console/vnc/'))
        sockets.push(url.searchParams.get('ticket') ?? '');
    });
    await page.goto(`/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`);
    const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
    const status = toolbar.getByRole('status');
    await expect(status).toHaveText('connected', { timeout: 20_000 });
    expect(sockets).toHaveLength(1);

    // The server goes away, and with it the console's WebSocket: the page says it is
    // reconnecting, which attempt it is on, and when the next one starts.
    await server.stop();
    await expect(status).toHaveText(/^reconnecting \(attempt \d+\)$/, { timeout: 20_000 });
    await expect(page.getByText('The console was disconnected.')).toBeVisible();
    await expect(page.getByText(/^Reconnecting in \d+ s…$/)).toBeVisible();
    await expect(toolbar.getByRole('button', { name: 'Reconnect' })).toBeEnabled();
    await page.screenshot({ path: test.info().outputPath('console-reconnecting.png') });

    // Back again: the console connects with a fresh ticket, nobody having clicked anything.
    await server.start();
    await expect(status).toHaveText('connected', { timeout: 45_000 });
    await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(5_000);
    expect(sockets.length).toBeGreaterThan(1);
    expect(new Set(sockets).size).toBe(sockets.length);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('a machine stopped from the game page shows as not running, and no ticket is asked for again', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(150_000);
  const author = await signedInPage(browser, baseURL ?? '', 'creator');
  await author.getByRole('button', { name: 'New Workspace' }).click();
  await author.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(author.url())?.[1] ?? '';
  const authorApi = await apiOf(author);
  await linkStockTemplate(authorApi, workspaceId, 'linux-server', {
    name: 'gate',
    guestinfo: '',
  });
  await publishWorkspace(
    authorApi,
    workspaceId,
    'Stop Lab',
    flagChallenge('Find the flag.', 'One flag.'),
  );

  // The player's game, and the machine's console opened from its page.
  const player = await signedInPage(browser, baseURL ?? '', 'player');
  await startGame(player, workspaceId);
  const controller = player
    .getByRole('region', { name: 'Resources' })
    .getByRole('group', { name: 'Machine gate', exact: true });
  await expect(controller.getByText('Running')).toBeVisible({ timeout: 30_000 });
  const [consolePage] = await Promise.all([
    player.waitForEvent('popup'),
    controller.getByRole('button', { name: 'Console' }).click(),
  ]);
  const tickets = ticketRequests(consolePage);
  const status = consolePage.getByRole('banner', { name: 'Console toolbar' }).getByRole('status');
  await expect(status).toHaveText('connected', { timeout: 20_000 });
  // The page's timers from here on run when the test says, so that minutes pass at once.
  await consolePage.clock.install();

  // Stopped from the game page: the console says so and offers Retry, not a countdown.
  await controller.getByRole('button', { name: 'Stop' }).click();
  await expect(status).toHaveText('not running', { timeout: 20_000 });
  await expect(consolePage.getByText('The machine is not running.')).toBeVisible();
  await expect(consolePage.getByText(/^Reconnecting in/)).toHaveCount(0);
  const asked = tickets.length;

  // Five minutes later it still waits: no ticket was asked for. Retry then asks for exactly one,
  // after any a timer would have sent.
  await consolePage.clock.runFor(5 * 60_000);
  await expect(status).toHaveText('not running');
  const retry = consolePage.getByRole('button', { name: 'Retry' });
  await retry.click();
  await expect.poll(() => tickets.length).toBeGreaterThan(asked);
  await expect(status).toHaveText('not running');
  expect(tickets).toHaveLength(asked + 1);

  await consolePage.close();
  await endGame(player);
});

test('copy out: what the machine’s topoplay-copy was given reaches the browser’s clipboard', async ({
  page,
}) => {
  test.setTimeout(120_000);
  const { machine, workspaceId } = await runningMachine(page);
  const name = machine.name.split('#')[0] ?? '';
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.goto(`/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  // The console says which directions work: the sim's machine copies out, as one with the agent.
  await expect(page.getByLabel('Clipboard')).toContainText(
    'Copy and paste both ways: Paste types your clipboard into the machine; to copy out, give ' +
      'the text to topoplay-copy in the machine (some-command | topoplay-copy), then press Copy.',
  );

  await page.evaluate(() => navigator.clipboard.writeText('before'));
  const copy = page.getByRole('group', { name: 'Clipboard' }).getByRole('button', { name: 'Copy' });
  await copy.click();
  await expect(page.getByLabel('Clipboard')).toContainText(
    'Nothing was copied in the machine yet: give it text with topoplay-copy first.',
  );

  await page.locator('.tp-console-screen canvas').click();
  await page.keyboard.type('topoplay-copy "Flag: 42 & done"');
  await page.keyboard.press('Enter');
  await copy.click();
  await expect(page.getByLabel('Clipboard')).toContainText(
    'Copied 15 characters to your clipboard.',
  );
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe('Flag: 42 & done');
});
