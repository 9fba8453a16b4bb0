import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Locator, type Page } from '@playwright/test';
import { accessToken, apiOf, endGame, signIn, topBar } from './support';

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
async function checkScreen(page: Page, screen: string, title: string | RegExp, ready?: Locator) {
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

/**
 * Whether the focused element's ring can be seen: an outline at least 2 px wide whose line, at the
 * middle of each side, lies inside the window and inside every ancestor that clips it, over the
 * element itself, its content or what lies behind it (not under a bar or a panel), and at 3:1 or
 * more against the background there. Says what hides it, or nothing when it shows.
 */
async function focusShows(page: Page): Promise<string> {
  const seen = await page.evaluate<
    | { name: string; problem: string }
    | { name: string; problem: ''; ring: string; backgrounds: string[] }
  >(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { name: '', problem: 'nothing has the focus' };
    const name = `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}"`;
    const style = getComputedStyle(el);
    const width = parseFloat(style.outlineWidth);
    if (style.outlineStyle === 'none' || width < 2) return { name, problem: 'no outline' };
    const backgrounds: string[] = [];
    const middle = parseFloat(style.outlineOffset) + width / 2;
    const box = el.getBoundingClientRect();
    const sides = [
      [box.left + box.width / 2, box.top - middle],
      [box.right + middle, box.top + box.height / 2],
      [box.left + box.width / 2, box.bottom + middle],
      [box.left - middle, box.top + box.height / 2],
    ] as const;
    const backgroundAt = (from: Element) => {
      for (let at: Element | null = from; at; at = at.parentElement) {
        const bg = getComputedStyle(at).backgroundColor;
        if (bg !== 'transparent' && !bg.startsWith('rgba(0, 0, 0, 0')) return bg;
      }
      return 'rgb(255, 255, 255)';
    };
    for (const [x, y] of sides) {
      const where = `the ring at (${Math.round(x)}, ${Math.round(y)})`;
      if (x < 0 || y < 0 || x >= innerWidth || y >= innerHeight) {
        return { name, problem: `${where} is outside the window` };
      }
      for (let up = el.parentElement; up; up = up.parentElement) {
        const clip = getComputedStyle(up);
        if (clip.overflowX === 'visible' && clip.overflowY === 'visible') continue;
        const r = up.getBoundingClientRect();
        if (x < r.left || x > r.right || y < r.top || y > r.bottom) {
          return {
            name,
            problem: `${where} is cut off by ${up.tagName.toLowerCase()}.${up.className}`,
          };
        }
      }
      const hit = document.elementFromPoint(x, y);
      if (!hit || !(hit === el || el.contains(hit) || hit.contains(el))) {
        return {
          name,
          problem: `${where} is under ${hit?.tagName.toLowerCase()}.${hit?.className}`,
        };
      }
      backgrounds.push(backgroundAt(hit));
    }
    return { name, problem: '', ring: style.outlineColor, backgrounds };
  });
  if (seen.problem || !('ring' in seen)) return `${seen.name}: ${seen.problem}`;
  const faint = seen.backgrounds.find((bg) => contrast(seen.ring, bg) < 3);
  return faint ? `${seen.name}: the ring does not stand out from ${faint}` : '';
}

/** The window and the page's content scroll up and down only: nothing runs past the right edge. */
async function fitsTheWidth(page: Page, screen: string) {
  const widths = await page.evaluate(() => {
    const main = document.querySelector('main');
    return {
      page: document.documentElement.scrollWidth,
      window: document.documentElement.clientWidth,
      content: main ? main.scrollWidth - main.clientWidth : 0,
    };
  });
  expect
    .soft(widths.page, `${screen}: the page is no wider than the window`)
    .toBeLessThanOrEqual(widths.window);
  expect.soft(widths.content, `${screen}: the content is no wider than its place`).toBe(0);
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

// Issue 29: keyboard-only use of the top bar, on a wide screen and on a phone.
for (const viewport of [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
]) {
  test(`at ${viewport.width} px, Tab reaches the skip link, then each item of the top bar in order, each showing its focus; Enter follows`, async ({
    page,
  }) => {
    await page.setViewportSize(viewport);
    await signIn(page, 'creator');
    await page.goto('/about');
    await expect(page.getByRole('heading', { name: 'About', level: 1 })).toBeVisible();
    const bar = topBar(page);
    await expect(bar.locator('a[href="/profile"]')).toBeVisible();

    // The first stop: the skip link, brought into view, its ring white on the top bar's blue.
    await page.keyboard.press('Tab');
    const skip = page.getByRole('link', { name: 'Skip to content' });
    await expect(skip).toBeFocused();
    await expect(skip).toBeInViewport({ ratio: 1 });
    const ring = await focusRing(page);
    expect(ring.outlineStyle).not.toBe('none');
    expect(ring.outlineWidth).toBeGreaterThanOrEqual(2);
    const barColor = await page
      .locator('.tp-topbar')
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(contrast(ring.outlineColor, barColor)).toBeGreaterThanOrEqual(3);

    const items = [
      page.getByRole('banner').getByRole('link', { name: 'Topoplay', exact: true }),
      bar.getByRole('link', { name: 'Home', exact: true }),
      bar.getByRole('link', { name: 'About', exact: true }),
      bar.getByRole('link', { name: 'Observe', exact: true }),
      bar.locator('a[href="/profile"]'),
      bar.getByRole('button', { name: 'Logout' }),
    ];
    for (const item of items) {
      await page.keyboard.press('Tab');
      await expect(item).toBeFocused();
      await expect(item).toBeInViewport({ ratio: 1 });
      expect(await focusShows(page)).toBe('');
    }

    // Enter follows a link: back to the top bar's Home, then Enter.
    for (let i = 0; i < items.length - 2; i++) await page.keyboard.press('Shift+Tab');
    await expect(items[1]!).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('heading', { name: 'Getting Started' })).toBeVisible();
    await expect(items[1]!).toHaveAttribute('aria-current', 'page');

    // The skip link takes the focus past the top bar and the sidebar, to the page's content.
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Shift+Tab');
    await expect(skip).toBeFocused();
    await page.keyboard.press('Enter');
    await expect(page.getByRole('main')).toBeFocused();
    expect(await focusShows(page)).toBe('');
    await page.keyboard.press('Tab');
    await expect(page.getByRole('button', { name: 'Find A Space' })).toBeFocused();
  });
}

// Issue 29: once the sidebar is toggled, Tab went on to the page's scrolling content, whose ring
// the sidebar and the top bar hid. A page with nothing to focus, in a window short enough that it
// scrolls: the browser makes the scrolling content a tab stop.
for (const toggle of ['Ctrl+L', 'its button'] as const) {
  test(`after the sidebar is toggled with ${toggle}, every Tab stop shows its focus`, async ({
    page,
  }) => {
    await signIn(page, 'player');
    // As short as a phone held sideways with its keyboard open: the page's title scrolls.
    await page.setViewportSize({ width: 1280, height: 170 });
    await page.goto('/no/such/page');
    await expect(page.getByText('page-not-found!')).toBeVisible();
    const sidebar = page.getByRole('navigation', { name: 'Workspace browser' });
    if (toggle === 'Ctrl+L') {
      await page.mouse.move(900, 120);
      await page.keyboard.press('Control+l');
      await expect(sidebar).toHaveAttribute('data-state', 'expanded');
    } else {
      const pin = sidebar.getByRole('button', { name: 'Pin sidebar' });
      await tabTo(page, pin);
      await page.keyboard.press('Enter');
      await expect(sidebar).toHaveAttribute('data-pinned', 'true');
    }
    await expect(sidebar.getByRole('searchbox', { name: 'Search' })).toBeVisible();
    // The sidebar slides in: its rings are measured once it stands still.
    await sidebar.evaluate((el) =>
      Promise.all(el.getAnimations({ subtree: true }).map((a) => a.finished)),
    );
    const skip = page.getByRole('link', { name: 'Skip to content' });
    // Once round, from where the focus is back to the skip link, the first stop of the page.
    const stops: string[] = [];
    for (let i = 0; i < 40; i++) {
      await page.keyboard.press('Tab');
      if (await skip.evaluate((el) => el === document.activeElement)) {
        if (stops.length > 0) break;
        continue;
      }
      // The window's own controls, between the page's last stop and its first.
      if (await page.evaluate(() => document.activeElement === document.body)) continue;
      stops.push(await page.evaluate(() => document.activeElement?.tagName ?? ''));
      expect.soft(await focusShows(page), `stop ${i + 1}`).toBe('');
    }
    // The page's content is among the stops.
    expect(stops).toContain('MAIN');
  });
}

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
  // From a wide screen down to a small laptop's, no control of the toolbar or the line under it
  // lies over another: the buttons lose their names, or the row wraps, first.
  for (const width of [1440, 1280, 1150, 1000, 900]) {
    await page.setViewportSize({ width, height: 800 });
    expect.soft(await coveredControls(page), `console at ${width} px`).toEqual([]);
  }
});

/** The console's visible controls whose middle is under something else. */
function coveredControls(page: Page) {
  return page.evaluate(() =>
    [
      ...document.querySelectorAll(
        '.tp-console-toolbar :is(button, input:not([type=file]), select), .tp-console-strip :is(button, select)',
      ),
    ]
      .filter((el) => (el as HTMLElement).offsetParent !== null)
      .flatMap((el) => {
        const box = el.getBoundingClientRect();
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        if (hit && (hit === el || el.contains(hit) || hit.contains(el))) return [];
        return [
          `${el.getAttribute('aria-label') ?? el.textContent?.trim()} under ${hit?.className}`,
        ];
      }),
  );
}

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
  // Its instructor wall.
  await observer.getByRole('link', { name: 'Instructor wall' }).click();
  await checkScreen(
    observer,
    'instructor wall',
    `Instructor wall — ${APP}`,
    observer.getByRole('heading', { name: 'Instructor wall', level: 1 }),
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

// Issue 29: the player's pages on a phone, 390 by 844 px: nothing runs past the window's right
// edge, every item of the top bar is in view, and axe finds nothing serious.
test.describe('on a phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  /** A published workspace with a machine and a challenge, made by an author in their own window. */
  async function publishedWorkspace(browser: Browser, name: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    await signIn(page, 'creator');
    const author = await apiOf(page);
    const { id } = await author<{ id: string }>('POST', 'workspace', { name });
    const stock = await author<Array<{ id: string; name: string }>>(
      'GET',
      'templates?term=linux-server',
    );
    const parent = stock.find((t) => t.name === 'linux-server');
    await author('POST', 'template', { templateId: parent?.id, workspaceId: id });
    await author('PUT', `challenge/${id}`, CHALLENGE);
    const loaded = await author<Record<string, unknown>>('GET', `workspace/${id}`);
    await author('PUT', 'workspace', { ...loaded, audience: 'everyone', durationMinutes: 60 });
    await context.close();
    return id;
  }

  /** Every item of the top bar lies inside the window. */
  async function topBarInView(page: Page, screen: string) {
    const items = page.getByRole('banner').locator('a, button');
    for (const item of await items.all()) {
      await expect
        .soft(item, `${screen}: ${await item.textContent()}`)
        .toBeInViewport({ ratio: 1 });
    }
  }

  test("the player's pages fit the window and have no serious accessibility violations", async ({
    page,
    browser,
  }) => {
    test.setTimeout(240_000);
    const id = await publishedWorkspace(browser, 'Teal Lab');
    await signIn(page, 'player');
    await checkScreen(page, 'phone: home', `Home — ${APP}`, page.getByText('Getting Started'));
    await topBarInView(page, 'phone: home');
    await fitsTheWidth(page, 'phone: home');

    // The workspace browser, pinned open: it fills the window, no wider.
    const sidebar = page.getByRole('navigation', { name: 'Workspace browser' });
    await page.getByRole('button', { name: 'Pin sidebar' }).click();
    await expect(sidebar.getByRole('link', { name: 'Teal Lab' }).first()).toBeVisible();
    const panel = await sidebar.boundingBox();
    expect(panel && panel.x + panel.width).toBeLessThanOrEqual(390);
    await expect(sidebar.getByRole('button', { name: 'Gamespaces' })).toBeInViewport({ ratio: 1 });
    await checkScreen(page, 'phone: workspace browser', `Home — ${APP}`);
    await fitsTheWidth(page, 'phone: workspace browser');
    await page.getByRole('button', { name: 'Pin sidebar' }).click();

    // The play page: start, the machines, the questions.
    await page.goto(`/mojo/${id}`);
    const actions = page.getByRole('toolbar', { name: 'Game actions' });
    await checkScreen(page, 'phone: play page, not started', `Teal Lab — ${APP}`, actions);
    await fitsTheWidth(page, 'phone: play page, not started');
    await actions.getByRole('button', { name: 'Start' }).click();
    const start = page.getByRole('group', { name: 'Start the game?' });
    await expect(start).toBeInViewport();
    await start.getByRole('button', { name: 'Confirm' }).click();
    const resources = page.getByRole('region', { name: 'Resources' });
    const consoleButton = resources.getByRole('button', { name: 'Console' });
    await expect(consoleButton).toBeEnabled({ timeout: 30_000 });
    await consoleButton.scrollIntoViewIfNeeded();
    await expect(consoleButton).toBeInViewport({ ratio: 1 });
    const recon = page.getByRole('region', { name: 'Recon' });
    await recon.getByLabel('Answer 1.1').fill('22');
    const submit = recon.getByRole('button', { name: 'Submit' });
    await submit.scrollIntoViewIfNeeded();
    await expect(submit).toBeInViewport({ ratio: 1 });
    await checkScreen(page, 'phone: play page, in play', `Teal Lab — ${APP}`, actions);
    await topBarInView(page, 'phone: play page');
    await fitsTheWidth(page, 'phone: play page, in play');

    // A machine's console, in the tab its button opens: its toolbar fits.
    const [consolePage] = await Promise.all([
      page.context().waitForEvent('page'),
      consoleButton.click(),
    ]);
    const toolbar = consolePage.getByRole('banner', { name: 'Console toolbar' });
    await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 30_000 });
    await checkScreen(consolePage, 'phone: console', new RegExp(`^linux-server.* — ${APP}$`));
    // Every control a player sees (the file picker's own input is hidden behind Upload file).
    for (const control of await toolbar
      .locator('button:visible, input:visible, select:visible')
      .all()) {
      await expect.soft(control, 'phone: console toolbar').toBeInViewport({ ratio: 1 });
    }
    await fitsTheWidth(consolePage, 'phone: console');

    // Ended, as a player leaves it: the specs after this one share the player and its limit of
    // two running gamespaces.
    await consolePage.close();
    await endGame(page);
  });

  test("a workspace's template fields stay inside their cards", async ({ page, browser }) => {
    test.setTimeout(120_000);
    const id = await publishedWorkspace(browser, 'Jade Lab');
    await signIn(page, 'creator');
    await page.goto(`/topo/${id}/templates`);
    const template = page.getByRole('group', { name: 'Template linux-server' });
    await expect(template.getByLabel('Name')).toBeVisible({ timeout: 30_000 });
    const card = (await template.boundingBox())!;
    const fields = template.locator('input, textarea, select');
    expect(await fields.count()).toBeGreaterThan(3);
    for (const field of await fields.all()) {
      const box = (await field.boundingBox())!;
      const label = (await field.getAttribute('aria-label')) ?? (await field.getAttribute('id'));
      expect
        .soft(box.x + box.width, `${label}: right edge`)
        .toBeLessThanOrEqual(card.x + card.width);
    }
    await fitsTheWidth(page, 'phone: workspace templates');
    await checkScreen(page, 'phone: workspace templates', `Jade Lab · Templates — ${APP}`);
  });
});
