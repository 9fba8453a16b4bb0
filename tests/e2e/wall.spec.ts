import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// The instructor wall (/observe/wall): an observer of the workspace's audience sees its running
// gamespaces with their players, filters, sorts and pins them (a pin survives a reload), and
// opens a machine's console from its picture; an observer of another audience sees none of them.

const CHALLENGE = {
  text: 'Find the flags.',
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
          questions: [
            { text: 'Which port is open?', answer: '22', weight: 50, grader: 'match' },
            { text: 'Which user?', answer: 'root', weight: 50, grader: 'match' },
          ],
        },
      ],
    },
  ],
};

/** The wall's tiles in the order shown, by their headings (the players' names). */
const tileNames = (page: Page) =>
  page.getByRole('list', { name: 'Running gamespaces' }).getByRole('heading', { level: 2 });

const tileOf = (page: Page, name: string): Locator =>
  page.getByRole('list', { name: 'Running gamespaces' }).getByRole('listitem', { name });

test('an observer watches the running gamespaces of its audience on the wall', async ({
  page,
  browser,
}) => {
  test.setTimeout(180_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const stamp = Date.now();
  const audience = `wall-team-${stamp}`;
  const name = `Wall Lab ${stamp}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const stock = await admin<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience, durationMinutes: 60 });
  // The administrator registers both games, whatever other specs on this server left running
  // of theirs: no limit for this spec, the account as it was afterwards.
  const me = (await admin<Array<Record<string, unknown>>>('GET', 'users?term=admin')).find(
    (u) => u.name === 'Administrator',
  )!;
  await admin('POST', 'user', { ...me, gamespaceLimit: 0 });
  try {
    const register = (player: string, maxMinutes: number) =>
      admin<{ id: string; vms: Array<{ id: string; name: string }> }>('POST', 'gamespace', {
        resourceId: workspace.id,
        players: [{ subjectId: `wall-${stamp}-${player}`, subjectName: player }],
        startGamespace: true,
        maxAttempts: 3,
        maxMinutes,
        points: 100,
      });
    const ada = `Ada ${stamp}`;
    const bo = `Bo ${stamp}`;
    // Ada's time runs out first; Bo scores half.
    const adaGame = await register(ada, 30);
    const boGame = await register(bo, 60);
    await admin('POST', 'gamespace/grade', {
      id: boGame.id,
      sectionIndex: 0,
      questions: [{ answer: '22' }, { answer: 'nobody' }],
    });
    for (const game of [adaGame, boGame]) {
      await expect
        .poll(async () => (await admin<unknown[]>('GET', `vms?filter=${game.id}`)).length, {
          timeout: 60_000,
          intervals: [500],
        })
        .toBe(1);
    }
    const users = await admin<Array<Record<string, unknown>>>('GET', 'users?term=observer');
    const observerUser = users.find((u) => u.name === 'Observer');
    expect(observerUser).toBeDefined();
    await admin('POST', 'user', { ...observerUser, scope: audience });

    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const observer = await context.newPage();
    await signIn(observer, 'observer');
    await observer.getByRole('link', { name: 'Observe', exact: true }).click();
    await observer.getByRole('link', { name: 'Instructor wall' }).click();
    await expect(observer).toHaveURL(/\/observe\/wall$/);
    await expect(
      observer.getByRole('heading', { name: 'Instructor wall', level: 1 }),
    ).toBeVisible();
    // Only this workspace's gamespaces, whatever else runs on the server.
    await observer.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: name });

    const adaTile = tileOf(observer, ada);
    const boTile = tileOf(observer, bo);
    await expect(tileNames(observer)).toHaveText([ada, bo]);
    await expect(adaTile).toContainText(name);
    await expect(adaTile).toContainText('Score0 / 100');
    await expect(boTile).toContainText('Score50 / 100');
    await expect(boTile).toContainText('Attempts1 / 3');
    await expect(adaTile).toContainText('StateRunning');
    await expect(adaTile.locator('.tp-wall-time')).toHaveText(/^00:(29|30):\d\d$/);
    // The picture, or its placeholder while the machine has none.
    const adaMachine = adaTile.getByRole('link', { name: /^linux-server.*: open the console/ });
    await expect(adaMachine.locator('img, .tp-wall-placeholder')).toBeVisible();
    await observer.screenshot({ path: test.info().outputPath('wall.png') });
    const { violations } = await new AxeBuilder({ page: observer }).include('main').analyze();
    expect(
      violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id),
    ).toEqual([]);

    // Filter by text: a word of a player's name.
    const filter = observer.getByRole('searchbox', { name: 'Filter' });
    await filter.fill(`bo ${stamp}`);
    await expect(tileNames(observer)).toHaveText([bo]);
    await filter.fill('');
    await expect(tileNames(observer)).toHaveText([ada, bo]);

    // Sorted by score, Bo leads; pinned, Ada goes first, and stays first after a reload.
    await observer.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Score' });
    await expect(tileNames(observer)).toHaveText([bo, ada]);
    await adaTile.getByRole('button', { name: `Pin ${ada}` }).click();
    await expect(tileNames(observer)).toHaveText([ada, bo]);
    await observer.reload();
    await observer.getByRole('combobox', { name: 'Workspace' }).selectOption({ label: name });
    await observer.getByRole('combobox', { name: 'Sort by' }).selectOption({ label: 'Score' });
    await expect(tileNames(observer)).toHaveText([ada, bo]);
    await expect(adaTile.getByRole('button', { name: `Unpin ${ada}` })).toHaveAttribute(
      'aria-pressed',
      'true',
    );

    // A tile's timeline opens across the row, with the game's events, live.
    await adaTile.getByRole('button', { name: 'Timeline' }).click();
    await expect(adaTile).toHaveAttribute('data-expanded', 'true');
    await expect(adaTile.getByRole('cell', { name: /^Machine deployed: / })).toBeVisible();
    await expect(adaTile.getByText('Live', { exact: true })).toBeVisible();
    await adaTile.getByRole('button', { name: 'Hide timeline' }).click();
    await expect(adaTile.getByRole('cell', { name: /^Machine deployed: / })).toHaveCount(0);

    // A machine's picture opens its console in a tab of its own.
    const vm = adaGame.vms[0]!;
    const [consolePage] = await Promise.all([
      observer.waitForEvent('popup'),
      adaTile.getByRole('link', { name: /^linux-server.*: open the console/ }).click(),
    ]);
    await consolePage.waitForLoadState();
    const consoleUrl = new URL(consolePage.url());
    expect(consoleUrl.pathname).toBe(`/console/${vm.id}/${vm.name}`);
    expect(consoleUrl.searchParams.get('s')).toBe(adaGame.id);
    const consoleBar = consolePage.getByRole('banner', { name: 'Console toolbar' });
    await expect(consoleBar.getByRole('heading', { name: vm.name })).toBeVisible();
    await consolePage.close();
    await context.close();

    // The creator observes too, but its scope does not reach the workspace's audience.
    const otherContext = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const other = await otherContext.newPage();
    await signIn(other, 'creator');
    await other.goto('/observe/wall');
    await expect(other.getByRole('heading', { name: 'Instructor wall', level: 1 })).toBeVisible();
    await expect(other.getByRole('status').filter({ hasText: /running gamespace/ })).toBeVisible();
    await expect(
      other.getByRole('combobox', { name: 'Workspace' }).locator('option', { hasText: name }),
    ).toHaveCount(0);
    await expect(tileOf(other, ada)).toHaveCount(0);
    await expect(tileOf(other, bo)).toHaveCount(0);
    await otherContext.close();

    for (const game of [adaGame, boGame]) await admin('DELETE', `gamespace/${game.id}`);
  } finally {
    await admin('POST', 'user', me);
  }
});
