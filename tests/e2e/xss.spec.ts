import { expect, test, type Browser, type Page } from '@playwright/test';
import { accessToken, apiOf, signIn } from './support';
import { corpusDocument, MARKER, vectorsWithin, xssVectors } from './xssCorpus';

// The XSS corpus (xssCorpus.ts) in every place user text is rendered, in Chromium against the real
// server (issue 12, "keep it closed"): the guide, the challenge's texts, names and questions,
// workspace names, descriptions, tags and authors, template names and descriptions, gamespace and
// player names; on every screen that shows them: the workspace browser, the workspace editor's
// tabs, the play page before and after the start. A vector that runs calls `__xss.push(id)` or
// `alert(id)`: both are caught. Since a Content-Security-Policy may stop a vector that the
// sanitizer let through, each screen's DOM is also searched for markup that could run: the test
// proves the sanitizing, not the policy.

interface Finding {
  screen: string;
  /** Marker calls and alert/confirm/prompt calls, in every frame. */
  executed: unknown[];
  dialogs: string[];
  markup: string[];
  /** Whether the network went quiet: a screen that never does may be a vector looping. */
  quiet: boolean;
}

/** Everything in the page that could run script, whoever put it there (run in the page). */
function dangerousMarkup(): string[] {
  const found: string[] = [];
  const runs = new Set(['SCRIPT', 'IFRAME', 'FRAME', 'FRAMESET', 'OBJECT', 'EMBED', 'APPLET']);
  const rewrites = new Set(['BASE', 'META', 'LINK']);
  // In rendered markdown, also what could pose as the app (forms, styles) or hide script (SVG).
  const notInMarkdown = new Set([
    'FORM',
    'BUTTON',
    'TEXTAREA',
    'SELECT',
    'STYLE',
    'SVG',
    'MATH',
    'DIALOG',
    'NOSCRIPT',
  ]);
  const urlAttributes = new Set([
    'href',
    'src',
    'action',
    'formaction',
    'xlink:href',
    'data',
    'poster',
    'background',
    'cite',
  ]);
  // Characters a browser ignores inside a URL's scheme (`java\tscript:`).
  // eslint-disable-next-line no-control-regex -- control characters are what it removes
  const ignored = /[\u0000-\u0020\u007f-\u00a0\u1680\u180e\u2000-\u2029\u205f\u3000\ufeff]/g;
  // Through the prototypes: markup can shadow a document's or a form's own properties (an
  // <img name=getElementById>, an <input name=tagName> in a form), and the judge must not be fooled.
  const getter = (name: string) => Object.getOwnPropertyDescriptor(Element.prototype, name)!.get!;
  const tagOf = getter('tagName');
  const htmlOf = getter('outerHTML');
  const { closest, getAttribute, getAttributeNames, querySelectorAll } = Element.prototype;
  const root = Document.prototype.getElementById.call(document, 'root');
  if (!root) return ['no #root'];
  for (const element of Array.from(querySelectorAll.call(root, '*'))) {
    const tag = String(tagOf.call(element)).toUpperCase();
    const box = closest.call(element, '.tp-markdown');
    const markdown = box !== null && box !== element;
    const where = markdown ? 'markdown' : 'page';
    const html = String(htmlOf.call(element)).slice(0, 160);
    if (runs.has(tag) || rewrites.has(tag) || (markdown && notInMarkdown.has(tag))) {
      found.push(`${where}: <${tag.toLowerCase()}> ${html}`);
    }
    for (const name of getAttributeNames.call(element)) {
      const value = getAttribute.call(element, name) ?? '';
      if (name.startsWith('on') || name === 'srcdoc' || (markdown && name === 'style')) {
        found.push(`${where}: ${name} on <${tag.toLowerCase()}> ${html}`);
      }
      if (urlAttributes.has(name)) {
        const url = value.replace(ignored, '').toLowerCase();
        const rasterImage =
          tag === 'IMG' && name === 'src' && /^data:image\/(png|jpeg|gif|webp);/.test(url);
        if (/^(javascript|vbscript|data):/.test(url) && !rasterImage) {
          found.push(`${where}: ${name}=${value.slice(0, 80)} on <${tag.toLowerCase()}>`);
        }
      }
    }
  }
  return found;
}

/** Where the init script keeps the real alert (a symbol's key, out of the vectors' reach by name). */
const REAL_ALERT = 'xss.realAlert';

/**
 * A page whose every frame records vector calls in `__xss`. alert, confirm and prompt record their
 * call there too instead of opening a dialog: a real dialog takes the focus, and an autofocused
 * element with an onfocus vector would then alert for ever. Dialogs that open all the same (from
 * a frame the script did not reach) are recorded by the dialog handler.
 */
async function armedPage(browser: Browser) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  await context.addInitScript(
    ([marker, realAlert]) => {
      const calls: unknown[] = [];
      const page = window as unknown as Record<string, unknown>;
      page[marker] = calls;
      // The real alert stays reachable for the detectors' own check.
      Object.defineProperty(window, Symbol.for(realAlert), { value: window.alert.bind(window) });
      for (const name of ['alert', 'confirm', 'prompt']) {
        page[name] = (message: unknown) => {
          calls.push(`${name}(${String(message)})`);
          return null;
        };
      }
    },
    [MARKER, REAL_ALERT] as const,
  );
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  return { context, page, dialogs };
}

/** How long a screen may keep loading (a vector that runs may keep it busy). */
const QUIET_MS = 15_000;
/** How long a frame's marker calls may take to read. */
const FRAME_READ_MS = 2_000;

/**
 * What ran and what could run on the page as it is now: dangerous markup in the app's root,
 * then, once the network is quiet, marker calls in every frame and dialogs since the last look.
 */
async function observe(page: Page, dialogs: string[], screen: string): Promise<Finding> {
  const markup = await page
    .evaluate(dangerousMarkup)
    .catch((error: unknown) => [`the page could not be read: ${String(error)}`]);
  // An image that fails (src=x) fires its handler once its request has ended: wait until the
  // network has been quiet, so that every handler that would fire has fired.
  const quiet = await page.waitForLoadState('networkidle', { timeout: QUIET_MS }).then(
    () => true,
    () => false,
  );
  const executed: unknown[] = [];
  for (const frame of page.frames()) {
    const read = frame.evaluate(
      (marker) => (window as unknown as Record<string, unknown[]>)[marker] ?? [],
      MARKER,
    );
    // A frame that went away meanwhile, or one that never answers (a frame a vector navigated
    // to an error page or a script URL): nothing to read there.
    let timer: ReturnType<typeof setTimeout> | undefined;
    const unanswered = new Promise<unknown[]>((resolve) => {
      timer = setTimeout(() => resolve([]), FRAME_READ_MS);
    });
    executed.push(...(await Promise.race([read.catch(() => []), unanswered])));
    clearTimeout(timer);
  }
  return { screen, executed, dialogs: dialogs.splice(0), markup, quiet };
}

/** Observes the screen and expects nothing that ran or could run (soft: every screen reports). */
async function inspect(page: Page, dialogs: string[], screen: string): Promise<Finding> {
  const finding = await observe(page, dialogs, screen);
  expect.soft(finding, `what ran or could run on the ${screen}`).toEqual({
    screen,
    executed: [],
    dialogs: [],
    markup: [],
    quiet: true,
  });
  return finding;
}

const GUIDE_HEADING = 'Guide of the XSS lab';
const CHALLENGE_HEADING = 'Challenge of the XSS lab';
const VARIANT_HEADING = 'Variant of the XSS lab';
/** Question sets the corpus is spread over: each set's text is rendered on its own. */
const SETS = 8;
/** Workspaces besides the main one, so that the browser lists many names. */
const EXTRA_WORKSPACES = 12;
/** Guests enlisted into the game under vector names. */
const GUESTS = 6;

async function confirm(page: Page, question: string) {
  const prompt = page.getByRole('group', { name: question });
  await expect(prompt).toBeVisible();
  await prompt.getByRole('button', { name: 'Confirm' }).click();
}

/** Opens the sidebar's workspace browser (Ctrl+O) unless it is open, in the given mode. */
async function openBrowser(page: Page, mode: 'Workspaces' | 'Gamespaces', list: string) {
  const browse = page.getByRole('navigation', { name: 'Workspace browser' });
  if ((await browse.getAttribute('data-state')) !== 'expanded') {
    await page.keyboard.press('Control+o');
    await expect(browse).toHaveAttribute('data-state', 'expanded');
  }
  await browse.getByRole('button', { name: mode }).click();
  await expect(browse.getByRole('list', { name: list }).getByRole('listitem')).not.toHaveCount(0);
}

test('the detectors see a handler that runs, a dialog and markup that could run', async ({
  browser,
}) => {
  const { context, page, dialogs } = await armedPage(browser);
  await page.goto('/about');
  await expect(page.locator('#root')).not.toBeEmpty();
  const shown = page.waitForEvent('dialog');
  // Set from a script rather than as markup, so that a Content-Security-Policy lets it run.
  await page.evaluate(
    ([marker, realAlert]) => {
      const root = document.getElementById('root')!;
      const image = document.createElement('img');
      image.onerror = () => {
        (window as unknown as Record<string, unknown[]>)[marker]!.push(0);
        window.alert('recorded');
      };
      image.src = 'x';
      const markdown = document.createElement('article');
      markdown.className = 'tp-markdown';
      markdown.innerHTML = '<a href="java&#9;script:void 0">x</a><form></form><svg></svg>';
      markdown.firstElementChild!.setAttribute('onclick', 'void 0');
      root.append(image, markdown);
      // The real alert, which the recorder stands in front of: what a frame without it would do.
      const real = (window as unknown as Record<symbol, (message: string) => void>)[
        Symbol.for(realAlert)
      ]!;
      setTimeout(() => real('shown'));
    },
    [MARKER, REAL_ALERT] as const,
  );
  await shown;
  const finding = await observe(page, dialogs, 'control page');
  expect(finding.executed).toEqual([0, 'alert(recorded)']);
  expect(finding.dialogs).toEqual(['alert: shown']);
  const seen = (start: string) => finding.markup.filter((m) => m.startsWith(start)).length;
  expect(finding.markup).toHaveLength(4);
  expect(seen('markdown: onclick on <a>')).toBe(1);
  expect(seen('markdown: href=java\tscript:void 0 on <a>')).toBe(1);
  expect(seen('markdown: <form>')).toBe(1);
  expect(seen('markdown: <svg>')).toBe(1);
  await context.close();
});

test('the XSS corpus runs nowhere user text is rendered', async ({ browser }) => {
  test.setTimeout(120_000);
  const vectors = xssVectors();
  const oneLine = (max: number) => vectorsWithin(max).filter((v) => !v.text.includes('\n'));
  const short = oneLine(64);
  const medium = vectorsWithin(255);
  // Successive fields get successive vectors, so that every field shows others.
  let next = 0;
  const shortOne = () => short[next++ % short.length]!.text;
  const mediumOne = () => medium[next++ % medium.length]!.text;
  // Each question set's text is a document of its own: a share of the corpus, and one of the
  // open-ended vectors, which only the end of a document shows as written.
  const closed = vectors.filter((v) => !v.openEnded);
  const openEnded = vectors.filter((v) => v.openEnded);
  expect(openEnded.length).toBeLessThanOrEqual(SETS);
  const setText = (s: number) =>
    corpusDocument(`Question set ${s + 1} of the XSS lab`, [
      ...closed.filter((_, index) => index % SETS === s),
      ...openEnded.slice(s, s + 1),
    ]);
  const findings: Finding[] = [];

  const author = await armedPage(browser);
  await signIn(author.page, 'creator');
  const api = await apiOf(author.page);

  // The main workspace: its text fields, the guide, the challenge and two templates.
  const { id } = await api<{ id: string }>('POST', 'workspace', { name: 'xss main' });
  const mainName = shortOne();
  const settings = await api<Record<string, unknown>>('GET', `workspace/${id}`);
  await api('PUT', 'workspace', {
    ...settings,
    name: mainName,
    description: mediumOne(),
    tags: mediumOne(),
    author: shortOne(),
    audience: 'everyone',
    durationMinutes: 60,
  });
  const saved = await author.page.request.put(`/api/document/${id}`, {
    headers: {
      authorization: `Bearer ${await accessToken(author.page)}`,
      'content-type': 'text/plain',
    },
    data: corpusDocument(GUIDE_HEADING, vectors),
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  // The play page shows the challenge's text and the variant's as one document.
  const challengeText = corpusDocument(CHALLENGE_HEADING, closed);
  await api('PUT', `challenge/${id}`, {
    text: challengeText,
    transforms: [],
    variants: [
      {
        text: corpusDocument(VARIANT_HEADING, vectors),
        sections: Array.from({ length: SETS }, (_, s) => ({
          name: shortOne(),
          text: setText(s),
          preReqPrevSection: 0,
          preReqTotal: 0,
          questions: [0, 1].map(() => ({
            text: mediumOne(),
            hint: mediumOne(),
            example: mediumOne(),
            answer: 'x',
            weight: 1,
            grader: 'match',
          })),
        })),
      },
    ],
  });
  const [stock] = await api<Array<{ id: string }>>('GET', 'templates?term=linux-server');
  const templateNames: string[] = [];
  for (let t = 0; t < 2; t++) {
    const linked = await api<Record<string, unknown>>('POST', 'template', {
      templateId: stock?.id,
      workspaceId: id,
    });
    const name = shortOne();
    templateNames.push(name);
    await api('PUT', 'template', { ...linked, name, description: mediumOne() });
  }

  // More workspaces, open to everyone, for the browser's lists.
  for (let w = 0; w < EXTRA_WORKSPACES; w++) {
    const extra = await api<{ id: string }>('POST', 'workspace', { name: `xss ${w}` });
    const fields = await api<Record<string, unknown>>('GET', `workspace/${extra.id}`);
    await api('PUT', 'workspace', {
      ...fields,
      name: shortOne(),
      description: mediumOne(),
      tags: mediumOne(),
      author: shortOne(),
      audience: 'everyone',
    });
  }

  type Viewer = Awaited<ReturnType<typeof armedPage>>;
  const visit = async (
    who: Viewer,
    path: string,
    screen: string,
    ready: (page: Page) => Promise<void>,
  ) => {
    await who.page.goto(path);
    await ready(who.page);
    findings.push(await inspect(who.page, who.dialogs, screen));
  };

  // The author: the workspace browser, then every tab of the workspace editor.
  await visit(author, '/', 'workspace browser', (page) =>
    openBrowser(page, 'Workspaces', 'My Workspaces'),
  );
  const tab = (section: string) => `/topo/${id}/${section}`;
  await visit(author, tab('settings'), 'settings tab', async (page) => {
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue(mainName);
  });
  await visit(author, tab('templates'), 'templates tab', async (page) => {
    await expect(page.getByLabel('Name', { exact: true })).toHaveCount(templateNames.length);
  });
  await visit(author, tab('document'), 'document tab, editor', async (page) => {
    await expect(page.getByText(`# ${GUIDE_HEADING}`)).toBeVisible();
  });
  await author.page.getByRole('button', { name: 'Preview' }).click();
  await expect(author.page.getByRole('heading', { name: GUIDE_HEADING })).toBeVisible();
  findings.push(await inspect(author.page, author.dialogs, 'document tab, preview'));
  await visit(author, tab('challenge'), 'challenge tab', async (page) => {
    await expect(page.getByLabel('Challenge text (markdown)')).toHaveValue(challengeText);
  });
  await visit(author, tab('files'), 'files tab', async (page) => {
    await expect(page.getByRole('navigation', { name: 'Workspace sections' })).toBeVisible();
  });
  await visit(author, tab('play'), 'play tab', async (page) => {
    await expect(page.getByRole('form', { name: 'Launch settings' })).toBeVisible();
  });

  // A player: the play page before the start (the preview), then the game in play, with guests
  // enlisted under vector names, its machines' consoles and the player's gamespace list.
  const player = await armedPage(browser);
  await signIn(player.page, 'player');
  await visit(player, `/mojo/${id}`, 'play page before the start', async (page) => {
    await expect(page.getByRole('heading', { name: GUIDE_HEADING })).toBeVisible();
  });
  const actions = player.page.getByRole('toolbar', { name: 'Game actions' });
  await actions.getByRole('button', { name: 'Start' }).click();
  await confirm(player.page, 'Start the game?');
  await expect(actions.getByRole('button', { name: 'End' })).toBeVisible({ timeout: 20_000 });
  const playerApi = await apiOf(player.page);
  const games = await playerApi<Array<{ id: string; workspaceId: string }>>('GET', 'gamespaces');
  const gameId = games.find((g) => g.workspaceId === id)?.id;
  expect(gameId).toBeDefined();
  const { code } = await playerApi<{ code: string }>('POST', `gamespace/${gameId}/invite`);
  for (let g = 0; g < GUESTS; g++) {
    const enlisted = await player.page.request.put('/api/player/enlist', {
      data: { code, subjectName: shortOne() },
    });
    expect(enlisted.ok(), await enlisted.text()).toBe(true);
  }
  await visit(player, `/mojo/${id}`, 'play page in play', async (page) => {
    const quiz = page.getByRole('region', { name: 'Challenge' });
    await expect(quiz.getByRole('heading', { name: CHALLENGE_HEADING })).toBeVisible();
    await expect(quiz.getByRole('heading', { name: VARIANT_HEADING })).toBeVisible();
    await expect(quiz.getByLabel(/^Answer \d+\.\d+$/)).toHaveCount(SETS * 2);
    for (let s = 0; s < SETS; s++) {
      await expect(
        quiz.getByRole('heading', { name: `Question set ${s + 1} of the XSS lab` }),
      ).toBeVisible();
    }
    for (const name of templateNames) {
      await expect(page.getByText(name, { exact: true }).first()).toBeVisible();
    }
  });
  const state = await playerApi<{ vms: Array<{ id: string; name: string }> }>(
    'GET',
    `gamespace/${gameId}`,
  );
  expect(state.vms.length).toBeGreaterThan(0);
  for (const vm of state.vms) {
    await visit(player, `/console/${vm.id}/${encodeURIComponent(vm.name)}`, 'console', (page) =>
      expect(page.getByRole('heading', { name: vm.name, exact: true })).toBeVisible(),
    );
  }
  await visit(player, '/', 'gamespace browser', (page) =>
    openBrowser(page, 'Gamespaces', 'Active Gamespaces'),
  );

  const screens = findings.map((f) => f.screen);
  console.log(
    `XSS corpus: ${vectors.length} vectors; ${screens.length} screens inspected: ${screens.join(', ')}`,
  );
});
