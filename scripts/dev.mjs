// npm run dev: the API server and Vite's dev server (hot reload) side by side. The SPA is served
// at http://localhost:5173 and proxies /api, /identity, /hub and settings to the API server.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
const env = {
  ...process.env,
  TOPOPLAY_EXTRA_ORIGINS: [process.env.TOPOPLAY_EXTRA_ORIGINS, 'http://localhost:5173']
    .filter(Boolean)
    .join(','),
};

const children = [
  spawn(bin('tsx'), ['watch', join(root, 'server', 'main.ts')], {
    cwd: root,
    stdio: 'inherit',
    env,
  }),
  spawn(bin('vite'), [], { cwd: root, stdio: 'inherit', env }),
];
const stop = (signal) => children.forEach((c) => c.kill(signal));
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => stop(signal));
for (const child of children)
  child.on('exit', (code) => {
    stop('SIGTERM');
    process.exit(code ?? 0);
  });
