// npm start: builds what is missing or older than its sources (the SPA in dist/, the compiled
// server in dist-server/), then runs the compiled server in this very process. npm forwards
// SIGTERM and SIGINT to its child, and package.json starts this script with `exec`, so that no
// shell stands in between either (Debian's sh neither forwards a signal nor execs the command):
// the signal reaches the server, which closes cleanly, and nothing is left running.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { unsupportedNode } from '../server/nodeVersion.mjs';

const refusal = unsupportedNode(process.versions.node);
if (refusal) {
  process.stderr.write(`${refusal}\n`);
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const vite = join(root, 'node_modules', 'vite', 'bin', 'vite.js');

/** The latest change under a path; tests do not go into the build. */
function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return /\.test\.tsx?$/.test(path) ? 0 : stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

// The server serves the SPA from TOPOPLAY_SPA (default ./dist): one kept elsewhere is not ours to
// build.
const servesDist = resolve(process.env.TOPOPLAY_SPA || 'dist') === join(root, 'dist');

const builds = [
  ...(servesDist
    ? [
        {
          what: 'the web application',
          output: 'dist/index.html',
          sources: ['src', 'public', 'index.html', 'vite.config.ts', 'package.json'],
          args: [],
          // Without it the server still starts, and its pages say how to build it.
          required: false,
        },
      ]
    : []),
  {
    what: 'the server',
    output: 'dist-server/main.js',
    sources: ['server', 'src/domain', 'vite.server.config.ts', 'package.json'],
    args: ['-c', 'vite.server.config.ts'],
    required: true,
  },
];

for (const { what, output, sources, args, required } of builds) {
  const built = join(root, output);
  // A production install (npm ci --omit=dev) has the output and neither the sources nor Vite.
  const present = sources.map((p) => join(root, p)).filter(existsSync);
  const stale = !existsSync(built) || Math.max(0, ...present.map(newest)) > statSync(built).mtimeMs;
  if (!stale) continue;
  if (process.env.TOPOPLAY_SKIP_BUILD === '1' || !existsSync(vite)) {
    if (existsSync(built) || !required) continue;
    process.stderr.write(
      `Topoplay: ${output} is missing: run \`npm install\` and \`npm run build\`.\n`,
    );
    process.exit(1);
  }
  console.log(`Building ${what} (vite build)...`);
  const build = spawnSync(process.execPath, [vite, 'build', ...args, '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

await import(pathToFileURL(join(root, 'dist-server', 'main.js')).href);
