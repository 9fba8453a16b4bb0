import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from '@playwright/test';
import { CHROMIUM } from '../../playwright.config';
import { serveGzipped, type StaticSite } from './gzipStatic';
import { freePort } from './processes';

// npm run bench:wire: what the signed-out home page costs a new visitor, loaded cold in Chromium
// (cache disabled) from our own server: every response's encoded bytes, headers included, as
// the DevTools protocol counts them, and when the page's title was first painted. The release
// build (dist/, dist-server/) on a fresh data folder, started as an operator starts it.
//
// The title is the home page's h1, the application's name (ours: `Topoplay` in .tp-hero;
// topomojo-ui's: `TopoMojo` in .jambotron): the first thing a visitor reads. Its paint time is
// Chromium's own, by the Element Timing API: a script that runs before the page's own marks the
// first h1 with an `elementtiming` attribute as the page inserts it, before it can be painted, and
// the browser reports the frame in which its text was drawn, from navigation start. Neither
// app's markup changes, and no polling interval blurs the figure.
//
// BENCH_REFERENCE_DIR=<topomojo-ui's built dist> serves that folder beside ours as its nginx
// image does, gzipped (./gzipStatic.ts), with a settings file naming an identity provider (its
// start-up waits for one; a signed-out visitor never contacts it), and the cold loads alternate
// between the two. Without it, only ours is loaded and its bytes are compared with the figure
// measured for issue 27. BENCH_LOADS cold loads of each (7) after one warm-up load of each; the
// figures are medians.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const REFERENCE_BYTES = 591_414;
const PAINT_TIMEOUT_MS = 30_000;

interface Load {
  bytes: number;
  responses: Array<{ url: string; bytes: number; encoding: string }>;
  /** When the title's text was first painted, in ms from navigation start. */
  titlePaint: number;
  title: string;
  firstContentfulPaint: number;
}

/** What the page-side script below uses of the DOM, whose types this program does not load. */
interface PageNode {
  nodeType: number;
  textContent: string | null;
  matches(selector: string): boolean;
  querySelector(selector: string): PageNode | null;
  setAttribute(name: string, value: string): void;
}
interface ElementTiming {
  identifier: string;
  renderTime: number;
  loadTime: number;
  element: PageNode | null;
}
interface PageGlobals {
  __title?: { time: number; text: string };
  document: unknown;
  PerformanceObserver: new (callback: (list: { getEntries(): ElementTiming[] }) => void) => {
    observe(options: { type: 'element'; buffered: boolean }): void;
  };
  MutationObserver: new (
    callback: (
      records: { addedNodes: ArrayLike<PageNode> }[],
      observer: { disconnect(): void },
    ) => void,
  ) => { observe(target: unknown, options: { childList: boolean; subtree: boolean }): void };
}

/** In the page, before its scripts: marks the first h1 for Element Timing as it is inserted. */
function watchTitle() {
  const page = globalThis as unknown as PageGlobals;
  new page.PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      if (entry.identifier === 'title' && !page.__title) {
        page.__title = {
          time: entry.renderTime || entry.loadTime,
          text: entry.element?.textContent?.trim() ?? '',
        };
      }
    }
  }).observe({ type: 'element', buffered: true });
  new page.MutationObserver((records, observer) => {
    for (const node of records.flatMap((record) => Array.from(record.addedNodes))) {
      const title =
        node.nodeType !== 1 ? null : node.matches('h1') ? node : node.querySelector('h1');
      if (title) {
        title.setAttribute('elementtiming', 'title');
        observer.disconnect();
        return;
      }
    }
  }).observe(page.document, { childList: true, subtree: true });
}

async function coldLoad(browser: Browser, origin: string): Promise<Load> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.addInitScript(watchTitle);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const responses = new Map<string, { url: string; encoding: string }>();
    const bytes = new Map<string, number>();
    cdp.on('Network.responseReceived', (e) => {
      const headers = e.response.headers as Record<string, string>;
      responses.set(e.requestId, {
        url: e.response.url.replace(origin, ''),
        encoding: headers['content-encoding'] ?? headers['Content-Encoding'] ?? '-',
      });
    });
    cdp.on('Network.loadingFinished', (e) => bytes.set(e.requestId, e.encodedDataLength));
    await page.goto(`${origin}/`, { waitUntil: 'networkidle' });
    const painted = await page.waitForFunction(
      () => (globalThis as unknown as PageGlobals).__title,
      undefined,
      { timeout: PAINT_TIMEOUT_MS },
    );
    // waitForFunction resolves once the value is truthy.
    const title = (await painted.jsonValue())!;
    const firstContentfulPaint = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
    );
    const list = [...bytes].map(([id, n]) => ({
      url: responses.get(id)?.url ?? id,
      encoding: responses.get(id)?.encoding ?? '-',
      bytes: n,
    }));
    return {
      bytes: list.reduce((sum, r) => sum + r.bytes, 0),
      responses: list.sort((a, b) => b.bytes - a.bytes),
      titlePaint: title.time,
      title: title.text,
      firstContentfulPaint,
    };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const ms = (values: number[]) => values.map((v) => v.toFixed(0)).join(', ');

function report(name: string, loads: Load[]) {
  const last = loads[loads.length - 1]!;
  console.log(`\n## ${name}: "${last.title}"\n`);
  console.log('| response | encoding | bytes on the wire |');
  for (const r of last.responses) console.log(`| ${r.url} | ${r.encoding} | ${r.bytes} |`);
  const bytes = median(loads.map((l) => l.bytes));
  const title = median(loads.map((l) => l.titlePaint));
  console.log(`\ncold loads: ${loads.map((l) => l.bytes).join(', ')} B; median ${bytes} B`);
  console.log(
    `title painted at: ${ms(loads.map((l) => l.titlePaint))} ms; median ${title.toFixed(0)} ms`,
  );
  const fcp = loads.map((l) => l.firstContentfulPaint);
  console.log(`first contentful paint: ${ms(fcp)} ms; median ${median(fcp).toFixed(0)} ms`);
  return { bytes, title };
}

/** Our release server on a fresh data folder; resolves once it is ready. */
async function startOurs() {
  if (!existsSync(join(ROOT, 'dist', 'index.html')) || !existsSync(join(ROOT, 'dist-server'))) {
    throw new Error('Build first: npm run build');
  }
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const data = mkdtempSync(join(tmpdir(), 'topoplay-wire-'));
  const server = spawn(process.execPath, ['dist-server/main.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      TOPOPLAY_URL: url,
      TOPOPLAY_DATA: data,
      LOG_LEVEL: 'warn',
      JANITOR_ENABLED: 'false',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const stop = async () => {
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    rmSync(data, { recursive: true, force: true });
  };
  try {
    for (let i = 0; ; i++) {
      const ready = await fetch(`${url}/api/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (server.exitCode !== null || i > 120) throw new Error('the server did not start');
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, stop };
}

/** Angular writes its site to <outputPath>/browser; either folder will do. */
function referenceRoot(dir: string) {
  const root = resolve(dir);
  if (existsSync(join(root, 'index.html'))) return root;
  if (existsSync(join(root, 'browser', 'index.html'))) return join(root, 'browser');
  throw new Error(`BENCH_REFERENCE_DIR: no index.html in ${root} or ${root}/browser`);
}

async function main() {
  const loads = Number(process.env.BENCH_LOADS || 7);
  const referenceDir =
    process.env.BENCH_REFERENCE_DIR && referenceRoot(process.env.BENCH_REFERENCE_DIR);
  const ours = await startOurs();
  let reference: StaticSite | null = null;
  let browser: Browser | null = null;
  try {
    if (referenceDir) {
      reference = await serveGzipped(referenceDir, {
        '/assets/settings.json': JSON.stringify({
          appname: 'TopoMojo',
          oidc: {
            authority: `${ours.url}/identity`,
            client_id: 'topomojo-ui',
            response_type: 'code',
            scope: 'openid profile',
          },
        }),
      });
    }
    browser = await chromium.launch(CHROMIUM);
    const sites = reference ? [ours.url, reference.url] : [ours.url];
    for (const site of sites) await coldLoad(browser, site);
    const results = new Map<string, Load[]>(sites.map((site) => [site, []]));
    for (let round = 0; round < loads; round++) {
      const order = round % 2 === 0 ? sites : [...sites].reverse();
      for (const site of order) results.get(site)!.push(await coldLoad(browser, site));
    }
    const ourLoads = results.get(ours.url)!;
    const our = report('Topoplay', ourLoads);
    if (!reference) {
      console.log(
        `\n${(our.bytes / REFERENCE_BYTES).toFixed(2)}x topomojo-ui's ${REFERENCE_BYTES} B ` +
          '(target: at most 0.5x); BENCH_REFERENCE_DIR compares the title paint too',
      );
      return;
    }
    const theirLoads = results.get(reference.url)!;
    const their = report('topomojo-ui (gzip)', theirLoads);
    // Each round's two loads ran moments apart, under the same load from whatever else this
    // machine runs: their ratio is steadier than the ratio of the medians.
    const ratios = ourLoads.map((load, round) => load.titlePaint / theirLoads[round]!.titlePaint);
    console.log(
      `\nbytes: ${(our.bytes / their.bytes).toFixed(2)}x topomojo-ui's ${their.bytes} B ` +
        '(target: at most 0.5x)',
    );
    console.log(
      `title paint: ${median(ratios).toFixed(2)}x topomojo-ui's, the median of the rounds' ` +
        `${ratios.map((r) => r.toFixed(2)).join(', ')} (target: at most 0.4x; ` +
        `medians ${our.title.toFixed(0)} and ${their.title.toFixed(0)} ms)`,
    );
  } finally {
    await browser?.close();
    await reference?.close();
    await ours.stop();
  }
}

await main();
