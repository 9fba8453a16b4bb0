import { spawn, type ChildProcess } from 'node:child_process';
import { expect, type Browser, type Page } from '@playwright/test';
import { E2E_PASSWORD } from '../../playwright.config';

/** Signs in through the embedded identity provider from the login page, as a person does. */
export async function signIn(page: Page, username: string, password = E2E_PASSWORD) {
  if (!new URL(page.url()).pathname.startsWith('/login')) await page.goto('/login');
  await page.getByRole('button', { name: /^Login with / }).click();
  await page.waitForURL(/\/identity\//);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !/^\/(identity|oidc|login)/.test(url.pathname));
  await expect(page.getByRole('button', { name: 'Logout' })).toBeVisible();
}

export function topBar(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}

/** The signed-in user's access token, as oidc-client-ts keeps it in web storage. */
export async function accessToken(page: Page): Promise<string> {
  return page.evaluate(() => {
    for (const store of [sessionStorage, localStorage]) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i) ?? '';
        if (key.startsWith('oidc.user:')) {
          return (
            (JSON.parse(store.getItem(key) ?? '{}') as { access_token?: string }).access_token ?? ''
          );
        }
      }
    }
    return '';
  });
}

/** Calls the API as the page's signed-in user; a call that fails fails the test. */
export async function apiOf(page: Page) {
  const token = await accessToken(page);
  expect(token).not.toBe('');
  const headers = { Authorization: `Bearer ${token}` };
  return async <T>(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    data?: unknown,
  ): Promise<T> => {
    const response = await page.request.fetch(`/api/${path}`, { method, headers, data });
    expect(response.ok(), `${method} ${path}: ${response.status()}`).toBe(true);
    const text = await response.text();
    return (text ? JSON.parse(text) : null) as T;
  };
}

/**
 * One more server of the test's own (scripts/e2e-server.mjs on `port`, a fresh data folder and an
 * empty database), for tests that need two servers at once. Stop it at the end of the test.
 */
export function extraServer(port: number, env: Record<string, string> = {}) {
  const baseURL = `http://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;
  return {
    baseURL,
    async start() {
      server = spawn('node', ['scripts/e2e-server.mjs'], {
        stdio: 'inherit',
        env: { ...process.env, E2E_PORT: String(port), E2E_PASSWORD, E2E_DATA_DIR: '', ...env },
      });
      await expect
        .poll(
          () =>
            fetch(`${baseURL}/assets/settings.json`).then(
              (response) => response.ok,
              // Not listening yet.
              () => false,
            ),
          { message: `the extra server starts on ${baseURL}`, timeout: 60_000, intervals: [250] },
        )
        .toBe(true);
    },
    async stop() {
      const running = server;
      server = null;
      if (running === null || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGTERM');
      await exited;
    },
  };
}

/** How many pixels of the noVNC canvas are not black, and a digest of all of them. */
export function canvasPixels(page: Page) {
  return page.evaluate(() => {
    const canvas = document.querySelector('.tp-console-screen canvas') as HTMLCanvasElement | null;
    if (!canvas || canvas.width === 0) return { lit: 0, digest: 0 };
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    let lit = 0;
    let digest = 0;
    for (let i = 0; data && i < data.length; i += 4) {
      if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 60) lit++;
      digest =
        (digest * 31 + (data[i] ?? 0) + (data[i + 1] ?? 0) * 7 + (data[i + 2] ?? 0) * 13) | 0;
    }
    return { lit, digest };
  });
}

/** A challenge of one question whose answer is the flag generated for each gamespace. */
export function flagChallenge(variantText: string, sectionText: string) {
  return {
    text: 'Find the flag on your machine.',
    transforms: [{ key: 'flag', value: 'hex:10' }],
    variants: [
      {
        text: variantText,
        sections: [
          {
            name: 'Flags',
            text: sectionText,
            preReqPrevSection: 0,
            preReqTotal: 0,
            questions: [
              { text: 'What is the flag?', answer: '##flag##', weight: 100, grader: 'match' },
            ],
          },
        ],
      },
    ],
  };
}

type Api = Awaited<ReturnType<typeof apiOf>>;

/**
 * Publishes the workspace for everyone as `name`, with the flag challenge, and gives its template
 * `template` the name `box`, `replicas` machines and the flag in its guest settings.
 */
export async function publishFlagLab(
  author: Api,
  workspaceId: string,
  template: Record<string, unknown>,
  lab: { name: string; replicas: number; challenge: ReturnType<typeof flagChallenge> },
) {
  await author('PUT', 'template', {
    id: template.id,
    name: 'box',
    description: template.description,
    networks: template.networks,
    iso: template.iso,
    isHidden: template.isHidden,
    variant: template.variant,
    replicas: lab.replicas,
    guestinfo: 'flag=##flag##',
  });
  await author('PUT', `challenge/${workspaceId}`, lab.challenge);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: lab.name,
    audience: 'everyone',
    durationMinutes: 60,
  });
}

/**
 * The player starts the workspace's game from its play page and waits until it runs. Resolves
 * with the time of the click that started it (Confirm), which is where a launch's wait begins.
 */
export async function startGame(player: Page, workspaceId: string): Promise<number> {
  await player.goto(`/mojo/${workspaceId}`);
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  await actions.getByRole('button', { name: 'Start' }).click();
  const confirm = player
    .getByRole('group', { name: 'Start the game?' })
    .getByRole('button', { name: 'Confirm' });
  await confirm.waitFor();
  const confirmedAt = Date.now();
  await confirm.click();
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 60_000 });
  return confirmedAt;
}

/**
 * The player ends the game open on its page and waits for Game Over. A spec ends what it starts:
 * the specs share one server, where a player may run two gamespaces at a time.
 */
export async function endGame(player: Page) {
  const actions = player.getByRole('toolbar', { name: 'Game actions' });
  await actions.getByRole('button', { name: 'End' }).click();
  await player
    .getByRole('group', { name: 'End the game?' })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(player.getByRole('heading', { name: 'Game Over' })).toBeVisible({ timeout: 15_000 });
}

/** The player answers the flag question with `flag`; it scores all the points. */
export async function scoreFlag(player: Page, flag: string) {
  const section = player
    .getByRole('region', { name: 'Challenge' })
    .getByRole('region', { name: 'Flags' });
  await section.getByLabel('Answer 1.1').fill(flag);
  await section.getByRole('button', { name: 'Submit' }).click();
  await player
    .getByRole('group', { name: 'Submit Flags?' })
    .getByRole('button', { name: 'Confirm' })
    .click();
  await expect(section.getByText('✓ correct')).toBeVisible();
  await expect(player.getByRole('status', { name: 'Score' })).toHaveText('Score 100 / 100');
}

/** A tall page of its own on `baseURL` (another server's), signed in as `username`. */
export async function signedInPage(browser: Browser, baseURL: string, username: string) {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 1200 } });
  const page = await context.newPage();
  await signIn(page, username);
  return page;
}

/**
 * Links the stock template `stock` into the workspace and, when `machine` is given, names it
 * `name`, with `guestinfo` (and `networks` instead of the stock ones, when given).
 */
export async function linkStockTemplate(
  author: Api,
  workspaceId: string,
  stock: string,
  machine?: { name: string; guestinfo: string; networks?: string },
): Promise<Record<string, unknown>> {
  const found = await author<Array<{ id: string; name: string }>>(
    'GET',
    `templates?term=${encodeURIComponent(stock)}`,
  );
  const template = found.find((t) => t.name === stock);
  expect(template, `the stock template ${stock}`).toBeDefined();
  const linked = await author<Record<string, unknown>>('POST', 'template', {
    templateId: template?.id,
    workspaceId,
  });
  if (!machine) return linked;
  await author('PUT', 'template', {
    id: linked.id,
    name: machine.name,
    description: linked.description,
    networks: machine.networks ?? linked.networks,
    iso: linked.iso,
    isHidden: linked.isHidden,
    variant: linked.variant,
    replicas: 1,
    guestinfo: machine.guestinfo,
  });
  return linked;
}

/** Publishes the workspace for everyone as `name`, with `challenge`, for an hour's games. */
export async function publishWorkspace(
  author: Api,
  workspaceId: string,
  name: string,
  challenge: ReturnType<typeof flagChallenge>,
) {
  await author('PUT', `challenge/${workspaceId}`, challenge);
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name,
    audience: 'everyone',
    durationMinutes: 60,
  });
}
