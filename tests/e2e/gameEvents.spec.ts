import { expect, test } from '@playwright/test';
import { apiOf, signIn } from './support';

// The gamespace browser's Events tab: an observer of the audience reads what happened in a
// gamespace (a console opened and closed, answers submitted with their score, the end) as it
// happens, without reloading the page.

const CHALLENGE = {
  text: 'Find the port.',
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

test('an observer sees a console opened and answers submitted in the Events tab', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Evented Lab ${Date.now()}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  const stock = await admin<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', {
    ...loaded,
    name,
    audience: 'evented-team',
    durationMinutes: 60,
  });
  const users = await admin<Array<Record<string, unknown>>>('GET', 'users?term=observer');
  const observerUser = users.find((u) => u.name === 'Observer');
  await admin('POST', 'user', { ...observerUser, scope: 'evented-team' });
  const game = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `evented-${Date.now()}`, subjectName: 'Student' }],
    startGamespace: true,
    maxMinutes: 60,
    points: 100,
  });
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

  // The observer has the gamespace's Events tab open while things happen.
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const observer = await context.newPage();
  await signIn(observer, 'observer');
  await observer.getByRole('link', { name: 'Observe', exact: true }).click();
  await observer.getByRole('searchbox', { name: 'term' }).fill(game.id.slice(0, 8));
  const row = observer
    .getByRole('list', { name: 'Gamespace list' })
    .getByRole('listitem', { name });
  await row.getByRole('button', { name: 'View' }).click();
  await row.getByRole('tab', { name: 'Events' }).click();
  const events = row.getByRole('table', { name: 'Events' });
  await expect(events.getByRole('row', { name: /Machine deployed: linux-server/ })).toHaveCount(1);

  // The administrator opens the machine's console, and leaves it.
  const machine = vm.name.split('#')[0] ?? '';
  await page.goto(`/console/${vm.id}/${machine}?f=0&s=${game.id}&v=${machine}`);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  const opened = events.getByRole('row', { name: /Console opened: linux-server/ });
  await expect(opened).toHaveCount(1, { timeout: 20_000 });
  await expect(opened).toContainText('Administrator');
  await page.goto('/about');
  await expect(events.getByRole('row', { name: /Console closed: linux-server/ })).toHaveCount(1, {
    timeout: 20_000,
  });

  // Answers go in; the observer reads the score and the end.
  await admin('POST', 'gamespace/grade', {
    id: game.id,
    sectionIndex: 0,
    questions: [{ answer: '22' }],
  });
  const submitted = events.getByRole('row', { name: /Answers submitted/ });
  await expect(submitted).toContainText('Recon: 1 of 1 correct, 100 of 100 points', {
    timeout: 20_000,
  });
  await expect(submitted).toContainText('Administrator');
  await expect(events.getByRole('row', { name: /Game ended/ })).toContainText('Full score');
  await observer.screenshot({ path: test.info().outputPath('observe-events.png') });
  await context.close();
  await admin('DELETE', `gamespace/${game.id}`);
});
