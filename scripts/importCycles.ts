// No module imports itself back through others, types included (part of `npm run lint`).
// A circle closed by types alone still ties the layers together: this reads every import, type or
// not, static, re-exported or dynamic, and fails listing each circle that runs through the SPA, the
// server, the agent or the scripts, including circles that pass through the tests or the config
// files at the root on the way. It is the lint's one check of cycles: it sees every circle
// ESLint's import-x/no-cycle would (that rule skips type imports and looks from the server only).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

const ROOT = resolve(dirname(new URL(import.meta.url).pathname), '..');
/** Every circle through these folders fails. */
const FOLDERS = ['src', 'server', 'agent', 'scripts'];
/** Followed so that a circle passing through them is seen; circles wholly inside are not reported. */
const ALSO_READ = ['tests'];
const SOURCE = /\.(ts|tsx|mts|cts|js|jsx|mjs|cjs)$/;
const SKIP = new Set(['node_modules', 'dist', 'dist-server']);

function sourceFiles(folder: string): string[] {
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (SKIP.has(name)) return [];
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return SOURCE.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The file a relative specifier names, as TypeScript with Bundler resolution would find it. */
function resolveRelative(from: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null;
  const base = resolve(dirname(from), specifier);
  const stem = base.replace(/\.(js|jsx|mjs|cjs|ts|tsx|mts|cts)$/, '');
  const extensions = ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'];
  const candidates = [
    base,
    ...extensions.map((e) => `${stem}.${e}`),
    ...extensions.map((e) => join(base, `index.${e}`)),
  ];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile()) ?? null;
}

/** Every import graph circle (a strongly connected set of more than one file, or a self-import). */
export function importCycles(root = ROOT): string[][] {
  const atRoot = readdirSync(root)
    .map((name) => join(root, name))
    .filter((path) => SOURCE.test(path) && !path.endsWith('.d.ts') && statSync(path).isFile());
  const inFolders = (folders: string[]) =>
    folders.flatMap((f) => (existsSync(join(root, f)) ? sourceFiles(join(root, f)) : []));
  const checked = new Set(inFolders(FOLDERS));
  const files = [...checked, ...inFolders(ALSO_READ), ...atRoot];
  const known = new Set(files);
  const edges = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    edges.set(
      file,
      importedFiles
        .map((i) => resolveRelative(file, i.fileName))
        .filter((t): t is string => t !== null && known.has(t)),
    );
  }
  // Tarjan's strongly connected components, iteratively (deep import chains overflow no stack).
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  for (const start of files) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: start, next: 0 }];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = edges.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++]!;
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(target)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfImport = (edges.get(frame.node) ?? []).includes(frame.node);
        if ((component.length > 1 || selfImport) && component.some((f) => checked.has(f))) {
          cycles.push(component.map((f) => relative(root, f)).sort());
        }
      }
    }
  }
  return cycles;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(new URL(import.meta.url).pathname)) {
  const cycles = importCycles();
  if (cycles.length > 0) {
    console.error(`Import cycles (type imports count too): ${cycles.length}`);
    for (const cycle of cycles) console.error(`- ${cycle.join(' ⇄ ')}`);
    process.exit(1);
  }
  console.log('No import cycles.');
}
