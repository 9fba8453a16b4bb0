import { expect, test, type Page } from '@playwright/test';
import { apiOf, canvasPixels, signIn } from './support';

// Watching a player's console: an observer opens it view only and nothing they type reaches the
// machine; the player's console page says who is watching; an administrator watches the same way
// until they take control, and the player is told that too. What reached the machine is read
// back through its shell: `topoplay-copy <words>` puts the words on its clipboard, which
// POST vm/{id}/clipboard/copy reads.

const CHALLENGE = {
  text: 'Watch me.',
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

/** Clicks into the console's screen and types a line, with Enter unless told not to. */
async function typeLine(page: Page, line: string, enter = true) {
  await page.locator('.tp-console-screen canvas').click();
  await page.keyboard.type(line);
  if (enter) await page.keyboard.press('Enter');
}

test('an observer watches a console view only, and an administrator takes control', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Watched Lab ${Date.now()}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const stock = await admin<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience: 'everyone', durationMinutes: 60 });

  // The player launches the lab and opens its machine's console.
  const playerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  const game = await (
    await apiOf(player)
  )<{ id: string }>('POST', 'gamespace', { resourceId: workspace.id, startGamespace: true });
  let vm = { id: '', name: '', state: '' };
  await expect
    .poll(
      async () => {
        [vm = vm] = await admin<Array<typeof vm>>('GET', `vms?filter=${game.id}`);
        return vm.state;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe('running');
  const machine = vm.name.split('#')[0] ?? '';
  const consolePath = `/console/${vm.id}/${machine}?f=0&s=${game.id}&v=${machine}`;
  const copied = async () =>
    (await admin<{ text: string }>('POST', `vm/${vm.id}/clipboard/copy`)).text;

  await player.goto(consolePath);
  const playerBar = player.getByRole('banner', { name: 'Console toolbar' });
  await expect(playerBar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(playerBar.getByRole('button', { name: 'Ctrl-Alt-Del' })).toBeVisible();
  await expect(player.getByText('View only')).toHaveCount(0);
  // Who else is on the console, one line each.
  const others = player.getByRole('status', { name: 'Others on this console' });
  const notice = others.locator('.tp-console-watched');

  // An observer opens the same console: view only, nothing to type with.
  const observerContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const observer = await observerContext.newPage();
  await signIn(observer, 'observer');
  await observer.goto(consolePath);
  const observerBar = observer.getByRole('banner', { name: 'Console toolbar' });
  await expect(observerBar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(observer.getByText('View only')).toBeVisible();
  await expect(observerBar.getByRole('button', { name: 'Ctrl-Alt-Del' })).toHaveCount(0);
  await expect(observerBar.getByRole('button', { name: 'Paste' })).toHaveCount(0);
  await expect(observer.getByRole('button', { name: 'Take control' })).toHaveCount(0);
  await expect.poll(async () => (await canvasPixels(observer)).lit).toBeGreaterThan(5_000);

  // The player is told, live.
  await expect(notice).toHaveText(['Observer (observer) is watching this console'], {
    timeout: 20_000,
  });
  await player.screenshot({ path: test.info().outputPath('watch-player-notice.png') });
  await observer.screenshot({ path: test.info().outputPath('watch-observer-view-only.png') });

  // The observer types (no Enter: had it reached the machine, the player's lines would follow
  // it); the player's lines reach the machine as they typed them, and the observer sees them.
  const watched = await canvasPixels(observer);
  await typeLine(observer, 'topoplay-copy watched', false);
  await typeLine(player, 'topoplay-copy played');
  await expect.poll(copied, { timeout: 20_000 }).toBe('played');
  await typeLine(player, 'topoplay-copy again');
  await expect.poll(copied, { timeout: 20_000 }).toBe('again');
  await expect.poll(async () => (await canvasPixels(observer)).digest).not.toBe(watched.digest);

  // An administrator watches too, until they take control.
  await page.goto(consolePath);
  const adminBar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(adminBar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(page.getByText('View only')).toBeVisible();
  const takeControl = page.getByRole('button', { name: 'Take control' });
  await expect(takeControl).toBeVisible();
  // Watching, nothing is pasted from the page, though an administrator may once in control.
  const copyOnly = page.getByText('Copy only: nothing can be typed into this machine now.');
  await expect(copyOnly).toBeVisible();
  await expect(others).toContainText('Administrator (admin) is watching this console', {
    timeout: 20_000,
  });
  await page.screenshot({ path: test.info().outputPath('watch-admin-view-only.png') });
  await takeControl.click();
  await expect(adminBar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(page.getByText('View only')).toHaveCount(0);
  await expect(adminBar.getByRole('button', { name: 'Ctrl-Alt-Del' })).toBeVisible();
  await expect(copyOnly).toHaveCount(0);
  await expect(notice).toHaveText(
    ['Observer (observer) is watching this console', 'Administrator (admin) has taken control'],
    {
      timeout: 20_000,
    },
  );
  await typeLine(page, 'topoplay-copy taken');
  await expect.poll(copied, { timeout: 20_000 }).toBe('taken');
  await player.screenshot({ path: test.info().outputPath('watch-player-taken.png') });

  // Once they have all left, the player is told nobody is watching.
  await observer.goto('/about');
  await page.goto('/about');
  await expect(others).toHaveCount(0, { timeout: 20_000 });

  await observerContext.close();
  await playerContext.close();
  await admin('DELETE', `gamespace/${game.id}`);
});
