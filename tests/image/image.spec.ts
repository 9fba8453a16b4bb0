import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Browser, type Page } from '@playwright/test';
import { apiOf, canvasPixels, signIn, startGame } from '../e2e/support';
import { compose, docker, ROOT } from './docker';

// The image as people run it (docs/deploy.md), on a real Docker engine: alone with its defaults,
// then as the compose stack. In both, the first-run accounts are read where the docs say, a
// creator publishes a lab and a player launches it and opens its machine's console in Chromium,
// and the server stops on SIGTERM within its grace period.

const IMAGE = process.env.TOPOPLAY_CHECK_IMAGE ?? 'topoplay:check';
/** Host ports (127.0.0.1): the image alone, and the compose stack's nginx. */
const ALONE_PORT = Number(process.env.CHECK_IMAGE_PORT ?? 6470);
const STACK_PORT = Number(process.env.CHECK_STACK_PORT ?? 6480);
/** SHUTDOWN_GRACE_MS's default (server/config.ts), which neither run changes. */
const GRACE_MS = 10_000;
const DATA = '/var/lib/topoplay';

type Accounts = Map<string, string>;

/** The first-run accounts from initial-credentials.txt: username to password. */
function parseCredentials(text: string): Accounts {
  const accounts = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [username, password, role] = line.trim().split(/\s+/);
    if (username && password && role && /^(administrator|creator|observer|user)$/.test(role))
      accounts.set(username, password);
  }
  return accounts;
}

const health = (container: string) =>
  docker(['inspect', '--format', '{{.State.Health.Status}}', container]);

/** Waits until the image's own HEALTHCHECK reports the container healthy. */
async function healthy(container: string) {
  await expect
    .poll(() => health(container), {
      message: `${container} becomes healthy`,
      timeout: 120_000,
      intervals: [1_000],
    })
    .toBe('healthy');
}

/**
 * Stops the container as `docker stop` and Compose do, with SIGTERM, allowing it far more than its
 * grace period before SIGKILL: how long it took and its exit code (137 had it been killed).
 */
function stop(container: string) {
  const began = Date.now();
  docker(['stop', '--time', String((3 * GRACE_MS) / 1000), container]);
  const ms = Date.now() - began;
  const exitCode = Number(docker(['inspect', '--format', '{{.State.ExitCode}}', container]));
  return { exitCode, ms };
}

/**
 * In Chromium on `baseURL`: the creator publishes a workspace with the stock linux-server for
 * everyone; the player starts its game and opens the machine's console, which shows its screen.
 */
async function playLab(browser: Browser, baseURL: string, accounts: Accounts) {
  const creatorContext = await browser.newContext({ baseURL });
  const creator = await creatorContext.newPage();
  await signIn(creator, 'creator', accounts.get('creator'));
  await creator.getByRole('button', { name: 'New Workspace' }).click();
  await creator.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(creator.url())?.[1] ?? '';
  const author = await apiOf(creator);
  const stock = await author<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  expect(parent, 'the stock linux-server template').toBeDefined();
  await author('POST', 'template', { templateId: parent?.id, workspaceId });
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', { ...workspace, name: 'Image check', audience: 'everyone' });
  await creatorContext.close();

  const playerContext = await browser.newContext({
    baseURL,
    viewport: { width: 1280, height: 1200 },
  });
  const player = await playerContext.newPage();
  await signIn(player, 'player', accounts.get('player'));
  await startGame(player, workspaceId);

  const resources = player.getByRole('region', { name: 'Resources' });
  const machine = resources.getByRole('group', { name: /^Machine linux-server/ });
  await expect(machine.getByText('Running')).toBeVisible({ timeout: 60_000 });
  const [consolePage] = await Promise.all([
    player.waitForEvent('popup'),
    machine.getByRole('button', { name: 'Console' }).click(),
  ]);
  const connected = async (page: Page) => {
    const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
    await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
    await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(5_000);
  };
  await connected(consolePage);

  // A second viewer of the same machine shares its screen: what the first types shows in both.
  // Behind nginx this holds only if both reach the replica that draws it (`hash $uri`).
  // Opened from the first, as a duplicated tab is: the sign-in lives in the tab's session storage.
  const [secondViewer] = await Promise.all([
    consolePage.waitForEvent('popup'),
    consolePage.evaluate((url) => void window.open(url, '_blank'), consolePage.url()),
  ]);
  await connected(secondViewer);
  const before = await canvasPixels(consolePage);
  await consolePage.locator('.tp-console-screen canvas').click();
  await consolePage.keyboard.type('hostname');
  await consolePage.keyboard.press('Enter');
  await expect.poll(async () => (await canvasPixels(consolePage)).digest).not.toBe(before.digest);
  // The echo may arrive in several updates: compare both screens at each poll, so that the
  // first one's later updates count too.
  await expect
    .poll(
      async () => {
        const [first, second] = await Promise.all([
          canvasPixels(consolePage),
          canvasPixels(secondViewer),
        ]);
        return first.digest === second.digest && first.digest !== before.digest;
      },
      { message: 'the second viewer shows the same screen', timeout: 30_000 },
    )
    .toBe(true);
  return { playerContext, workspaceId };
}

test('the image alone: SQLite and the sim driver by default; a player plays a lab; SIGTERM stops it in its grace period', async ({
  browser,
}) => {
  const container = `topoplay-check-${process.pid}`;
  const baseURL = `http://127.0.0.1:${ALONE_PORT}`;
  docker([
    'run',
    '--detach',
    '--name',
    container,
    '--publish',
    `127.0.0.1:${ALONE_PORT}:5080`,
    // The one setting a published port needs: the address the browser uses (the identity
    // provider's issuer). Everything else is the image's default.
    '--env',
    `TOPOPLAY_URL=${baseURL}`,
    IMAGE,
  ]);
  try {
    await healthy(container);
    const ready = (await (await fetch(`${baseURL}/api/health/ready`)).json()) as {
      checks: Record<string, string>;
    };
    expect(ready.checks).toEqual({ database: 'ok', migrations: 'ok', hypervisor: 'ok' });
    // The defaults: SQLite in the data folder, the sim driver, the commit it was built from.
    expect(docker(['exec', container, 'ls', DATA]).split('\n')).toContain('topoplay.db');
    expect(docker(['exec', container, 'printenv', 'COMMIT'])).toBe(
      process.env.TOPOPLAY_CHECK_COMMIT,
    );
    expect(docker(['logs', container])).toContain('Topoplay first-run accounts');

    const accounts = parseCredentials(
      docker(['exec', container, 'cat', `${DATA}/initial-credentials.txt`]),
    );
    const { playerContext } = await playLab(browser, baseURL, accounts);

    // Stopped while the player's page still holds its hub and console connections.
    const stopped = stop(container);
    await playerContext.close();
    console.log(`the image alone: exit code ${stopped.exitCode}, ${stopped.ms} ms after SIGTERM`);
    expect(stopped.exitCode).toBe(0);
    expect(stopped.ms).toBeLessThan(GRACE_MS);
    expect(docker(['logs', container])).toContain('SIGTERM: shutting down');
  } finally {
    docker(['rm', '--force', '--volumes', container]);
  }
});

test('the compose stack: two replicas with PostgreSQL and Redis behind nginx; a player plays a lab and its console through nginx; SIGTERM stops each replica in its grace period', async ({
  browser,
}) => {
  // Five containers, two of them the server: 2 minutes on a quiet machine, 5.4 on one at a load
  // average of 15 to 20, where the config's 5 minutes ran out after the replicas had stopped.
  test.setTimeout(600_000);
  const baseURL = `http://127.0.0.1:${STACK_PORT}`;
  const project = `topoplay-check-${process.pid}`;
  // A .env of the check's own (a user's .env beside compose.yaml is not read), as the example.
  const dir = mkdtempSync(join(tmpdir(), 'topoplay-check-'));
  const envFile = join(dir, 'env');
  writeFileSync(
    envFile,
    [
      `POSTGRES_PASSWORD=${randomBytes(24).toString('hex')}`,
      `TOPOPLAY_URL=${baseURL}`,
      `TOPOPLAY_HTTP_PORT=${STACK_PORT}`,
      `TOPOPLAY_IMAGE=${IMAGE}`,
      `COMMIT=${process.env.TOPOPLAY_CHECK_COMMIT ?? 'dev'}`,
      '',
    ].join('\n'),
  );
  const stack = (...args: string[]) =>
    compose([
      '--project-name',
      project,
      '--env-file',
      envFile,
      '--file',
      join(ROOT, 'compose.yaml'),
      ...args,
    ]);
  try {
    // The two replicas are compose.yaml's (deploy.replicas), which Compose 1.29 honours too.
    stack('up', '--detach', '--no-build');
    const replicas = stack('ps', '--quiet', 'topoplay').split('\n').filter(Boolean);
    expect(replicas).toHaveLength(2);
    for (const replica of replicas) await healthy(replica);

    // Through nginx, once it is up (it starts after the replicas are healthy).
    await expect
      .poll(
        () =>
          fetch(`${baseURL}/api/health/ready`).then(
            (r) => r.status,
            () => 0,
          ),
        {
          message: 'nginx answers for the replicas',
          timeout: 60_000,
          intervals: [500],
        },
      )
      .toBe(200);
    const ready = (await (await fetch(`${baseURL}/api/health/ready`)).json()) as {
      checks: Record<string, string>;
    };
    expect(ready.checks).toEqual({
      database: 'ok',
      migrations: 'ok',
      redis: 'ok',
      hypervisor: 'ok',
    });
    // The replicas keep their data in PostgreSQL.
    const tables = stack(
      'exec',
      '-T',
      'postgres',
      'psql',
      '-U',
      'topoplay',
      '-d',
      'topoplay',
      '-Atc',
      "SELECT count(*) FROM information_schema.tables WHERE table_schema = 'public'",
    );
    expect(Number(tables)).toBeGreaterThan(0);

    // One replica seeded the accounts, on the data volume both share.
    const accounts = parseCredentials(
      docker(['exec', replicas[1] ?? '', 'cat', `${DATA}/initial-credentials.txt`]),
    );
    const { playerContext } = await playLab(browser, baseURL, accounts);

    for (const replica of replicas) {
      const stopped = stop(replica);
      console.log(`a replica: exit code ${stopped.exitCode}, ${stopped.ms} ms after SIGTERM`);
      expect(stopped.exitCode).toBe(0);
      expect(stopped.ms).toBeLessThan(GRACE_MS);
    }
    await playerContext.close();
  } catch (error) {
    // What the services said, for a failure that happened inside them (compose deletes them).
    try {
      console.log(stack('logs', '--no-color', '--tail', '60'));
      for (const replica of stack('ps', '--quiet', 'topoplay').split('\n').filter(Boolean))
        console.log(docker(['inspect', '--format', '{{json .State.Health}}', replica]));
    } catch (logsError) {
      console.log(`compose logs: ${String(logsError)}`);
    }
    throw error;
  } finally {
    stack('down', '--volumes', '--remove-orphans');
    rmSync(dir, { recursive: true, force: true });
  }
});
