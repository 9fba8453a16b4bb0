import { expect, test } from '@playwright/test';
import {
  accessToken,
  apiOf,
  canvasPixels,
  endGame,
  flagChallenge,
  linkStockTemplate,
  publishWorkspace,
  signedInPage,
  startGame,
} from './support';

// Console recording end to end against the server's own routes: the author turns "Record
// consoles" on in the workspace's settings form; the player's console says it is recorded; the
// observer finds the session in the gamespace browser and replays it; a player may not.

interface Recording {
  id: string;
  machineName: string;
  endedAt: string | null;
  bytes: number;
}

test('an author turns recording on, the player is told, and an observer replays the session', async ({
  browser,
  baseURL,
}) => {
  test.setTimeout(180_000);
  const base = baseURL ?? '';

  // The author's lab, published, then recording turned on in the form.
  const author = await signedInPage(browser, base, 'creator');
  await author.getByRole('button', { name: 'New Workspace' }).click();
  await author.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(author.url())?.[1] ?? '';
  const authorApi = await apiOf(author);
  await linkStockTemplate(authorApi, workspaceId, 'linux-server', { name: 'rec', guestinfo: '' });
  await publishWorkspace(
    authorApi,
    workspaceId,
    `Recorded Lab ${Date.now()}`,
    flagChallenge('Find the flag.', 'One flag.'),
  );
  await author.reload();
  const form = author.getByRole('form', { name: 'Workspace settings' });
  const record = form.getByRole('combobox', { name: 'Record consoles' });
  await expect(record).toHaveValue('default');
  await expect(record).toHaveAccessibleDescription(
    'Players are told their console is recorded; observers of the audience and administrators may replay it.',
  );
  await record.selectOption({ label: 'On' });
  await expect(form.getByRole('status')).toHaveText('Saved');
  expect(
    (await authorApi<{ recordConsoles: unknown }>('GET', `workspace/${workspaceId}`))
      .recordConsoles,
  ).toBe(true);
  await author.reload();
  await expect(record).toHaveValue('on');

  // The player's console says it is recorded; what they type is on its screen.
  const player = await signedInPage(browser, base, 'player');
  await startGame(player, workspaceId);
  // The play page is at the workspace's address; the game's own id is the gamespace's.
  const playedAt = /\/mojo\/([0-9a-f]{32})/.exec(player.url())?.[1] ?? '';
  const playerApi = await apiOf(player);
  const gamespaceId = (await playerApi<{ id: string }>('GET', `gamespace/${playedAt}`)).id;
  expect(gamespaceId).toMatch(/^[0-9a-f]{32}$/);
  const controller = player
    .getByRole('region', { name: 'Resources' })
    .getByRole('group', { name: 'Machine rec', exact: true });
  await expect(controller.getByText('Running')).toBeVisible({ timeout: 30_000 });
  const [consolePage] = await Promise.all([
    player.waitForEvent('popup'),
    controller.getByRole('button', { name: 'Console' }).click(),
  ]);
  const toolbar = consolePage.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(consolePage.getByText('This console is recorded')).toBeInViewport();
  await expect.poll(async () => (await canvasPixels(consolePage)).lit).toBeGreaterThan(2_000);
  const before = await canvasPixels(consolePage);
  await consolePage.locator('.tp-console-screen canvas').click();
  await consolePage.keyboard.type('echo recorded');
  await consolePage.keyboard.press('Enter');
  await expect.poll(async () => (await canvasPixels(consolePage)).digest).not.toBe(before.digest);
  await consolePage.close();

  // The observer: the session's recording is finished once the console has gone.
  const observer = await signedInPage(browser, base, 'observer');
  const observerApi = await apiOf(observer);
  await expect
    .poll(
      async () => {
        const list = await observerApi<Recording[]>('GET', `gamespace/${gamespaceId}/recordings`);
        return list.map((r) => `${r.machineName} ${r.endedAt === null ? 'open' : 'ended'}`);
      },
      { timeout: 30_000, intervals: [500] },
    )
    .toEqual(['rec ended']);

  // In the gamespace browser: the Recordings tab lists it, and Replay plays it on a canvas.
  await observer.goto('/observe');
  await observer.getByRole('searchbox', { name: 'term' }).fill(gamespaceId.slice(0, 8));
  const row = observer.getByRole('list', { name: 'Gamespace list' }).getByRole('listitem').first();
  await row.getByRole('button', { name: 'View' }).click();
  await row.getByRole('tab', { name: 'Recordings' }).click();
  const table = row.getByRole('table', { name: 'Console recordings' });
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText('rec');
  // Its Replay link sits inside its row, started at a local time as the Events tab shows them.
  const rowBox = (await table.getByRole('row').nth(1).boundingBox())!;
  const linkBox = (await table.getByRole('link', { name: /^Replay rec, / }).boundingBox())!;
  expect(linkBox.y).toBeGreaterThanOrEqual(rowBox.y);
  expect(linkBox.y + linkBox.height).toBeLessThanOrEqual(rowBox.y + rowBox.height);
  await expect(table.getByRole('row').nth(1)).toContainText(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  await table.getByRole('link', { name: /^Replay rec, / }).click();
  await expect(observer).toHaveURL(new RegExp(`/observe/replay/${gamespaceId}/[^/]+$`));
  const replayUrl = new URL(observer.url()).pathname;
  const play = observer.getByRole('button', { name: 'Play', exact: true });
  await expect(play).toBeEnabled({ timeout: 30_000 });
  // Beside it, the game's events of the session: the console's opening by the player.
  await expect(
    observer.getByRole('button', { name: /^00:00:00 Console opened \(on rec, by Player\)$/ }),
  ).toBeVisible();
  const screen = observer.locator('.tp-replay-screen canvas');
  await play.click();
  await expect(observer.getByRole('button', { name: 'Pause', exact: true })).toBeVisible();
  // Played to its end, it stops on a frame of the console: the typed line's screen.
  await expect(play).toBeVisible({ timeout: 60_000 });
  await expect(screen).toBeVisible();
  await expect
    .poll(() =>
      screen.evaluate((canvas: HTMLCanvasElement) => {
        const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
        let lit = 0;
        for (let i = 0; data && i < data.length; i += 4) {
          if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 60) lit++;
        }
        return lit;
      }),
    )
    .toBeGreaterThan(2_000);
  const position = observer.getByTestId('replay-position');
  const [at, of] = ((await position.textContent()) ?? '').split(' / ');
  expect(at).toBe(of);
  await observer.screenshot({ path: test.info().outputPath('recording-replayed.png') });

  // A player is outside the audience of replays, their own session's too: the page's address
  // tells them so, and the server refuses them the list and the stream.
  await player.goto(replayUrl);
  await expect(
    player.getByRole('heading', { name: 'You may not watch this recording', level: 1 }),
  ).toBeVisible();
  expect(new URL(player.url()).pathname).toBe(replayUrl);
  await expect(player.locator('.tp-replay-screen')).toHaveCount(0);
  const recordingId = replayUrl.split('/').at(-1) ?? '';
  const headers = { Authorization: `Bearer ${await accessToken(player)}` };
  for (const path of [`gamespace/${gamespaceId}/recordings`, `recording/${recordingId}/stream`]) {
    const refused = await player.request.get(`/api/${path}`, { headers });
    expect(refused.status(), path).toBe(403);
  }

  await player.goto(`/mojo/${workspaceId}`);
  await endGame(player);
});
