import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { encodeRecord, SCREEN_CHANNEL } from '../../src/domain/recordingStream';
import { accessToken, apiOf, signedInPage, signIn } from './support';

// A console recording replayed in the gamespace browser. The recording is genuine: the bytes the
// live console's noVNC received from a running sim machine over the real console route, with the
// times they arrived, written as the recording stream (src/api/recordings.ts). The list of
// recordings and the stream are answered from it, in place of the server's recorder; the game's
// events come from the server (none yet is none). The replay must draw, at a time, exactly the
// frame the live console showed at that time, going forward and back.
// The server's recorder and its routes exist now (consoleRecording.spec.ts replays a session they
// recorded); this spec keeps answering them itself, for it needs a recording whose every frame and
// time it knows, and an hour-long one it could not wait for.

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [],
  variants: [
    {
      text: 'Only one variant.',
      sections: [
        {
          name: 'Recon',
          text: 'Look around.',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'Which port is open?', answer: '22', weight: 0, grader: 'match' }],
        },
      ],
    },
  ],
};

/** The long recording's length. */
const HOUR_MS = 60 * 60 * 1_000;

interface Vm {
  id: string;
  name: string;
  state: string;
}

/** The decoded frame of the first canvas under `selector`: its size and a digest of its pixels. */
function frameOf(page: Page, selector: string) {
  return page.evaluate((selector) => {
    const canvas = document.querySelector(`${selector} canvas`) as HTMLCanvasElement | null;
    if (!canvas || canvas.width === 0) return { size: '0x0', lit: 0, digest: 0 };
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    let lit = 0;
    let digest = 0;
    for (let i = 0; data && i < data.length; i += 4) {
      if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 60) lit++;
      digest =
        (digest * 31 + (data[i] ?? 0) + (data[i + 1] ?? 0) * 7 + (data[i + 2] ?? 0) * 13) | 0;
    }
    return { size: `${canvas.width}x${canvas.height}`, lit, digest };
  }, selector);
}

/** What the capture keeps in the live console's page (installed before the page's scripts). */
declare global {
  interface Window {
    recorded?: { startedAt: number; messages: Array<{ t: number; bytes: number[] }> };
  }
}

/**
 * Every binary message a WebSocket of the page receives, with its time since the socket opened.
 * The sockets stay native ones (noVNC checks the properties of the socket's own prototype).
 */
function captureWebSockets() {
  const Native = window.WebSocket;
  const Capturing = function (url: string | URL, protocols?: string | string[]) {
    const socket = new Native(url, protocols);
    const recorded = {
      startedAt: performance.now(),
      messages: [] as Array<{ t: number; bytes: number[] }>,
    };
    socket.addEventListener('message', (event: MessageEvent) => {
      if (!(event.data instanceof ArrayBuffer)) return;
      // The console's socket: the one whose bytes begin with the RFB ProtocolVersion.
      if (recorded.messages.length === 0) {
        const head = String.fromCharCode(...new Uint8Array(event.data).slice(0, 4));
        if (head !== 'RFB ') return;
        window.recorded = recorded;
      }
      recorded.messages.push({
        t: Math.floor(performance.now() - recorded.startedAt),
        bytes: Array.from(new Uint8Array(event.data)),
      });
    });
    return socket;
  } as unknown as typeof WebSocket;
  Object.assign(Capturing, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
  Capturing.prototype = Native.prototype;
  window.WebSocket = Capturing;
}

const now = (page: Page) =>
  page.evaluate(() => Math.floor(performance.now() - (window.recorded?.startedAt ?? 0)));
const messageCount = (page: Page) => page.evaluate(() => window.recorded?.messages.length ?? 0);

/**
 * Waits until the live screen has been still for a while (no message for `quietMs`), then takes
 * its frame, with the recording's time at which it stood.
 */
async function stillFrame(page: Page, quietMs = 1_500) {
  let count = -1;
  let since = 0;
  await expect
    .poll(
      async () => {
        const n = await messageCount(page);
        const t = await now(page);
        if (n !== count) {
          count = n;
          since = t;
        }
        return t - since >= quietMs;
      },
      { timeout: 30_000, intervals: [250] },
    )
    .toBe(true);
  const frame = await frameOf(page, '.tp-console-screen');
  const after = await messageCount(page);
  expect(after, 'the screen was still while its frame was taken').toBe(count);
  const lastAt = await page.evaluate(() => window.recorded?.messages.at(-1)?.t ?? 0);
  return { frame, lastAt, quietUntil: await now(page) };
}

/** A time in the still stretch after `lastAt`, on the timeline's 100 ms steps. */
const stillTime = (still: { lastAt: number; quietUntil: number }) => {
  const t = Math.ceil((still.lastAt + 200) / 100) * 100;
  expect(t).toBeLessThan(still.quietUntil);
  return t;
};

test('an admin replays a recorded console session frame for frame, seeking to the middle and back', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);

  // A running gamespace with the stock linux-server machine.
  const workspace = await admin<{ id: string }>('POST', 'workspace', {
    name: `Replayed ${Date.now()}`,
  });
  const stock = await admin<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });
  const game = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `replayed-${Date.now()}`, subjectName: 'Student' }],
    startGamespace: true,
    maxAttempts: 3,
    maxMinutes: 60,
    points: 100,
  });
  let vm: Vm | undefined;
  await expect
    .poll(
      async () => {
        vm = (await admin<Vm[]>('GET', `vms?filter=${game.id}`))[0];
        return vm?.state;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe('running');
  const name = vm!.name.split('#')[0] ?? '';

  // The live console, its received bytes captured as they arrive.
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const live = await context.newPage();
  await signIn(live, 'admin');
  await live.addInitScript(captureWebSockets);
  await live.goto(`/console/${vm!.id}/${name}?f=0`);
  const toolbar = live.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect
    .poll(async () => (await frameOf(live, '.tp-console-screen')).lit)
    .toBeGreaterThan(5_000);
  const first = await stillFrame(live);
  await live.locator('.tp-console-screen canvas').click();
  await live.keyboard.type('echo replayed at its time');
  await live.keyboard.press('Enter');
  await expect
    .poll(async () => (await frameOf(live, '.tp-console-screen')).digest)
    .not.toBe(first.frame.digest);
  const last = await stillFrame(live);
  expect(last.frame.digest).not.toBe(first.frame.digest);
  const recorded = await live.evaluate(() => window.recorded!);
  await context.close();

  // The recording stream: one record per message, at its time.
  const stream = Buffer.concat(
    recorded.messages.map((m) => encodeRecord(m.t, SCREEN_CHANNEL, Uint8Array.from(m.bytes))),
  );
  const durationMs = last.quietUntil;
  const recordingId = `e2e${Date.now()}`;
  const startedAt = new Date(Date.now() - durationMs).toISOString();
  const recording = {
    id: recordingId,
    gamespaceId: game.id,
    machineId: vm!.id,
    machineName: name,
    userId: 'admin',
    userName: 'Admin',
    startedAt,
    endedAt: new Date().toISOString(),
    durationMs,
    bytes: stream.length,
    truncated: false,
  };
  await page.route(`**/api/gamespace/${game.id}/recordings`, (route) =>
    route.fulfill({ json: [recording] }),
  );
  await page.route(`**/api/recording/${recordingId}/stream*`, (route) =>
    route.fulfill({ body: stream, contentType: 'application/octet-stream' }),
  );

  // The gamespace browser lists the recording; Replay opens the player.
  await page.goto('/observe');
  await page.getByRole('searchbox', { name: 'term' }).fill(game.id.slice(0, 8));
  const row = page.getByRole('list', { name: 'Gamespace list' }).getByRole('listitem').first();
  await row.getByRole('button', { name: 'View' }).click();
  await row.getByRole('tab', { name: 'Recordings' }).click();
  const table = row.getByRole('table', { name: 'Console recordings' });
  await expect(table.getByRole('row')).toHaveCount(2);
  await expect(table.getByRole('row').nth(1)).toContainText(name);
  await expect(table.getByRole('row').nth(1)).toContainText('Admin');
  await table.getByRole('link', { name: /^Replay / }).click();
  await expect(page).toHaveURL(new RegExp(`/observe/replay/${game.id}/${recordingId}$`));
  await expect(page.getByRole('heading', { name: `Replay: ${name}, Admin` })).toBeVisible();
  const play = page.getByRole('button', { name: 'Play' });
  await expect(play).toBeEnabled();
  const timeline = page.getByRole('slider', { name: 'Timeline' });
  const position = page.getByTestId('replay-position');
  const replayed = () => frameOf(page, '.tp-replay-screen');
  /** Moves the slider as a drag does (React reads the input event, not a bare value). */
  const seek = (ms: number) =>
    timeline.evaluate((input: HTMLInputElement, value) => {
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(
        input,
        String(value),
      );
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, ms);

  // Seek to the middle: the frame the live console showed then.
  const middle = stillTime(first);
  expect(middle).toBeLessThan(durationMs);
  await seek(middle);
  await expect(play).toBeEnabled();
  await expect.poll(async () => (await replayed()).digest).toBe(first.frame.digest);
  expect((await replayed()).size).toBe(first.frame.size);

  // Forward to the still time after the typing, then back to the middle (a fresh client fed from
  // the start): each time the live frame of that time.
  await seek(stillTime(last));
  await expect.poll(async () => (await replayed()).digest).toBe(last.frame.digest);
  await seek(middle);
  await expect.poll(async () => (await replayed()).digest).toBe(first.frame.digest);

  // Played on at 16x from the middle, it ends on the last frame.
  await page.getByRole('combobox', { name: 'Speed' }).selectOption('16');
  await play.click();
  await expect(page.getByRole('button', { name: 'Pause' })).toBeVisible();
  await expect(play).toBeVisible({ timeout: 30_000 });
  const end = new Date(durationMs).toISOString().slice(11, 19);
  await expect(position).toHaveText(`${end} / ${end}`);
  await expect.poll(async () => (await replayed()).digest).toBe(last.frame.digest);
  await page.screenshot({ path: test.info().outputPath('replay-ended.png') });

  // Export saves the stream as a file.
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('button', { name: 'Export' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`recording-${recordingId}.tprec`);
  expect(readFileSync(await download.path())).toEqual(stream);

  // An hour of it: the session's start, then its typing again every 10 s. Seeking to the middle,
  // back near the start (a fresh client fed from the first record) and on near the end: how long
  // until the screen shows the new time.
  const typing = recorded.messages.filter((m) => m.t > first.lastAt);
  const hourMessages = recorded.messages.filter((m) => m.t <= first.lastAt);
  const span = (typing.at(-1)?.t ?? 0) - (typing[0]?.t ?? 0);
  for (let start = 5_000; start + span < HOUR_MS; start += 10_000) {
    for (const m of typing)
      hourMessages.push({ t: start + m.t - (typing[0]?.t ?? 0), bytes: m.bytes });
  }
  const hourStream = Buffer.concat(
    hourMessages.map((m) => encodeRecord(m.t, SCREEN_CHANNEL, Uint8Array.from(m.bytes))),
  );
  const hour = {
    ...recording,
    id: `${recordingId}h`,
    durationMs: HOUR_MS,
    bytes: hourStream.length,
  };
  await page.unroute(`**/api/gamespace/${game.id}/recordings`);
  await page.route(`**/api/gamespace/${game.id}/recordings`, (route) =>
    route.fulfill({ json: [recording, hour] }),
  );
  await page.route(`**/api/recording/${hour.id}/stream*`, (route) =>
    route.fulfill({ body: hourStream, contentType: 'application/octet-stream' }),
  );
  const opened = Date.now();
  await page.goto(`/observe/replay/${game.id}/${hour.id}`);
  await expect(play).toBeEnabled({ timeout: 60_000 });
  const loadMs = Date.now() - opened;
  /** Milliseconds from moving the slider until the screen stops seeking. */
  const seekLatency = (ms: number) =>
    page.evaluate(async (value) => {
      const input = document.querySelector<HTMLInputElement>('input[aria-label="Timeline"]')!;
      const screen = document.querySelector('.tp-replay-screen')!;
      const started = performance.now();
      const done = new Promise<void>((resolve) => {
        const observer = new MutationObserver(() => {
          if (screen.getAttribute('data-seeking') === 'false') {
            observer.disconnect();
            resolve();
          }
        });
        observer.observe(screen, { attributes: true });
      });
      Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')?.set?.call(
        input,
        String(value),
      );
      input.dispatchEvent(new Event('input', { bubbles: true }));
      await done;
      return Math.round(performance.now() - started);
    }, ms);
  const toMiddle = await seekLatency(HOUR_MS / 2);
  await expect.poll(async () => (await replayed()).digest).toBe(last.frame.digest);
  const back = await seekLatency(60_000);
  const forward = await seekLatency(HOUR_MS - 60_000);
  console.log(
    `60-minute recording, ${hourMessages.length} records, ${(hourStream.length / 1e6).toFixed(1)} MB: ` +
      `opened in ${loadMs} ms; seek to 30:00 ${toMiddle} ms, back to 01:00 ${back} ms, on to 59:00 ${forward} ms`,
  );

  await page.unroute(`**/api/gamespace/${game.id}/recordings`);
  await page.route(`**/api/gamespace/${game.id}/recordings`, (route) =>
    route.fulfill({ status: 403, body: '' }),
  );
  await page.reload();
  await expect(page.getByRole('alert')).toHaveText(/You are not allowed to do this\./);

  await admin('DELETE', `gamespace/${game.id}`);
});

test('a player who opens a replay address is told they may not watch it, and nothing is loaded', async ({
  page,
  browser,
  baseURL,
}) => {
  // A gamespace of the admin's, not the player's; its replay address as an observer would share it.
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const workspace = await admin<{ id: string }>('POST', 'workspace', {
    name: `Not theirs ${Date.now()}`,
  });
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });
  const game = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `someone-${Date.now()}`, subjectName: 'Someone' }],
    startGamespace: false,
    maxAttempts: 3,
    maxMinutes: 60,
    points: 100,
  });
  const address = `/observe/replay/${game.id}/e2e-recording`;

  const player = await signedInPage(browser, baseURL ?? '', 'player');
  const asked: string[] = [];
  player.on('request', (request) => {
    const path = new URL(request.url()).pathname;
    if (/\/api\/(gamespace\/[^/]+\/(recordings|events)|recording\/)/.test(path)) asked.push(path);
  });
  await player.goto(address);
  await expect(
    player.getByRole('heading', { name: 'You may not watch this recording', level: 1 }),
  ).toBeVisible();
  await expect(
    player.getByText('Replays of console sessions are for observers and administrators.'),
  ).toBeVisible();
  await expect(player).toHaveTitle(/^Replay not allowed/);
  await expect(
    player.getByRole('main', { name: 'Content' }).getByRole('link', { name: 'Home' }),
  ).toHaveAttribute('href', '/');
  // The address stays: it was not a wrong link. Nothing of the recording was asked for or shown,
  // and the server would not have answered it.
  expect(new URL(player.url()).pathname).toBe(address);
  await expect(player.locator('.tp-replay-screen')).toHaveCount(0);
  expect(asked).toEqual([]);
  const headers = { Authorization: `Bearer ${await accessToken(player)}` };
  const refused = await player.request.get(`/api/gamespace/${game.id}/recordings`, { headers });
  expect(refused.status()).toBe(403);

  await admin('DELETE', `gamespace/${game.id}`);
});
