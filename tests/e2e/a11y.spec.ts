import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { accessToken, apiOf, signIn, topBar } from './support';

// Every screen of the route table (spec §2), as the role that sees it: its own title in the
// browser tab, and no serious or critical finding of axe-core. Findings are collected per screen
// (soft expectations), so that one run lists them all, each with the elements it names.

const APP = 'Topoplay';

type Violation = Awaited<ReturnType<AxeBuilder['analyze']>>['violations'][number];

const describeViolation = (v: Violation) =>
  [
    `${v.id} (${v.impact}): ${v.help}`,
    ...v.nodes.map((n) => `  at ${n.target.join(' ')}: ${n.failureSummary?.replace(/\s+/g, ' ')}`),
  ].join('\n');

/** The screen in view: its title, then no serious or critical accessibility violations. */
async function checkScreen(page: Page, screen: string, title: string, ready?: Locator) {
  if (ready) await expect(ready, `${screen}: shown`).toBeVisible({ timeout: 30_000 });
  // Scanned once loaded, not its spinners.
  await expect(page.getByRole('status', { name: /^Loading/ }), `${screen}: loaded`).toHaveCount(0, {
    timeout: 30_000,
  });
  await expect.soft(page, `${screen}: title`).toHaveTitle(title);
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect.soft(serious.map(describeViolation), `${screen}: axe findings`).toEqual([]);
}

/** WCAG's relative luminance of `rgb(r, g, b)` / `rgba(...)`. */
function luminance(color: string): number {
  const [r = 0, g = 0, b = 0] = (color.match(/[\d.]+/g) ?? []).map(Number);
  const channel = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
}

const contrast = (a: string, b: string) => {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
};

/** The focused element's outline (width and colour) and the nearest opaque background. */
async function focusRing(page: Page) {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    const style = getComputedStyle(el);
    let around: Element | null = el.parentElement;
    let background = 'rgb(255, 255, 255)';
    while (around) {
      const bg = getComputedStyle(around).backgroundColor;
      if (bg !== 'transparent' && !bg.startsWith('rgba(0, 0, 0, 0')) {
        background = bg;
        break;
      }
      around = around.parentElement;
    }
    return {
      text: el.textContent?.trim() ?? '',
      outlineStyle: style.outlineStyle,
      outlineWidth: parseFloat(style.outlineWidth),
      outlineColor: style.outlineColor,
      background,
    };
  });
}

/** Tabs forward until `target` holds the focus (at most `limit` presses), as a keyboard user. */
async function tabTo(page: Page, target: Locator, limit = 30) {
  for (let i = 0; i < limit; i++) {
    await page.keyboard.press('Tab');
    if (await target.evaluate((el) => el === document.activeElement)) return;
  }
  throw new Error('the target never received the focus');
}

test('keyboard focus shows as a ring that contrasts with the top bar and with the page', async ({
  page,
}) => {
  await page.goto('/about');
  await expect(page.getByRole('heading', { name: 'About', level: 1 })).toBeVisible();
  const about = topBar(page).getByRole('link', { name: 'About' });
  await tabTo(page, about);
  const onBar = await focusRing(page);
  expect(onBar.text).toBe('About');
  expect(onBar.outlineStyle).not.toBe('none');
  expect(onBar.outlineWidth).toBeGreaterThanOrEqual(2);
  // WCAG 1.4.11: 3:1 against what surrounds it.
  expect(contrast(onBar.outlineColor, onBar.background)).toBeGreaterThanOrEqual(3);

  await page.goto('/login');
  const login = page.getByRole('button', { name: /^Login with / });
  await expect(login).toBeVisible();
  await tabTo(page, login);
  const onPage = await focusRing(page);
  expect(onPage.outlineStyle).not.toBe('none');
  expect(onPage.outlineWidth).toBeGreaterThanOrEqual(2);
  expect(contrast(onPage.outlineColor, onPage.background)).toBeGreaterThanOrEqual(3);
});

test('the signed-out screens have their titles and no serious accessibility violations', async ({
  page,
}) => {
  await page.goto('/');
  await checkScreen(page, 'home, signed out', `Home — ${APP}`, page.getByText('Please login'));
  await page.goto('/login');
  await checkScreen(page, 'login', `Sign in — ${APP}`, page.getByText('Please login'));
  await page.goto('/about');
  await checkScreen(page, 'about', `About — ${APP}`, page.getByRole('heading', { name: 'About' }));
  await page.goto('/no/such/page');
  await checkScreen(
    page,
    'not found',
    `Page not found — ${APP}`,
    page.getByText('page-not-found!'),
  );
  await page.goto('/login');
  await page.getByRole('button', { name: /^Login with / }).click();
  await page.waitForURL(/\/identity\//);
  await checkScreen(page, 'identity provider', `Sign in · ${APP}`, page.getByLabel('Username'));
  await page.goto('/lp?t=made-up-ticket');
  await checkScreen(page, 'used launch link', `Launch link — ${APP}`, page.getByRole('alert'));
});

interface Game {
  id: string;
  vms: Array<{ id: string; name: string }>;
}

const CHALLENGE = {
  text: 'Find the **open port**.',
  transforms: [],
  variants: [
    {
      text: 'One machine listens.',
      sections: [
        {
          name: 'Recon',
          text: 'Scan it.',
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [{ text: 'Which port is open?', answer: '22', grader: 'match' }],
        },
      ],
    },
  ],
};

test('the authoring and play screens have their titles and no serious accessibility violations', async ({
  page,
}) => {
  test.setTimeout(150_000);
  await signIn(page, 'creator');
  await checkScreen(page, 'home', `Home — ${APP}`, page.getByText('Getting Started'));

  // A workspace with a machine, a guide and a challenge.
  const author = await apiOf(page);
  const created = await author<{ id: string }>('POST', 'workspace', { name: 'Aqua Lab' });
  const id = created.id;
  const stock = await author<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  await author('POST', 'template', { templateId: parent?.id, workspaceId: id });
  await author('PUT', `challenge/${id}`, CHALLENGE);
  const loaded = await author<Record<string, unknown>>('GET', `workspace/${id}`);
  await author('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });
  const guide = await page.request.put(`/api/document/${id}`, {
    headers: { Authorization: `Bearer ${await accessToken(page)}`, 'content-type': 'text/plain' },
    data: '# Aqua Lab\n\nLog in to the **server**.\n\n- scan\n- answer\n',
  });
  expect(guide.ok()).toBe(true);

  // The workspace browser, pinned open.
  await page.getByRole('button', { name: 'Pin sidebar' }).click();
  const sidebar = page.getByRole('navigation', { name: 'Workspace browser' });
  await expect(sidebar.getByRole('link', { name: 'Aqua Lab' }).first()).toBeVisible();
  await checkScreen(page, 'home with the workspace browser', `Home — ${APP}`);
  await page.getByRole('button', { name: 'Pin sidebar' }).click();

  const sections = page.getByRole('navigation', { name: 'Workspace sections' });
  const tabs = ['Settings', 'Templates', 'Document', 'Challenge', 'Files', 'Play'];
  for (const tab of tabs) {
    await page.goto(`/topo/${id}/${tab.toLowerCase()}`);
    await expect(sections).toBeVisible();
    await expect(page.getByRole('region', { name: tab }).first()).toBeVisible();
    await checkScreen(page, `workspace ${tab}`, `Aqua Lab · ${tab} — ${APP}`);
  }

  await page.goto(`/topo/${id}/invite/made-up-code`);
  await checkScreen(
    page,
    'workspace invitation',
    `Workspace invitation — ${APP}`,
    page.getByText('Invalid invitation code.'),
  );
  await page.goto(`/mojo/${id}/aqua-lab/made-up-code`);
  await checkScreen(
    page,
    'gamespace invitation',
    `Gamespace invitation — ${APP}`,
    page.getByText('Invalid invitation code.'),
  );

  // The play page before the game starts, then in play.
  await page.goto(`/mojo/${id}`);
  const actions = page.getByRole('toolbar', { name: 'Game actions' });
  await checkScreen(page, 'play page, not started', `Aqua Lab — ${APP}`, actions);
  const game = await author<Game>('POST', 'gamespace', { resourceId: id, startGamespace: true });
  await page.goto(`/mojo/${game.id}`);
  const resources = page.getByRole('region', { name: 'Resources' });
  await expect(resources.getByRole('button', { name: 'Console' })).toBeEnabled({
    timeout: 30_000,
  });
  await checkScreen(page, 'play page, in play', `Aqua Lab — ${APP}`, actions);

  // The browser's gamespace mode lists it.
  await page.getByRole('button', { name: 'Pin sidebar' }).click();
  await sidebar.getByRole('button', { name: 'Gamespaces' }).click();
  await expect(sidebar.getByRole('link', { name: 'Continue' })).toBeVisible();
  await checkScreen(page, 'gamespace browser', `Aqua Lab — ${APP}`);
  await sidebar.getByRole('button', { name: 'Workspaces' }).click();
  await page.getByRole('button', { name: 'Pin sidebar' }).click();

  // A machine's console in its own tab.
  const vmName = (game.vms[0]?.name ?? '').split('#')[0] ?? '';
  await page.goto(`/console/${game.vms[0]?.id}/${vmName}?f=1&s=${game.id}&v=${vmName}`);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
  await checkScreen(page, 'console', `${vmName} — ${APP}`);
});

test('the admin, observer and launch-link screens have their titles and no serious accessibility violations', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'admin');
  const admin = await apiOf(page);
  const workspace = await admin<{ id: string }>('POST', 'workspace', { name: 'Coral Lab' });
  const loaded = await admin<Record<string, unknown>>('GET', `workspace/${workspace.id}`);
  await admin('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });
  await admin('PUT', `challenge/${workspace.id}`, CHALLENGE);

  const menu = page.getByRole('navigation', { name: 'Admin sections' });
  await page.goto('/admin');
  await checkScreen(page, 'admin dashboard', `Admin · Dashboard — ${APP}`, menu);
  await menu.getByRole('link', { name: 'Templates' }).click();
  await checkScreen(page, 'admin templates', `Admin · Templates — ${APP}`, menu);
  await menu.getByRole('link', { name: 'Gamespaces' }).click();
  await checkScreen(
    page,
    'admin gamespaces',
    `Admin · Gamespaces — ${APP}`,
    page.getByRole('heading', { name: 'Gamespaces' }),
  );
  await menu.getByRole('link', { name: 'Users' }).click();
  // One user opened, with its keys and local account.
  await page.getByRole('list', { name: 'Users' }).getByRole('button', { name: 'Player' }).click();
  await checkScreen(
    page,
    'admin users',
    `Admin · Users — ${APP}`,
    page.getByRole('region', { name: 'Local account' }),
  );
  await menu.getByRole('link', { name: 'Machines' }).click();
  await checkScreen(page, 'admin machines', `Admin · Machines — ${APP}`, menu);
  await menu.getByRole('link', { name: 'Log', exact: true }).click();
  await checkScreen(page, 'admin log', `Admin · Log — ${APP}`, menu);
  await menu.getByRole('link', { name: 'Event log' }).click();
  const events = page.getByRole('table', { name: 'Events' });
  await expect(events.locator('tbody tr').first()).toBeVisible();
  // One payload opened, as an administrator reading it would.
  await events.getByRole('button', { expanded: false }).first().click();
  await expect(events.locator('pre').first()).toBeVisible();
  await checkScreen(page, 'admin event log', `Admin · Event log — ${APP}`);

  // An observer's dashboard.
  const observerContext = await browser.newContext();
  const observer = await observerContext.newPage();
  await signIn(observer, 'observer');
  await observer.goto('/observe');
  await checkScreen(
    observer,
    'observe',
    `Observe — ${APP}`,
    observer.getByRole('heading', { level: 1 }),
  );
  await observerContext.close();

  // A registered student's launch link, in a browser not signed in.
  const registered = await admin<{ launchpointUrl: string }>('POST', 'gamespace', {
    resourceId: workspace.id,
    players: [{ subjectId: `a11y-${Date.now()}`, subjectName: 'Student' }],
    startGamespace: true,
  });
  const link = new URL(registered.launchpointUrl);
  const studentContext = await browser.newContext();
  const student = await studentContext.newPage();
  await student.goto(`${link.pathname}${link.search}`);
  await checkScreen(
    student,
    'launch link',
    `Coral Lab — ${APP}`,
    student.getByRole('toolbar', { name: 'Game actions' }),
  );
  await studentContext.close();
});
