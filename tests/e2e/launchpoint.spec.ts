import { expect, test } from '@playwright/test';
import { apiOf, linkStockTemplate, signIn } from './support';

// The launch links of TopoMojo clients end to end: Moodle (or Gameboard) registers a student for
// a game with an admin's credential and shows the launchpointUrl it gets back; the student's
// browser, signed in to nothing, opens it, plays, and opens a machine's console through the
// console link the Moodle plugin's buttons use. A link whose ticket was used says so.

const CHALLENGE = {
  text: 'Find the flag.',
  transforms: [],
  variants: [
    {
      text: 'You are on the red network.',
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

interface Registered {
  id: string;
  launchpointUrl: string;
  vms: Array<{ id: string; name: string }>;
}

test('a registered student opens the launch link without signing in, plays, opens a console; the used link says so', async ({
  page,
  browser,
}) => {
  test.setTimeout(150_000);

  // The admin's integration: a published workspace with a machine and a question.
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const workspace = await admin<Record<string, unknown> & { id: string }>('POST', 'workspace', {
    name: 'Red Lab',
  });
  await linkStockTemplate(admin, workspace.id, 'linux-server');
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });

  // Registering the student, as the Moodle plugin does: a subject of its own, started at once.
  const registered = await admin<Registered>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `moodle-${Date.now()}`, subjectName: 'Student One' }],
    startGamespace: true,
    maxAttempts: 3,
    maxMinutes: 60,
    points: 100,
  });
  const link = new URL(registered.launchpointUrl);
  expect(link.pathname).toBe('/lp');
  expect(link.searchParams.get('g')).toBe(registered.id);

  // The student's browser: no sign-in of ours at all.
  const student = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const lp = await student.newPage();
  await lp.goto(`${link.pathname}${link.search}`);
  await expect(lp.getByRole('heading', { name: 'Red Lab' })).toBeVisible({ timeout: 20_000 });
  // The spent ticket leaves the address: a reload signs in by the cookie.
  await expect(lp).toHaveURL(new RegExp(`/lp\\?g=${registered.id}$`));
  await expect(lp.getByRole('timer', { name: 'Countdown' })).toHaveText(/^00:5\d:\d\d$/);
  const actions = lp.getByRole('toolbar', { name: 'Game actions' });
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible();
  const resources = lp.getByRole('region', { name: 'Resources' });
  const consoleLink = resources.getByRole('link', { name: /^Open the console of linux-server/ });
  await expect(consoleLink).toBeVisible({ timeout: 30_000 });

  await lp.screenshot({ path: test.info().outputPath('launchpoint-game.png') });

  // A reload signs in by the cookie the spent ticket set.
  await lp.reload();
  await expect(lp.getByRole('heading', { name: 'Red Lab' })).toBeVisible({ timeout: 20_000 });

  // The launch page's console button: a new tab, signed in by the cookie.
  const [tab] = await Promise.all([student.waitForEvent('page'), consoleLink.click()]);
  const tabToolbar = tab.getByRole('banner', { name: 'Console toolbar' });
  await expect(tabToolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  await expect(tab).toHaveURL(/\/mks\/\?f=1&s=[0-9a-f]{32}&v=linux-server/);
  // The cookie may not read the machine (GET vm/{id}), yet its one NIC shows the network it is
  // on: the nets answer carries the NICs.
  await expect(tabToolbar.getByRole('combobox', { name: 'NIC 1' })).toHaveValue(
    /^lan#[0-9a-f]{32}$/,
  );
  await expect(tabToolbar.getByRole('combobox', { name: 'NIC 2' })).toHaveCount(0);

  // The question, answered on the cookie (POST gamespace/grade takes it now); all answered, the
  // game is complete.
  const quiz = lp.getByRole('region', { name: 'Challenge' });
  const recon = quiz.getByRole('region', { name: 'Recon' });
  await expect(recon.getByText('Which port is open?')).toBeVisible();
  await recon.getByLabel('Answer 1.1').fill('22');
  await recon.getByRole('button', { name: 'Submit' }).click();
  const prompt = lp.getByRole('group', { name: 'Submit Recon?' });
  await prompt.getByRole('button', { name: 'Confirm' }).click();
  await expect(recon.getByText('✓ correct')).toBeVisible();
  await expect(lp.getByRole('heading', { name: 'Game Over' })).toBeVisible();

  // The console link as the Moodle plugin builds it, for another student: its own ticket, the
  // gamespace and the machine's name.
  const second = await admin<Registered>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `moodle-${Date.now()}-2`, subjectName: 'Student Two' }],
    startGamespace: true,
  });
  const vmName = (second.vms[0]?.name ?? '').split('#')[0] ?? '';
  expect(vmName).toMatch(/^linux-server/);
  const consoleTicket = new URL(second.launchpointUrl).searchParams.get('t') ?? '';
  const other = await browser.newContext();
  const mks = await other.newPage();
  await mks.goto(`/mks/?f=1&s=${second.id}&v=${vmName}&t=${consoleTicket}`);
  const toolbar = mks.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('heading', { name: vmName })).toBeVisible({ timeout: 20_000 });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  await expect(mks).toHaveURL(new RegExp(`/mks/\\?f=1&s=${second.id}&v=${vmName}$`));
  await mks.screenshot({ path: test.info().outputPath('launchpoint-mks.png') });

  // The older console link, /c?name=&sessionId=, reaches the same machine by the cookie.
  await mks.goto(`/c?name=${vmName}&sessionId=${second.id}`);
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });

  // Without the hub, the launch page polls: the game ended elsewhere shows as over.
  await mks.goto(`/lp?g=${second.id}`);
  await expect(mks.getByRole('toolbar', { name: 'Game actions' })).toBeVisible({
    timeout: 20_000,
  });
  await expect(mks.getByRole('heading', { name: 'Game Over' })).toHaveCount(0);
  await admin('POST', `gamespace/${second.id}/complete`);
  await expect(mks.getByRole('heading', { name: 'Game Over' })).toBeVisible({ timeout: 15_000 });

  // The first link again, in a browser without the cookie: its ticket was used.
  const stranger = await browser.newContext();
  const reused = await stranger.newPage();
  await reused.goto(`${link.pathname}${link.search}`);
  await expect(reused.getByRole('alert')).toHaveText(
    'This launch link has already been used or has expired.',
  );
  const login = reused.getByRole('link', { name: 'Sign in' });
  await expect(login).toHaveAttribute('href', '/login');
  await reused.screenshot({ path: test.info().outputPath('launchpoint-used.png') });
  await login.click();
  await expect(reused.getByRole('button', { name: /^Login with / })).toBeVisible();

  await Promise.all([student.close(), other.close(), stranger.close()]);
});
