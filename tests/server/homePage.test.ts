import { mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APP_NAME_SLOT, HOME_PAGE_FILE, RESTORE_PENDING_COOKIE } from '../../src/domain/homePage';
import { startTestServer, type TestServer } from './harness';

// `/` gets the home page the build rendered (home.html) with the configured name written in, so
// that the browser paints it from the HTML; every other page, and `/` when the SPA is about to
// leave home for a remembered page, gets the plain index.html.

const INDEX = '<!doctype html><title>Topoplay</title><div id="root"></div>';
const home = (marker: string) =>
  `<!doctype html><title>Home — ${APP_NAME_SLOT}</title>` +
  `<div id="root"><main><h1>${APP_NAME_SLOT}</h1><p>${marker}</p></main></div>`;
/** Long enough to be worth compressing, so that the encodings differ from the page itself. */
const FIRST_BUILD = `first build ${'padding '.repeat(200)}`;
const APP_NAME = 'Labs <R&D> "West"';

describe('the home page', () => {
  let server: TestServer;
  let spaDir: string;
  beforeAll(async () => {
    spaDir = mkdtempSync(join(tmpdir(), 'topoplay-spa-'));
    writeFileSync(join(spaDir, 'index.html'), INDEX);
    writeFileSync(join(spaDir, HOME_PAGE_FILE), home(FIRST_BUILD));
    server = await startTestServer({ env: { TOPOPLAY_SPA: spaDir, APP_NAME } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(spaDir, { recursive: true, force: true });
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, { headers });

  it('is sent on / with the configured name written in as HTML text', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(res.headers.get('cache-control')).toBe('no-cache');
    expect(res.headers.get('vary')).toBe('Accept-Encoding, Cookie');
    const page = await res.text();
    expect(page).toContain('<h1>Labs &lt;R&amp;D&gt; &quot;West&quot;</h1>');
    expect(page).toContain('<title>Home — Labs &lt;R&amp;D&gt; &quot;West&quot;</title>');
    expect(page).not.toContain(APP_NAME_SLOT);
  });

  it('is compressed as the browser accepts: brotli first, then gzip, else not at all', async () => {
    const cases: Array<[string, string | null]> = [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip, br;q=0', 'gzip'],
      ['identity', null],
    ];
    for (const [accepted, encoding] of cases) {
      const res = await get('/', { 'Accept-Encoding': accepted });
      expect(res.headers.get('content-encoding'), accepted).toBe(encoding);
      // fetch decodes the body as the header says.
      expect(await res.text(), accepted).toContain(FIRST_BUILD);
    }
  });

  it('keeps the policy that allows no inline script', async () => {
    const res = await get('/');
    const policy = res.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("script-src 'self'");
    expect(policy).toContain("script-src-attr 'none'");
  });

  it('is never sent for another page, nor as a file of its own', async () => {
    for (const path of ['/topo/some-id', '/topo/some-id/settings', '/admin', '/home.html']) {
      const res = await get(path);
      expect(res.status, path).toBe(200);
      expect(await res.text(), path).toBe(INDEX);
    }
  });

  it('gives way to the plain page while the SPA keeps a page to go back to', async () => {
    const res = await get('/', { Cookie: `other=1; ${RESTORE_PENDING_COOKIE}=1` });
    expect(await res.text()).toBe(INDEX);
    const cleared = await get('/', { Cookie: `${RESTORE_PENDING_COOKIE}=` });
    expect(await cleared.text()).toContain(FIRST_BUILD);
  });

  it('follows a new build without a restart', async () => {
    const file = join(spaDir, HOME_PAGE_FILE);
    writeFileSync(file, home('second build'));
    // A build a moment later, whatever the file system's timestamp resolution.
    const later = new Date(Date.now() + 5_000);
    utimesSync(file, later, later);
    expect(await (await get('/')).text()).toContain('second build');
    rmSync(file);
    expect(await (await get('/')).text()).toBe(INDEX);
  });
});
