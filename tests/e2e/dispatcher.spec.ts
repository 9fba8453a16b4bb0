import { spawn, type ChildProcess } from 'node:child_process';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { expect, test } from '@playwright/test';
import { E2E_PORT } from '../../playwright.config';
import { apiOf, signIn } from './support';

// The dispatcher (spec §2): an admin opens a running gamespace in admin Gamespaces, sends
// `[vm1] hostname` from its Dispatcher tab, and reads the answer of the in-lab agent (agent/),
// run here as a local process standing in for the lab machine 'vm1'.

const AGENT = join(import.meta.dirname, '../../agent/main.ts');

/** A challenge whose transform hands the admin the gamespace's grader key, as guestinfo would. */
const CHALLENGE = {
  text: 'Reach the agent.',
  transforms: [{ key: 'agentkey', value: 'api_key' }],
  variants: [{ text: 'One variant.', sections: [] }],
};

let agent: ChildProcess | null = null;
test.afterEach(() => {
  agent?.kill('SIGKILL');
  agent = null;
});

test("an admin sends '[vm1] hostname' and sees the agent's answer", async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const name = `Dispatched Lab ${Date.now()}`;
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, name, audience: 'everyone', durationMinutes: 60 });
  const game = await admin<{ id: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `dispatched-${Date.now()}`, subjectName: 'Student' }],
    startGamespace: true,
    maxAttempts: 3,
    maxMinutes: 60,
    points: 100,
  });
  try {
    const spec = await admin<{ transforms?: Array<{ key: string; value: string }> }>(
      'GET',
      `gamespace/${game.id}/challenge`,
    );
    const graderKey = spec.transforms?.find((t) => t.key === 'agentkey')?.value ?? '';
    expect(graderKey).not.toBe('');

    let output = '';
    agent = spawn(process.execPath, [AGENT], {
      env: {
        PATH: process.env.PATH,
        DISPATCH_URL: `http://127.0.0.1:${E2E_PORT}`,
        DISPATCH_APIKEY: graderKey,
        DISPATCH_GROUPID: game.id,
        HOSTNAME: 'vm1',
        DISPATCH_TIMEOUTSECONDS: '10',
        DISPATCH_RETRYSECONDS: '0.5',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    agent.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    agent.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await expect.poll(() => output, { timeout: 20_000 }).toContain('listening on');

    await page.goto('/admin');
    await page
      .getByRole('navigation', { name: 'Admin sections' })
      .getByRole('link', { name: 'Gamespaces' })
      .click();
    await page.getByRole('searchbox', { name: 'term' }).fill(name);
    const row = page.getByRole('list', { name: 'Gamespace list' }).getByRole('listitem', { name });
    await expect(row).toHaveCount(1);
    await row.getByRole('button', { name: 'View' }).click();
    await row.getByRole('tab', { name: 'Dispatcher' }).click();

    const command = row.getByRole('textbox', { name: 'Command' });
    await expect(command).toHaveAttribute('placeholder', '[target] command');
    await expect(
      row.getByText(
        'Specifying the target name is optional. If omitted, the command will be processed by all listening agents.',
      ),
    ).toBeVisible();
    const log = row.getByRole('log', { name: 'Dispatcher log' });
    await expect(log).toHaveCSS('height', '480px');

    await command.fill('[vm1] hostname');
    await command.press('Enter');
    await expect(command).toHaveValue('');
    const entry = log.getByRole('listitem').filter({ hasText: 'hostname' });
    await expect(entry).toHaveCount(1);
    await expect(entry).toContainText('[vm1]');
    // The agent runs `hostname` in its machine and answers; the log hears it live.
    await expect(entry.locator('.tp-dispatch-result')).toHaveText(hostname(), { timeout: 20_000 });
    await expect(entry).toContainText('answered');
    // Who listens: the agent says it runs on vm1, which is no machine of this (machineless) game.
    const agents = row.getByRole('list', { name: 'Agents' });
    await expect(agents).toHaveText('vm1: an agent listening, on no machine of this game');
    // A command for a host no agent listens on says why it waits.
    await command.fill('[db] uptime');
    await command.press('Enter');
    await expect(log.getByRole('listitem').filter({ hasText: 'uptime' })).toContainText(
      'waiting: no agent is listening on db',
    );
    await page.screenshot({ path: test.info().outputPath('dispatcher.png') });
    expect(output, output).toContain('hostname');

    // An observer may not listen on the gamespace's channel: the console loads again every few
    // seconds, so that answers and agents still show up there.
    const observerContext = await page.context().browser()!.newContext();
    const observer = await observerContext.newPage();
    await signIn(observer, 'observer');
    await observer.getByRole('link', { name: 'Observe', exact: true }).click();
    await observer.getByRole('searchbox', { name: 'term' }).fill(name);
    const observed = observer
      .getByRole('list', { name: 'Gamespace list' })
      .getByRole('listitem', { name });
    await observed.getByRole('button', { name: 'View' }).click();
    await observed.getByRole('tab', { name: 'Dispatcher' }).click();
    await expect(observed.getByRole('list', { name: 'Agents' })).toHaveText(
      'vm1: an agent listening, on no machine of this game',
    );
    const observerCommand = observed.getByRole('textbox', { name: 'Command' });
    await observerCommand.fill('[vm1] echo observed');
    await observerCommand.press('Enter');
    const echoed = observed
      .getByRole('log', { name: 'Dispatcher log' })
      .getByRole('listitem')
      .filter({ hasText: 'echo observed' });
    await expect(echoed.locator('.tp-dispatch-result')).toHaveText('observed', { timeout: 20_000 });
    // The agent stops: the console says nobody listens any more.
    agent.kill('SIGKILL');
    await expect(observed.getByRole('list', { name: 'Agents' })).toHaveText(
      'No machines and no agent.',
      { timeout: 20_000 },
    );
    await observer.screenshot({ path: test.info().outputPath('dispatcher-observer.png') });
    await observerContext.close();
  } finally {
    await admin('DELETE', `gamespace/${game.id}`);
  }
});
