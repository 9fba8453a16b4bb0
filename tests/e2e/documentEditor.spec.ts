import { expect, test, type Page } from '@playwright/test';
import { accessToken, signIn } from './support';

// Issue 27: a new author opens the Document tab of a workspace with a guide. The tab says that
// the document is loading (visibly, and as a status for assistive technology), the editor is
// read-only meanwhile and says so to someone typing, and then the guide shows in the editor,
// writable: what is typed is kept and saved. The document's log is held at the network until
// the test has seen the loading state, so that the test waits on conditions, not on timing.

const GUIDE = '# Lab guide\n\nStart the machines, then answer the questions.\n';

const editor = (page: Page) => page.getByTestId('document-editor');

/** The editor's text as shown (Monaco renders spaces as non-breaking ones), line by line. */
const shownText = (page: Page) =>
  editor(page)
    .locator('.view-lines')
    .evaluate((root) =>
      [...root.querySelectorAll<HTMLElement>('.view-line')]
        .sort((a, b) => parseFloat(a.style.top) - parseFloat(b.style.top))
        .map((line) => line.textContent ?? '')
        .join('\n')
        .replace(/\u00a0/g, ' ')
        .trimEnd(),
    );

async function documentRequest(page: Page, method: 'GET' | 'PUT', id: string, text?: string) {
  const response = await page.request.fetch(`/api/document/${id}`, {
    method,
    headers: {
      Authorization: `Bearer ${await accessToken(page)}`,
      'Content-Type': 'text/plain',
    },
    data: text,
  });
  expect(response.ok(), `${method} document/${id}: ${response.status()}`).toBe(true);
  return response.text();
}

test('the Document tab shows loading, then the guide, and the editor takes typing', async ({
  page,
}) => {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  await documentRequest(page, 'PUT', id, GUIDE);

  // The document's log waits at the network until the test lets it through.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let held = false;
  await page.route(`**/api/document/${id}/crdt`, async (route) => {
    held = true;
    await released;
    await route.continue();
  });

  await page.getByRole('link', { name: 'Document' }).click();
  const loading = page.getByRole('status', { name: 'Loading document' });
  // What sighted users read over the blank editor (the status above is what a reader announces).
  const loadingText = page.locator('.tp-document-loading', { hasText: 'Loading document...' });
  await expect(loading).toBeVisible();
  await expect(loadingText).toBeVisible();
  // The log is asked for while Monaco loads, not after it.
  await expect.poll(() => held).toBe(true);

  // Monaco is there, but the document is not: read-only, and typing says it is loading.
  await expect(editor(page).locator('.view-lines')).toBeVisible({ timeout: 30_000 });
  await expect(editor(page)).toHaveAttribute('data-readonly', 'true');
  await expect(loading).toBeVisible();
  await expect(page.getByRole('button', { name: 'Save' })).toBeDisabled();
  await editor(page).locator('.view-lines').click();
  await page.keyboard.type('x');
  await expect(
    editor(page).locator('.monaco-editor-overlaymessage', { hasText: 'Loading document...' }),
  ).toBeVisible();

  release();
  await expect(editor(page).locator('.view-lines')).toContainText('Lab guide');
  await expect(loading).toBeHidden();
  await expect(loadingText).toBeHidden();
  await expect(editor(page)).toHaveAttribute('data-readonly', 'false');
  expect(await shownText(page)).toBe(GUIDE.trimEnd());

  // Writable: what is typed shows, and Save stores it.
  await editor(page).locator('.view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type('Typed at once.');
  await expect.poll(() => shownText(page)).toBe(`${GUIDE}Typed at once.`);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect
    .poll(() => documentRequest(page, 'GET', id).then((text) => text.trimEnd()))
    .toBe(`${GUIDE}Typed at once.`);
});

test('the Document tab warns of ##key## placeholders in the guide and styles inline code in the preview', async ({
  page,
}) => {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  await documentRequest(page, 'PUT', id, 'Scan ##target## with `nmap -sV`.\n');

  await page.getByRole('link', { name: 'Document' }).click();
  await expect(editor(page)).toHaveAttribute('data-readonly', 'false', { timeout: 30_000 });
  // Players would read ##target## as written: the tab says so, and where keys are replaced.
  await expect(page.getByRole('note')).toHaveText(
    "Players see ##target## as written: placeholders are replaced only in the challenge and in templates' guest settings, not in this guide.",
  );

  await page.getByRole('button', { name: 'Preview' }).click();
  const code = page.getByRole('article', { name: 'Document preview' }).locator('code');
  await expect(code).toHaveText('nmap -sV');
  const style = await code.evaluate((element) => {
    const computed = getComputedStyle(element);
    return {
      background: computed.backgroundColor,
      border: computed.borderTopStyle,
      padding: computed.paddingLeft,
    };
  });
  expect(style.background).not.toBe('rgba(0, 0, 0, 0)');
  expect(style.border).toBe('solid');
  expect(style.padding).not.toBe('0px');
  await page.screenshot({ path: test.info().outputPath('document-placeholders.png') });

  // A guide without placeholders has nothing to warn of.
  await editor(page).locator('.view-lines').click();
  await page.keyboard.press('Control+A');
  await page.keyboard.type('Plain guide.');
  await expect(page.getByRole('note')).toHaveCount(0);
});
