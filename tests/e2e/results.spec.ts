import { readFile } from 'node:fs/promises';
import { expect, test } from '@playwright/test';
import { apiOf, signIn } from './support';

// Results: an observer opens a workspace's results from the gamespace browser, sorts them by
// score and exports them as CSV; a player finds their own game on the home page.

const CHALLENGE = {
  text: 'Find the flags.',
  transforms: [],
  variants: [
    {
      text: 'One variant.',
      sections: [
        {
          name: 'Recon',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'Which port?', answer: '22', weight: 50, grader: 'match' }],
        },
        {
          name: 'Exploit',
          text: '',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'Which user?', answer: 'root', weight: 50, grader: 'match' }],
        },
      ],
    },
  ],
};

test('an observer sorts and exports the results; a player sees their own game at home', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Results Lab ${Date.now()}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience: 'everyone', durationMinutes: 60 });

  // One game for a student the admin registers, both sets answered: 100 points, and over.
  const student = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `results-${Date.now()}`, subjectName: 'Student Zed' }],
    startGamespace: true,
    points: 100,
  });
  for (const [sectionIndex, answer] of [
    [0, '22'],
    [1, 'root'],
  ] as const) {
    await admin('POST', 'gamespace/grade', {
      id: student.id,
      sectionIndex,
      questions: [{ answer }],
    });
  }

  // One the player launches and half answers: 50 points, still running.
  const playerContext = await browser.newContext();
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  const asPlayer = await apiOf(player);
  const own = await asPlayer<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    startGamespace: true,
  });
  await asPlayer('POST', 'gamespace/grade', {
    id: own.id,
    sectionIndex: 0,
    questions: [{ answer: '22' }],
  });

  const observerContext = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const observer = await observerContext.newPage();
  await signIn(observer, 'observer');
  await observer.goto('/observe');
  await observer.getByRole('searchbox', { name: 'term' }).fill(student.id.slice(0, 8));
  const row = observer
    .getByRole('list', { name: 'Gamespace list' })
    .getByRole('listitem', { name });
  await expect(row).toHaveCount(1);
  await row.getByRole('link', { name: `Results of ${name}` }).click();
  await expect(observer).toHaveURL(new RegExp(`/observe/results/${workspace.id}$`));
  await expect(observer.getByRole('heading', { name: `Results: ${name}` })).toBeVisible();

  const table = observer.getByRole('table', { name: 'Results' });
  const rows = table.locator('tbody tr');
  await expect(rows).toHaveCount(2);
  const firstPlayer = () => rows.first().getByRole('rowheader');
  // Newest first: the player's game.
  await expect(firstPlayer()).toHaveText('Player');
  const score = table.getByRole('columnheader', { name: /^Score/ });
  await score.getByRole('button').click();
  await expect(score).toHaveAttribute('aria-sort', 'descending');
  await expect(firstPlayer()).toHaveText('Student Zed');
  await expect(rows.first()).toContainText('100 / 100');
  await expect(rows.first()).toContainText('ended');
  await expect(rows.nth(1)).toContainText('50 / 100');
  await expect(rows.nth(1)).toContainText('running');
  await score.getByRole('button').click();
  await expect(score).toHaveAttribute('aria-sort', 'ascending');
  await expect(firstPlayer()).toHaveText('Player');
  await observer.screenshot({ path: test.info().outputPath('results.png') });

  const downloading = observer.waitForEvent('download');
  await observer.getByRole('button', { name: 'Export CSV' }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(/^results-lab-\d+-results-\d{4}-\d{2}-\d{2}\.csv$/);
  const csv = await readFile((await download.path())!, 'utf8');
  const lines = csv.split('\r\n');
  expect(lines[0]).toMatch(/^gamespace,workspace,players,team,manager,started,ended,/);
  expect(lines[0]).toContain('set 1 name,set 1 score,set 1 attempts,set 2 name');
  expect(lines).toHaveLength(4);
  const studentLine = lines.find((l) => l.startsWith(student.id));
  const playerLine = lines.find((l) => l.startsWith(own.id));
  expect(studentLine).toContain(`,${name},Student Zed,false,`);
  expect(studentLine).toMatch(/,false,100,100,2,\d+,Recon,50,1,Exploit,50,1$/);
  expect(playerLine).toContain(`,${name},Player,false,Player,`);
  expect(playerLine).toMatch(/,true,50,100,1,\d+,Recon,50,1,Exploit,0,0$/);
  await observerContext.close();

  // The player's home page lists the game, with the way back into it.
  await player.goto('/?home');
  const games = player.getByRole('table', { name: 'Your games' });
  const mine = games.getByRole('row', { name: new RegExp(name) });
  await expect(mine).toHaveCount(1);
  await expect(mine).toContainText('50 / 100');
  await mine.getByRole('link', { name: `Continue ${name}` }).click();
  await expect(player).toHaveURL(new RegExp(`/mojo/${own.id}`));
  // The student's game is not the player's.
  await player.goto('/?home');
  await expect(games.getByRole('row', { name: new RegExp(name) })).toHaveCount(1);
  await playerContext.close();

  // Within the players' running gamespace limits for the tests that follow.
  await admin('DELETE', `gamespace/${own.id}`);
});
