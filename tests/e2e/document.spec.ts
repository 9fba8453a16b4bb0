import { expect, test, type Page } from '@playwright/test';
import { signIn } from './support';

/** The signed-in user's Authorization header, as oidc-client-ts keeps the user. */
async function authorization(page: Page): Promise<string> {
  return page.evaluate(() => {
    const stores = [window.sessionStorage, window.localStorage];
    const stored = stores
      .flatMap((store) => Object.keys(store).map((key) => ({ store, key })))
      .find(({ key }) => key.startsWith('oidc.user:'));
    if (!stored) throw new Error('no signed-in user in storage');
    const user = JSON.parse(stored.store.getItem(stored.key) ?? '{}') as {
      access_token: string;
      token_type?: string;
    };
    return `${user.token_type || 'Bearer'} ${user.access_token}`;
  });
}

async function api(page: Page, method: string, path: string): Promise<string> {
  const auth = await authorization(page);
  return page.evaluate(
    async ({ method, path, auth }) => {
      const response = await fetch(`/api/${path}`, { method, headers: { authorization: auth } });
      if (!response.ok) throw new Error(`${method} ${path}: HTTP ${response.status}`);
      return response.text();
    },
    { method, path, auth },
  );
}

const editor = (page: Page) => page.getByTestId('document-editor');

/**
 * The editor's text as shown: Monaco renders spaces as non-breaking ones, and the rendered text
 * loses a trailing space.
 */
/** The text the editor shows, without the names it shows beside the other authors' cursors. */
const shownText = (page: Page) =>
  editor(page)
    .locator('.view-lines')
    .evaluate((root) =>
      [...root.querySelectorAll<HTMLElement>('.view-line')]
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
        .map((line) => {
          const copy = line.cloneNode(true) as HTMLElement;
          for (const name of copy.querySelectorAll('.tp-remote-cursor-name')) name.remove();
          return copy.textContent ?? '';
        })
        .join('\n')
        .replace(/\u00a0/g, ' ')
        .trimEnd(),
    );

const sorted = (text: string) => [...text.replace(/\s/g, '')].sort().join('');

test('two authors type into the document at the same time and both keep every keystroke', async ({
  browser,
}) => {
  test.setTimeout(120_000);
  const creatorContext = await browser.newContext();
  const playerContext = await browser.newContext();
  try {
    const creator = await creatorContext.newPage();
    await signIn(creator, 'creator');
    await creator.getByRole('button', { name: 'New Workspace' }).click();
    await creator.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const id = /\/topo\/([0-9a-f]{32})\//.exec(creator.url())?.[1] ?? '';
    const code = JSON.parse(await api(creator, 'PUT', `workspace/${id}/invite`)) as {
      code: string;
    };

    const player = await playerContext.newPage();
    await signIn(player, 'player');
    await player.goto(`/topo/${id}/invite/${code.code}`);
    await player.waitForURL(new RegExp(`/topo/${id}/settings$`));

    // The creator opens the Document tab: typing before it is writable says it is loading. It is
    // writable as soon as the document has loaded, so the load waits at the network until then.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    await creator.route(`**/api/document/${id}/crdt`, async (route) => {
      await released;
      await route.continue();
    });
    await creator.getByRole('link', { name: 'Document' }).click();
    // Monaco loads on demand: on a busy machine that takes a while.
    await expect(editor(creator).locator('.view-lines')).toBeVisible({ timeout: 30_000 });
    await editor(creator).locator('.view-lines').click();
    await creator.keyboard.type('x');
    await expect(
      editor(creator).locator('.monaco-editor-overlaymessage', { hasText: 'Loading document...' }),
    ).toBeVisible();
    release();
    await expect(editor(creator)).toHaveAttribute('data-readonly', 'false', { timeout: 30_000 });
    await creator.keyboard.type('# Lab guide ');

    await player.getByRole('link', { name: 'Document' }).click();
    await expect(editor(player)).toHaveAttribute('data-readonly', 'false', { timeout: 30_000 });
    await expect.poll(() => shownText(player)).toBe('# Lab guide');

    // Both type at the end at once, keystrokes interleaving on the wire.
    await editor(player).locator('.view-lines').click();
    await player.keyboard.press('Control+End');
    await editor(creator).locator('.view-lines').click();
    await creator.keyboard.press('Control+End');
    const fromCreator = 'alpha bravo charlie delta ';
    const fromPlayer = 'one two three four five ';
    await Promise.all([
      creator.keyboard.type(fromCreator, { delay: 25 }),
      player.keyboard.type(fromPlayer, { delay: 25 }),
    ]);

    // Both editors converge on one text holding every typed character, and it is saved.
    const expected = sorted(`# Lab guide ${fromCreator}${fromPlayer}`);
    await expect.poll(() => shownText(creator).then(sorted), { timeout: 15_000 }).toBe(expected);
    await expect.poll(() => shownText(player).then(sorted), { timeout: 15_000 }).toBe(expected);
    const text = await shownText(creator);
    expect(await shownText(player)).toBe(text);
    await expect(creator.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible({
      timeout: 15_000,
    });
    await expect
      .poll(() => api(player, 'GET', `document/${id}`).then((saved) => saved.trimEnd()), {
        timeout: 15_000,
      })
      .toBe(text);

    // The Preview renders the shared text.
    await player.getByRole('button', { name: 'Preview' }).click();
    await expect(player.getByLabel('Preview').getByRole('heading', { level: 1 })).toContainText(
      'Lab guide',
    );
    await player.screenshot({ path: test.info().outputPath('document.png'), fullPage: true });
  } finally {
    await creatorContext.close();
    await playerContext.close();
  }
});
