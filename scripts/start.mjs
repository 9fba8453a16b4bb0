// npm start: builds the SPA when it is missing or older than its sources, then runs the server.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const index = join(root, 'dist', 'index.html');

function newest(path) {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = 0;
  for (const entry of readdirSync(path)) latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'package.json']
  .map((p) => join(root, p))
  .filter(existsSync);
const stale = !existsSync(index) || Math.max(...sources.map(newest)) > statSync(index).mtimeMs;
if (stale && process.env.TOPOPLAY_SKIP_BUILD !== '1') {
  console.log('Building the web application (vite build)...');
  const build = spawnSync(
    join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--logLevel', 'warn'],
    {
      cwd: root,
      stdio: 'inherit',
    },
  );
  if (build.status !== 0) process.exit(build.status ?? 1);
}

const server = spawn(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'server', 'main.ts')], {
  cwd: process.cwd(),
  stdio: 'inherit',
  env: process.env,
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
