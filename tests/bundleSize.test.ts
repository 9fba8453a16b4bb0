import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import {
  BUDGET_GZIP_BYTES,
  BUDGET_LINE,
  formatReport,
  htmlAssets,
  measureBundle,
  staticImports,
} from '../scripts/bundleSize.mjs';

const benchScript = fileURLToPath(new URL('../scripts/bench-bundle.mjs', import.meta.url));

const dists: string[] = [];

/** A fake Vite dist folder with the given files (paths relative to it). */
function fakeDist(files: Record<string, string | Buffer>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'topoplay-bundle-'));
  dists.push(dir);
  for (const [file, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  }
  return dir;
}

afterEach(() => {
  for (const dir of dists.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const INDEX_HTML = `<!doctype html>
<html>
  <head>
    <script type="module" crossorigin src="/assets/index-a1.js"></script>
    <link rel="modulepreload" crossorigin href="/assets/react-b2.js">
    <link rel="stylesheet" crossorigin href="/assets/index-c3.css">
    <link rel="icon" href="/favicon.svg">
    <!-- <script type="module" src="/assets/commented-out.js"></script> -->
  </head>
  <body><div id="root"></div></body>
</html>`;

/** Runs the bench script on `distDir`; returns its exit code and output. */
function runBench(distDir: string): { status: number; output: string } {
  try {
    const stdout = execFileSync(process.execPath, [benchScript, distDir], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { status: 0, output: stdout };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe('htmlAssets', () => {
  it('finds module entries, modulepreloads and stylesheets, ignoring comments and icons', () => {
    expect(htmlAssets(INDEX_HTML)).toEqual({
      scripts: ['/assets/index-a1.js'],
      modulePreloads: ['/assets/react-b2.js'],
      stylesheets: ['/assets/index-c3.css'],
    });
  });
});

describe('staticImports', () => {
  it('finds every form of static import and re-export in minified code', () => {
    const code = [
      'import{a as b,c}from"./one.js";',
      'import d from"./two.js";',
      "import*as e from'./three.js';",
      'import"./four.js";',
      'export{f}from"./five.js";',
      'export*from"../six.js";',
      'import {g} from "./seven.js"',
    ].join('');
    expect(staticImports(code)).toEqual([
      './one.js',
      './two.js',
      './three.js',
      './four.js',
      './five.js',
      '../six.js',
      './seven.js',
    ]);
  });

  it('ignores dynamic import(), import.meta, properties and identifiers that contain import', () => {
    const code =
      'const l=()=>import("./lazy.js");const u=new URL("./w.js",import.meta.url);' +
      'x.import("./prop.js");reimport("./fn.js");export default"./not-a-module.js";';
    expect(staticImports(code)).toEqual([]);
  });
});

describe('measureBundle', () => {
  const entry =
    'import{r}from"./react-b2.js";import"./shared-d4.js";const p=()=>import("./admin-e5.js");';
  const files = {
    'index.html': INDEX_HTML,
    'assets/index-a1.js': entry,
    'assets/react-b2.js': 'export const r=1;',
    'assets/shared-d4.js': 'import"./util-f6.js";export const s=2;',
    'assets/util-f6.js': 'import"./react-b2.js";export const u=3;',
    'assets/admin-e5.js': 'import"./huge-g7.js";',
    'assets/huge-g7.js': 'x'.repeat(10_000),
    'assets/index-c3.css': 'body{margin:0}',
  };

  it('counts the entry, preloads and their static imports transitively, each once, but not lazy chunks', async () => {
    const report = await measureBundle(fakeDist(files));
    expect(report.js.map((f) => f.file)).toEqual([
      'assets/index-a1.js',
      'assets/react-b2.js',
      'assets/shared-d4.js',
      'assets/util-f6.js',
    ]);
  });

  it('measures raw and level-9 gzip bytes and totals them', async () => {
    const report = await measureBundle(fakeDist(files));
    const first = report.js[0];
    expect(first?.raw).toBe(Buffer.byteLength(entry));
    expect(first?.gzip).toBe(gzipSync(entry, { level: 9 }).length);
    expect(report.total.raw).toBe(report.js.reduce((sum, f) => sum + f.raw, 0));
    expect(report.total.gzip).toBe(report.js.reduce((sum, f) => sum + f.gzip, 0));
    expect(report.css).toEqual([
      {
        file: 'assets/index-c3.css',
        raw: 14,
        gzip: gzipSync('body{margin:0}', { level: 9 }).length,
      },
    ]);
    expect(report.overBudget).toBe(false);
  });

  it('prints a table with the totals and the budget', async () => {
    const text = formatReport(await measureBundle(fakeDist(files)));
    expect(text).toContain('assets/util-f6.js');
    expect(text).toMatch(/total JS \(4 files\)/);
    expect(text).toContain(BUDGET_LINE);
    expect(text).toContain('CSS (informational, not in the budget): 1 file,');
  });

  it('names a chunk that is referenced but missing', async () => {
    const dist = fakeDist({ 'index.html': INDEX_HTML, 'assets/index-a1.js': entry });
    await expect(measureBundle(dist)).rejects.toThrow(/assets\/react-b2\.js .*missing/);
  });
});

describe('bench-bundle.mjs', () => {
  it('passes within the budget', () => {
    const dist = fakeDist({
      'index.html': '<script type="module" src="./assets/app.js"></script>',
      'assets/app.js': 'console.log(1)',
    });
    const { status, output } = runBench(dist);
    expect(status).toBe(0);
    expect(output).toContain("budget 223 KB gzip (40% of the reference UI's 557 KB)");
  });

  it('fails with a clear message when the gzipped JS exceeds the budget', () => {
    // Random bytes do not compress, so the budget plus a little is over it after gzip.
    const dist = fakeDist({
      'index.html': '<script type="module" src="/assets/app.js"></script>',
      'assets/app.js': 'import"./big.js";',
      'assets/big.js': randomBytes(BUDGET_GZIP_BYTES + 1024),
    });
    const { status, output } = runBench(dist);
    expect(status).toBe(1);
    expect(output).toMatch(/Over budget: .* more than the 223 KB \(228,352 bytes\) budget/);
  });

  it('fails when there is no build', () => {
    const { status, output } = runBench(fakeDist({}));
    expect(status).toBe(1);
    expect(output).toContain('run `npm run build` first');
  });
});
