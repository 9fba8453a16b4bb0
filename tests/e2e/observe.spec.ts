import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// The gamespace browser (spec §2): an observer finds a running gamespace on /observe and looks at
// its machines and detail; an admin deletes selected gamespaces from admin Gamespaces.

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

/** A workspace every audience may play, with the stock linux-server machine and a question. */
async function publishedWorkspace(
  page: Page,
  name: string,
  withMachine: boolean,
  audience = 'everyone',
) {
  const admin = await apiOf(page);
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  if (withMachine) {
    const stock = await admin<Array<{ id: string; name: string }>>(
      'GET',
      'templates?term=linux-server',
    );
    const parent = stock.find((t) => t.name === 'linux-server');
    await admin('POST', 'template', { templateId: parent?.id, workspaceId: workspace.id });
  }
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience, durationMinutes: 60 });
  let players = 0;
  const register = (startGamespace = true) =>
    admin<{ id: string }>('POST', 'gamespace', {
      resourceId: workspace.id,
      players: [{ subjectId: `observed-${Date.now()}-${++players}`, subjectName: 'Student' }],
      startGamespace,
      maxAttempts: 3,
      maxMinutes: 60,
      points: 100,
    });
  return { admin, register };
}

test('an observer finds a running gamespace and views its machines and detail', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const name = `Observed Lab ${Date.now()}`;
  // The observer's scope names the workspace's audience: observers see the gamespaces and
  // machines of their audience (wire reference §1.4, §5).
  const { admin, register } = await publishedWorkspace(page, name, true, 'observed-team');
  const users = await admin<Array<Record<string, unknown>>>('GET', 'users?term=observer');
  const observerUser = users.find((u) => u.name === 'Observer');
  expect(observerUser).toBeDefined();
  await admin('POST', 'user', { ...observerUser, scope: 'observed-team' });
  const game = await register();
  // The launch deploys the machine in the background; the observer looks once it is there.
  await expect
    .poll(async () => (await admin<unknown[]>('GET', `vms?filter=${game.id}`)).length, {
      timeout: 60_000,
      intervals: [500],
    })
    .toBe(1);

  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  const observer = await context.newPage();
  await signIn(observer, 'observer');
  await observer.getByRole('link', { name: 'Observe', exact: true }).click();
  await expect(observer.getByRole('heading', { name: 'Gamespaces' })).toBeVisible();
  await observer.getByRole('searchbox', { name: 'term' }).fill(game.id.slice(0, 8));

  const list = observer.getByRole('list', { name: 'Gamespace list' });
  const row = list.getByRole('listitem', { name });
  await expect(row).toHaveCount(1);
  await expect(list.getByRole('listitem')).toHaveCount(1);
  await expect(row).toContainText(game.id.slice(0, 8));
  await expect(row).toContainText('Admin');
  await expect(row.getByLabel('countdown')).toHaveText(/^00:(59|60|5\d):\d\d$/);
  // Observers look and do not touch.
  await expect(observer.getByRole('button', { name: 'Delete', exact: true })).toHaveCount(0);
  await expect(observer.getByRole('button', { name: 'Delete Selected' })).toHaveCount(0);

  await row.getByRole('button', { name: 'View' }).click();
  const machines = row.getByRole('list', { name: 'Machines' });
  // Its controller, named once by the machine's name without its '#tag' (view-only: no Delete).
  const machine = machines.getByRole('listitem');
  await expect(machine).toHaveCount(1);
  await expect(machine.getByRole('group', { name: /^Machine linux-server[-\w]*$/ })).toBeVisible();
  expect((await machine.innerText()).match(/linux-server/g)).toHaveLength(1);
  await expect(machine.getByText('Running')).toBeVisible();
  await expect(machine.getByRole('button', { name: /delete/i })).toHaveCount(0);
  // The Detail tab: players, the challenge and the time, each under its heading.
  const summary = row.getByRole('group', { name: 'Summary' });
  await expect(summary.getByRole('region', { name: 'Players' })).toContainText(
    'Not shown to observers',
  );
  const challenge = summary.getByRole('region', { name: 'Challenge' });
  await expect(challenge).toContainText('Variant1');
  await expect(challenge).toContainText('Score0 of 100');
  await expect(challenge.getByRole('row', { name: /^Recon/ })).toHaveText(
    /^Recon0 of \d+0 of \d+$/,
  );
  await expect(summary.getByRole('region', { name: 'Time' })).toContainText('Time left');
  await expect(row.getByText(/TODO/)).toHaveCount(0);
  await observer.screenshot({ path: test.info().outputPath('observe-detail.png') });

  await row.getByRole('tab', { name: 'Json' }).click();
  await expect(row.locator('pre')).toContainText('"maxPoints": 100');
  await row.getByRole('button', { name: 'View' }).click();
  await expect(machines).toHaveCount(0);

  // Ended, it says when instead of counting down to the expiry it no longer has.
  await admin('POST', `gamespace/${game.id}/complete`);
  await observer
    .getByRole('group', { name: 'Filter' })
    .getByRole('button', { name: 'inactive' })
    .click();
  await expect(row.getByLabel('ended')).toHaveText(/^ended \S.+/);
  await expect(row.getByLabel('countdown')).toHaveCount(0);
  await context.close();
  // Within the admin's running gamespace limit for the tests that follow.
  await admin('DELETE', `gamespace/${game.id}`);
});

test('an admin deletes the selected gamespaces after confirming', async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page, 'admin');
  const name = `Doomed Lab ${Date.now()}`;
  const { admin, register } = await publishedWorkspace(page, name, false);
  // Not started: they do not count against the admin's limit of running gamespaces.
  const first = await register(false);
  const second = await register(false);

  await page.goto('/admin');
  await page
    .getByRole('navigation', { name: 'Admin sections' })
    .getByRole('link', { name: 'Gamespaces' })
    .click();
  await page.getByRole('searchbox', { name: 'term' }).fill(name);
  const list = page.getByRole('list', { name: 'Gamespace list' });
  await expect(list.getByRole('listitem', { name })).toHaveCount(2);

  await page.getByRole('checkbox', { name: 'select all' }).check();
  await page.getByRole('button', { name: 'Delete Selected' }).click();
  const confirm = page.getByRole('group', { name: 'Delete the selected gamespaces?' });
  await page.screenshot({ path: test.info().outputPath('admin-delete-selected.png') });
  await confirm.getByRole('button', { name: 'Confirm' }).click();
  await expect(list.getByRole('listitem', { name })).toHaveCount(0);

  const left = await admin<Array<{ id: string }>>(
    'GET',
    `gamespaces?filter=all&term=${encodeURIComponent(name)}`,
  );
  expect(left.map((g) => g.id)).not.toContain(first.id);
  expect(left.map((g) => g.id)).not.toContain(second.id);
});
