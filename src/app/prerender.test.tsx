import { describe, expect, it } from 'vitest';
import { APP_NAME_SLOT, HOME_ITSELF } from '../domain/homePage';
import { renderHomePage } from './prerender';

const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <title>Topoplay</title>
    <script type="module" crossorigin src="/assets/index-abc.js"></script>
  </head>
  <body>
    <div id="root"></div>
  </body>
</html>`;

describe('the prerendered home page', () => {
  it("is index.html with home's title and the app's first render of / in its root", async () => {
    const page = await renderHomePage(INDEX);
    expect(page).toContain(`<title>Home — ${APP_NAME_SLOT}</title>`);
    expect(page).toContain(
      '<script type="module" crossorigin src="/assets/index-abc.js"></script>',
    );
    const root = /<div id="root">(.*)<\/div>\s*<\/body>/s.exec(page)?.[1] ?? '';
    // The shell, signed out as every visitor is before the session check settles.
    // Its first stop is the skip link; the brand leads to home itself.
    expect(root).toMatch(/^<div class="tp-app"><a class="tp-skip-link" href="#main-content">/);
    expect(root).toContain(
      `<a class="tp-brand" href="${HOME_ITSELF}" data-discover="true">${APP_NAME_SLOT}</a>`,
    );
    expect(root).toContain('aria-label="Workspace browser" data-state="collapsed"');
    // Its pin button does nothing before the app has taken the page over.
    expect(root).toMatch(/<button [^>]*aria-label="Pin sidebar"[^>]* disabled=""/);
    expect(root).not.toContain('Logout');
    // Home: the title and tagline, then the check of the session, never its outcome.
    expect(root).toContain(`<h1>${APP_NAME_SLOT}</h1>`);
    expect(root).toContain('a simple virtual topology builder and player');
    expect(root).toContain('role="status" aria-label="Checking your session"');
    expect(root).not.toContain('Please login to continue.');
    expect(root).not.toContain('Getting Started');
    // No script of its own: the page's policy allows none inline.
    expect(root).not.toContain('<script');
  });

  it('refuses an index.html it cannot fill', async () => {
    await expect(renderHomePage('<!doctype html><title>x</title><main></main>')).rejects.toThrow(
      /no <div id="root"><\/div>/,
    );
  });
});
