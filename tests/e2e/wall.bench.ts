import { expect, test, type Page } from '@playwright/test';
import { accessToken, apiOf, signIn } from './support';

// Instructor wall benchmark (`npm run build`, then `npm run bench:wall`; about two minutes):
// BENCH_WALL_GAMES (200) running gamespaces of two machines each on the sim driver, launched by
// an administrator.
//
// - GET /api/wall, 20 times in a row as the administrator: the answer's size and its median and
//   slowest time.
// - The wall in Chromium at 1920 and 1000 px: every tile shown; the thumbnail requests of its
//   first 4 s (only tiles in or near the view ask); frame gaps while idle and while the page is
//   scrolled from top to bottom 60 px a frame; and the same scroll over a static copy of the
//   same page without any script, which is what rendering alone costs on this machine.

const GAMES = Number(process.env.BENCH_WALL_GAMES ?? 200);
const NAMES = ['Ada', 'Bo', 'Cy', 'Dee', 'Eve', 'Fay', 'Gus', 'Hal', 'Ivy', 'Jo'];

interface Gaps {
  frames: number;
  /** Frames a second over the whole run: what a person sees as the frame rate. */
  fps: number;
  median: number;
  p95: number;
  max: number;
  over50: number;
}

/** Frame gaps while `.tp-main` scrolls from top to bottom, 60 px a frame (or idle 120 frames). */
const frameGaps = (page: Page, scroll: boolean): Promise<Gaps> =>
  page.evaluate(async (scrolling) => {
    const main = document.querySelector('.tp-main')!;
    main.scrollTop = 0;
    const gaps: number[] = [];
    let last = performance.now();
    let running = true;
    const tick = (t: number) => {
      gaps.push(t - last);
      last = t;
      if (running) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
    const nextFrame = () => new Promise((r) => requestAnimationFrame(() => r(null)));
    if (scrolling) {
      for (let y = 0; y < main.scrollHeight; y += 60) {
        main.scrollTop = y;
        await nextFrame();
      }
    } else {
      for (let i = 0; i < 120; i++) await nextFrame();
    }
    running = false;
    const seconds = gaps.reduce((sum, gap) => sum + gap, 0) / 1000;
    gaps.sort((a, b) => a - b);
    const at = (q: number) => Math.round(gaps[Math.floor((gaps.length - 1) * q)]!);
    return {
      frames: gaps.length,
      fps: Math.round(gaps.length / seconds),
      median: at(0.5),
      p95: at(0.95),
      max: at(1),
      over50: gaps.filter((g) => g > 50).length,
    };
  }, scroll);

test('the instructor wall with many running gamespaces', async ({ page, browser }) => {
  test.setTimeout(900_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const users = await admin<Array<Record<string, unknown>>>('GET', 'users?term=admin');
  const me = users.find((u) => u.name === 'Administrator');
  await admin('POST', 'user', { ...me, gamespaceLimit: 0 });
  const stamp = Date.now();
  const name = `Scale Lab ${stamp}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const stock = await admin<Array<{ id: string; name: string }>>('GET', 'templates?term=linux');
  for (const t of stock.filter((s) => s.name.startsWith('linux')).slice(0, 2)) {
    await admin('POST', 'template', { templateId: t.id, workspaceId: workspace.id });
  }
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience: 'everyone', durationMinutes: 120 });
  // Ten at a time; every third a team of two.
  for (let i = 0; i < GAMES; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, GAMES - i) }, (_, k) => {
        const n = i + k;
        const players =
          n % 3 === 0
            ? [
                { subjectId: `s-${stamp}-${n}-a`, subjectName: `${NAMES[k]} ${n}` },
                { subjectId: `s-${stamp}-${n}-b`, subjectName: `${NAMES[(k + 3) % 10]} Team` },
              ]
            : [{ subjectId: `s-${stamp}-${n}`, subjectName: `${NAMES[k]} Student ${n}` }];
        return admin('POST', 'gamespace', {
          resourceId: workspace.id,
          players,
          startGamespace: true,
          maxMinutes: 30 + (n % 90),
          points: 100,
        });
      }),
    );
  }

  const authorization = `Bearer ${await accessToken(page)}`;
  const times: number[] = [];
  let body = '';
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    const reply = await page.request.fetch('/api/wall', {
      headers: { Authorization: authorization },
    });
    body = await reply.text();
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  const entries = (JSON.parse(body) as Array<{ workspaceId: string; machines: unknown[] }>).filter(
    (e) => e.workspaceId === workspace.id,
  );
  expect(entries).toHaveLength(GAMES);
  expect(entries.every((e) => e.machines.length === 2)).toBe(true);
  console.log(
    `GET /api/wall: ${GAMES} gamespaces, ${body.length} bytes, median ${times[10]!.toFixed(1)} ms, slowest ${times[19]!.toFixed(1)} ms`,
  );

  for (const width of [1920, 1000]) {
    const context = await browser.newContext({ viewport: { width, height: 1080 } });
    const wall = await context.newPage();
    await signIn(wall, 'admin');
    const pictures = new Set<string>();
    wall.on('request', (r) => {
      if (r.url().endsWith('/thumbnail')) pictures.add(r.url());
    });
    await wall.goto('/observe/wall');
    await wall.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: name });
    await expect(wall.locator('.tp-wall-card')).toHaveCount(GAMES, { timeout: 30_000 });
    await expect(wall.locator('.tp-wall-card').first()).toContainText('Time left');
    await wall.waitForTimeout(4_000);
    const asked = pictures.size;
    // Tiles far below the view ask for nothing.
    expect(asked).toBeLessThan(GAMES);
    await wall.screenshot({ path: test.info().outputPath(`wall-${width}.png`) });
    const idle = await frameGaps(wall, false);
    const scrolled = await frameGaps(wall, true);
    const html = await wall.evaluate(() =>
      document.documentElement.outerHTML.replace(/<script[\s\S]*?<\/script>/g, ''),
    );
    const copy = await context.newPage();
    await copy.route('**/static-wall', (r) => r.fulfill({ contentType: 'text/html', body: html }));
    await copy.goto('/static-wall');
    const rendering = await frameGaps(copy, true);
    console.log(
      `${width} px: ${asked} machines asked for pictures in 4 s, idle ${JSON.stringify(idle)}, scroll ${JSON.stringify(scrolled)}, static copy ${JSON.stringify(rendering)}`,
    );
    await context.close();
  }
});
