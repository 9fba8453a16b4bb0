/**
 * What the home route downloads before it can run, measured from a Vite build: the module entry
 * of dist/index.html, its modulepreload links, and every chunk those import statically. Lazy
 * chunks (dynamic `import()`) are not counted: they load when a route needs them.
 *
 * Plain Node ESM with no dependencies, shared by scripts/bench-bundle.mjs and its test.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { gzipSync } from 'node:zlib';

/** The reference UI loads 557 KB of gzipped JS up front; we allow 40% of it. */
export const REFERENCE_GZIP_KB = 557;
export const BUDGET_GZIP_KB = 223;
export const BUDGET_GZIP_BYTES = BUDGET_GZIP_KB * 1024;
export const BUDGET_LINE = `budget ${BUDGET_GZIP_KB} KB gzip (40% of the reference UI's ${REFERENCE_GZIP_KB} KB)`;

/** Attributes of a start tag, names lower-cased; a bare attribute has the value ''. */
function attributes(tag) {
  const attrs = {};
  const pattern = /([^\s"'<>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;
  const body = tag.replace(/^<\w+/, '').replace(/\/?>$/, '');
  for (const match of body.matchAll(pattern)) {
    attrs[match[1].toLowerCase()] = match[2] ?? match[3] ?? match[4] ?? '';
  }
  return attrs;
}

/**
 * The assets index.html loads up front: module scripts with a src, modulepreload links and
 * stylesheets, in document order.
 */
export function htmlAssets(html) {
  const scripts = [];
  const modulePreloads = [];
  const stylesheets = [];
  for (const [tag] of html.replace(/<!--[\s\S]*?-->/g, '').matchAll(/<(?:script|link)\b[^>]*>/gi)) {
    const attrs = attributes(tag);
    if (/^<script/i.test(tag)) {
      if (attrs.type === 'module' && attrs.src) scripts.push(attrs.src);
      continue;
    }
    const rel = (attrs.rel ?? '').toLowerCase().split(/\s+/);
    if (!attrs.href) continue;
    if (rel.includes('modulepreload')) modulePreloads.push(attrs.href);
    else if (rel.includes('stylesheet')) stylesheets.push(attrs.href);
  }
  return { scripts, modulePreloads, stylesheets };
}

/**
 * Specifiers of the static imports and re-exports in (possibly minified) module code:
 * `import x from"./a.js"`, `import{a as b}from"./a.js"`, `import*as m from"./a.js"`,
 * `import"./a.js"`, `export{a}from"./a.js"`, `export*from"./a.js"`. Dynamic `import("./a.js")`
 * and `import.meta` are not imports of the page. Text inside string literals that looks like an
 * import is counted too; Vite output has none.
 */
export function staticImports(code) {
  const pattern =
    /(?<![\w$.])(?:import|export)\s*(?:[\w$\s{},*]*?(?<![\w$])from\s*)?(["'])([^"'\n]+)\1/g;
  const specifiers = [];
  for (const match of code.matchAll(pattern)) {
    if (!specifiers.includes(match[2])) specifiers.push(match[2]);
  }
  return specifiers;
}

const isExternal = (url) => /^[a-z][a-z\d+.-]*:|^\/\//i.test(url);

/** The file in `distDir` for a URL of the page or a specifier relative to a chunk file. */
function resolveAsset(distDir, url, fromFile) {
  const clean = url.replace(/[?#].*$/, '');
  if (clean.startsWith('/')) return path.join(distDir, clean);
  return path.resolve(path.dirname(fromFile ?? path.join(distDir, 'index.html')), clean);
}

async function measure(distDir, file) {
  let content;
  try {
    content = await readFile(file);
  } catch {
    throw new Error(`${path.relative(distDir, file)} is referenced by the build but missing`);
  }
  return {
    file: path.relative(distDir, file).split(path.sep).join('/'),
    raw: content.length,
    gzip: gzipSync(content, { level: 9 }).length,
    content,
  };
}

const sum = (files) =>
  files.reduce((total, f) => ({ raw: total.raw + f.raw, gzip: total.gzip + f.gzip }), {
    raw: 0,
    gzip: 0,
  });

/**
 * Measures the JS the home route loads up front (entry scripts, modulepreloads and their static
 * imports, each file once) and the CSS it links, from `distDir/index.html`.
 */
export async function measureBundle(distDir) {
  let html;
  try {
    html = await readFile(path.join(distDir, 'index.html'), 'utf8');
  } catch {
    throw new Error(`${path.join(distDir, 'index.html')} not found: run \`npm run build\` first`);
  }
  const { scripts, modulePreloads, stylesheets } = htmlAssets(html);

  const js = [];
  const seen = new Set();
  const queue = [...scripts, ...modulePreloads]
    .filter((url) => !isExternal(url))
    .map((url) => resolveAsset(distDir, url));
  while (queue.length > 0) {
    const file = queue.shift();
    if (seen.has(file)) continue;
    seen.add(file);
    const measured = await measure(distDir, file);
    js.push({ file: measured.file, raw: measured.raw, gzip: measured.gzip });
    for (const specifier of staticImports(measured.content.toString('utf8'))) {
      // Bare specifiers cannot be fetched by a browser; Vite output has none.
      if (isExternal(specifier) || !/^\.{0,2}\//.test(specifier)) continue;
      queue.push(resolveAsset(distDir, specifier, file));
    }
  }

  const css = [];
  for (const url of stylesheets.filter((href) => !isExternal(href))) {
    const measured = await measure(distDir, resolveAsset(distDir, url));
    css.push({ file: measured.file, raw: measured.raw, gzip: measured.gzip });
  }

  const total = sum(js);
  return {
    js,
    total,
    css,
    cssTotal: sum(css),
    budgetGzipBytes: BUDGET_GZIP_BYTES,
    overBudget: total.gzip > BUDGET_GZIP_BYTES,
  };
}

const bytes = (n) => n.toLocaleString('en-US');
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
const plural = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** The report as a text table. */
export function formatReport(report) {
  const rows = [
    ['file', 'raw bytes', 'gzip bytes'],
    ...report.js.map((f) => [f.file, bytes(f.raw), bytes(f.gzip)]),
    [
      `total JS (${plural(report.js.length, 'file')})`,
      bytes(report.total.raw),
      bytes(report.total.gzip),
    ],
  ];
  const widths = [0, 1, 2].map((col) => Math.max(...rows.map((row) => row[col].length)));
  const line = (row) =>
    `${row[0].padEnd(widths[0])}  ${row[1].padStart(widths[1])}  ${row[2].padStart(widths[2])}`;
  const out = ['JS the home route loads up front:', ''];
  rows.forEach((row, i) => {
    if (i === rows.length - 1) out.push('-'.repeat(widths[0] + widths[1] + widths[2] + 4));
    out.push(line(row));
  });
  const share = ((report.total.gzip / report.budgetGzipBytes) * 100).toFixed(1);
  out.push(
    '',
    `total: ${bytes(report.total.gzip)} bytes gzip (${kb(report.total.gzip)}), ${share}% of the budget`,
    BUDGET_LINE,
    `CSS (informational, not in the budget): ${plural(report.css.length, 'file')}, ${bytes(report.cssTotal.raw)} bytes raw, ${bytes(report.cssTotal.gzip)} bytes gzip`,
  );
  return out.join('\n');
}

/** The failure message, or null within budget. */
export function budgetError(report) {
  if (!report.overBudget) return null;
  const over = report.total.gzip - report.budgetGzipBytes;
  return `Over budget: the home route loads ${bytes(report.total.gzip)} bytes (${kb(report.total.gzip)}) of gzipped JS, ${bytes(over)} bytes more than the ${BUDGET_GZIP_KB} KB (${bytes(report.budgetGzipBytes)} bytes) budget. Split the largest chunks listed above or load them lazily.`;
}
