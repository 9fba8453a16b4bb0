import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from '@playwright/test';
import { CHROMIUM } from '../../playwright.config';
import { freePort } from './processes';

// npm run bench:editor: how long a new author waits for the guide in the Document tab (issue 27).
// The release build (dist/, dist-server/) on a fresh data folder, started as an operator starts
// it. Each load is a new browser context with the cache disabled (cold): sign in as `creator`,
// create a workspace, give it a guide, then click the Document tab and time, in the page, from
// the click to the guide's text shown in the editor, and to the editor being writable.
// BENCH_LOADS cold loads (5); the figures are their medians. Target: the text within 1,000 ms.
// BENCH_DETAIL=1 also lists each load's requests and long tasks (script), relative to the click.
// The machine is shared: the load average printed at the end says how busy it was.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TARGET_MS = 1_000;
const GUIDE = '# Lab guide\n\nStart the machines, then answer the questions.\n';
const FIRST_LINE = '# Lab guide';

/** The password of a seeded account, as the first start wrote it to the data folder. */
function passwordOf(data: string, username: string): string {
  const file = readFileSync(join(data, 'initial-credentials.txt'), 'utf8');
  const line = file.split('\n').find((l) => l.startsWith(`${username} `));
  if (!line) throw new Error(`no ${username} in initial-credentials.txt`);
  return line.trim().split(/\s+/)[1]!;
}

async function signIn(page: Page, url: string, username: string, password: string) {
  await page.goto(`${url}/login`);
  await page.getByRole('button', { name: /^Login with / }).click();
  await page.waitForURL(/\/identity\//);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Logout' }).waitFor();
}

/** Stores the guide as the workspace's document, as the page's signed-in user. */
async function putGuide(page: Page, workspaceId: string) {
  // oidc-client-ts keeps the signed-in user in web storage.
  const token = await page.evaluate(() => {
    const w = globalThis as unknown as InPage;
    for (const store of [w.sessionStorage, w.localStorage]) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i) ?? '';
        if (key.startsWith('oidc.user:')) {
          const user = JSON.parse(store.getItem(key) ?? '{}') as { access_token?: string };
          return user.access_token ?? '';
        }
      }
    }
    return '';
  });
  const response = await page.request.put(
    new URL(`/api/document/${workspaceId}`, page.url()).href,
    {
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'text/plain' },
      data: GUIDE,
    },
  );
  if (!response.ok()) throw new Error(`PUT document: HTTP ${response.status()}`);
}

interface Load {
  /** From the click on the tab to the guide's first line shown in the editor. */
  textMs: number;
  /** From the click to the editor taking typing. */
  writableMs: number;
  /** The page's requests and long tasks after the click (BENCH_DETAIL). */
  timeline: Array<{ at: number; ms: number; what: string }>;
}

/** A timed entry of the page's performance timeline. */
interface Entry {
  name: string;
  startTime: number;
  duration: number;
  responseEnd?: number;
}

interface InPageStorage {
  length: number;
  key(index: number): string | null;
  getItem(key: string): string | null;
}

/**
 * The little of the page these functions touch, typed here: the benchmarks compile with Node's
 * types, without the DOM's. They run in the page (Playwright sends them there).
 */
interface InPage {
  document: {
    querySelector(selector: string): {
      textContent: string | null;
      getAttribute(name: string): string | null;
    } | null;
    addEventListener(type: 'click', listener: () => void, options: object): void;
  };
  location: { origin: string };
  sessionStorage: InPageStorage;
  localStorage: InPageStorage;
  performance: { now(): number; getEntriesByType(type: 'resource'): Entry[] };
  PerformanceObserver: new (report: (list: { getEntries(): Entry[] }) => void) => {
    observe(options: { type: 'longtask' }): void;
  };
  /** When the tab was clicked (performance.now()). */
  tabClickAt: number;
  longTasks: Entry[];
}

/** Resolves with the time since the click once `condition` holds, checked on every frame. */
const sinceClick = (page: Page, condition: 'text' | 'writable') =>
  page
    .waitForFunction(
      ({ condition, line }) => {
        const w = globalThis as unknown as InPage;
        const editor = '[data-testid="document-editor"]';
        const holds =
          condition === 'text'
            ? (w.document.querySelector(`${editor} .view-lines`)?.textContent ?? '')
                .replace(/\u00a0/g, ' ')
                .includes(line)
            : w.document.querySelector(editor)?.getAttribute('data-readonly') === 'false';
        return holds ? w.performance.now() - w.tabClickAt : 0;
      },
      { condition, line: FIRST_LINE },
      { polling: 'raf', timeout: 60_000 },
    )
    .then((handle) => handle.jsonValue());

async function oneLoad(browser: Browser, url: string, password: string): Promise<Load> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    await signIn(page, url, 'creator', password);
    await page.getByRole('button', { name: 'New Workspace' }).click();
    await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
    const id = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
    await putGuide(page, id);

    // The click's time and the long tasks after it, as the page sees them.
    await page.evaluate(() => {
      const w = globalThis as unknown as InPage;
      w.longTasks = [];
      new w.PerformanceObserver((list) => w.longTasks.push(...list.getEntries())).observe({
        type: 'longtask',
      });
      w.document.addEventListener('click', () => (w.tabClickAt = w.performance.now()), {
        capture: true,
        once: true,
      });
    });
    await page.getByRole('link', { name: 'Document' }).click();
    const textMs = await sinceClick(page, 'text');
    const writableMs = await sinceClick(page, 'writable');
    const timeline = await page.evaluate(() => {
      const w = globalThis as unknown as InPage;
      const requests = w.performance.getEntriesByType('resource').map((e) => ({
        at: e.startTime,
        ms: (e.responseEnd ?? e.startTime) - e.startTime,
        what: e.name.replace(w.location.origin, ''),
      }));
      const tasks = w.longTasks.map((e) => ({
        at: e.startTime,
        ms: e.duration,
        what: '(long task)',
      }));
      return [...requests, ...tasks]
        .map((e) => ({ ...e, at: e.at - w.tabClickAt }))
        .filter((e) => e.at >= 0)
        .sort((a, b) => a.at - b.at);
    });
    return { textMs, writableMs, timeline };
  } finally {
    await context.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1]!;

async function main() {
  if (!existsSync(join(ROOT, 'dist', 'index.html')) || !existsSync(join(ROOT, 'dist-server'))) {
    throw new Error('Build first: npm run build');
  }
  const loads = Number(process.env.BENCH_LOADS || 5);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const data = mkdtempSync(join(tmpdir(), 'topoplay-editor-'));
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
  const browser = await chromium.launch(CHROMIUM);
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
    const password = passwordOf(data, 'creator');
    const results: Load[] = [];
    for (let i = 0; i < loads; i++) results.push(await oneLoad(browser, url, password));
    if (process.env.BENCH_DETAIL) {
      for (const [i, load] of results.entries()) {
        console.log(`load ${i + 1}: text at ${Math.round(load.textMs)} ms`);
        console.log('| starts (ms after the click) | takes (ms) | request or task |');
        for (const e of load.timeline)
          console.log(`| ${Math.round(e.at)} | ${Math.round(e.ms)} | ${e.what.slice(0, 90)} |`);
        console.log('');
      }
    }
    const texts = results.map((r) => Math.round(r.textMs));
    const writables = results.map((r) => Math.round(r.writableMs));
    console.log(`text shown: ${texts.join(', ')} ms; median ${median(texts)} ms`);
    console.log(`writable:   ${writables.join(', ')} ms; median ${median(writables)} ms`);
    console.log(
      `target: the text within ${TARGET_MS} ms: ${median(texts) <= TARGET_MS ? 'met' : 'missed'}` +
        ` (1-minute load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores)`,
    );
  } finally {
    await browser.close();
    if (server.exitCode === null) server.kill('SIGTERM');
    await exited;
    rmSync(data, { recursive: true, force: true });
  }
}

await main();
