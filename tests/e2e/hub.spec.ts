import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Page } from '@playwright/test';
import { E2E_PASSWORD, E2E_PORT } from '../../playwright.config';
import { signIn } from './support';

const present = (page: Page) => page.getByRole('list', { name: 'Present' });
const banner = (page: Page) =>
  page.getByRole('alert').filter({ hasText: 'Attempting re-connection...' });

/**
 * What a page's hub connection says and hears about presence: the actions it receives and the
 * hub methods it invokes, from the moment it is called (before the page connects).
 */
function hubPresence(page: Page) {
  const received: string[] = [];
  const invoked: string[] = [];
  page.on('websocket', (socket) => {
    if (!new URL(socket.url()).pathname.endsWith('/hub')) return;
    socket.on('framereceived', ({ payload }) => {
      for (const [, action] of String(payload).matchAll(/"action":"(PRESENCE\.[A-Z]+)"/g)) {
        received.push(action!);
      }
    });
    socket.on('framesent', ({ payload }) => {
      for (const [, target] of String(payload).matchAll(/"target":"(\w+)"/g)) invoked.push(target!);
    });
  });
  return { received, invoked };
}

/** Creates a workspace with New Workspace and returns its settings URL. */
async function newWorkspace(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  await expect(page.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();
  // The settings tab loads its code on demand, after the heading shows: a test that stops the
  // server next must not cut that load short.
  await expect(page.getByRole('form', { name: 'Workspace settings' })).toBeVisible();
  return page.url();
}

test('two users on one workspace see each other come and go in the presence bar', async ({
  browser,
}) => {
  const creatorContext = await browser.newContext();
  const adminContext = await browser.newContext();
  try {
    const creator = await creatorContext.newPage();
    const creatorHub = hubPresence(creator);
    await signIn(creator, 'creator');
    const url = await newWorkspace(creator);

    // Administrators may listen on any channel.
    const admin = await adminContext.newPage();
    const adminHub = hubPresence(admin);
    await signIn(admin, 'admin');
    await admin.goto(url);
    await expect(admin.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();

    const adminOnCreatorPage = present(creator).getByRole('listitem', {
      name: 'Administrator, connected',
    });
    await expect(adminOnCreatorPage).toBeVisible();
    await expect(adminOnCreatorPage).toHaveAttribute('data-online', 'true');
    const creatorOnAdminPage = present(admin).getByRole('listitem', { name: 'Creator, connected' });
    await expect(creatorOnAdminPage).toBeVisible();
    await expect(creatorOnAdminPage).toHaveAttribute('data-online', 'true');

    await admin.close();
    const departed = present(creator).getByRole('listitem', {
      name: 'Administrator, disconnected',
    });
    await expect(departed).toBeVisible();
    await expect(departed).toHaveAttribute('data-online', 'false');
    await expect(banner(creator)).toHaveCount(0);

    // Against our server the SPA asks for presence in the batched form: the newcomer is told who
    // is here, the others of the arrival and the departure, and nobody greets.
    expect(adminHub.received).toContain('PRESENCE.PRESENT');
    expect(creatorHub.received).toContain('PRESENCE.CHANGED');
    for (const hub of [creatorHub, adminHub]) {
      expect(hub.received).not.toContain('PRESENCE.ARRIVED');
      expect(hub.invoked).toContain('Listen');
      expect(hub.invoked).not.toContain('Greet');
    }
  } finally {
    await creatorContext.close();
    await adminContext.close();
  }
});

/**
 * A server of this test's own, on the next port, whose data folder outlives it: the same server
 * can be stopped and started again with its users, keys and sessions intact.
 */
function ownServer() {
  const port = E2E_PORT + 1;
  const baseURL = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'topoplay-e2e-hub-'));
  let server: ChildProcess | null = null;

  const ready = () =>
    expect
      .poll(
        () =>
          fetch(`${baseURL}/assets/settings.json`).then(
            (response) => response.ok,
            // Not listening yet.
            () => false,
          ),
        { message: `the hub test server starts on ${baseURL}`, timeout: 60_000, intervals: [250] },
      )
      .toBe(true);

  return {
    baseURL,
    async start() {
      server = spawn('node', ['scripts/e2e-server.mjs'], {
        stdio: 'inherit',
        env: {
          ...process.env,
          E2E_PORT: String(port),
          E2E_PASSWORD,
          E2E_DATA_DIR: dataDir,
        },
      });
      await ready();
    },
    async stop() {
      const running = server;
      server = null;
      if (running === null || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
    remove: () => rmSync(dataDir, { recursive: true, force: true }),
  };
}

test('stopping the server shows the reconnection banner; restarting it clears it and rejoins', async ({
  browser,
}) => {
  // Two server start-ups, and a reconnect schedule of 1, 2, 3, 5, 5... seconds.
  test.setTimeout(180_000);
  const server = ownServer();
  const context = await browser.newContext({ baseURL: server.baseURL });
  const adminContext = await browser.newContext({ baseURL: server.baseURL });
  try {
    await server.start();
    const page = await context.newPage();
    await signIn(page, 'creator');
    const url = await newWorkspace(page);
    await expect(banner(page)).toHaveCount(0);

    await server.stop();
    await expect(banner(page)).toBeVisible({ timeout: 10_000 });

    await server.start();
    await expect(banner(page)).toHaveCount(0, { timeout: 30_000 });
    await expect(page.getByRole('heading', { name: 'Workspace Title' })).toBeVisible();

    // The new connection listens on the workspace again: a newcomer is seen arriving.
    const admin = await adminContext.newPage();
    await signIn(admin, 'admin');
    await admin.goto(url);
    await expect(
      present(page).getByRole('listitem', { name: 'Administrator, connected' }),
    ).toBeVisible();
  } finally {
    await context.close();
    await adminContext.close();
    await server.stop();
    server.remove();
  }
});
