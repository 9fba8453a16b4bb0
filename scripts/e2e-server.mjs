// The server for end-to-end tests: a fresh data folder and SQLite database on every run, a known
// seed password, the built SPA. Playwright starts it and stops it. With E2E_DATA_DIR set, that
// folder is used and kept, so that a test can stop the server and start it again on the same
// data (the hub reconnection test).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

// Playwright may end this script without a signal it can handle, which skips the cleanup below:
// remove the folders of earlier runs whose script is no longer alive.
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
for (const entry of readdirSync(tmpdir())) {
  const owner = /^topoplay-e2e-(\d+)-/.exec(entry);
  if (owner && !alive(Number(owner[1])))
    rmSync(join(tmpdir(), entry), { recursive: true, force: true });
}

const keepData = Boolean(process.env.E2E_DATA_DIR);
const dataDir =
  process.env.E2E_DATA_DIR || mkdtempSync(join(tmpdir(), `topoplay-e2e-${process.pid}-`));
const port = process.env.E2E_PORT ?? '5181';
const server = spawn(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'server', 'main.ts')], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    PORT: port,
    HOST: '127.0.0.1',
    TOPOPLAY_URL: `http://127.0.0.1:${port}`,
    TOPOPLAY_DATA: dataDir,
    TOPOPLAY_SEED_PASSWORD: process.env.E2E_PASSWORD ?? 'e2e-password-123',
    // Hermetic: SQLite in the data folder and in-memory hub and cache, whatever the shell has.
    DATABASE_URL: '',
    REDIS_URL: '',
    // E2E_LOG_LEVEL=info shows what a test's server did (pools, warm images, claims).
    LOG_LEVEL: process.env.E2E_LOG_LEVEL || 'warn',
    // Sim tasks at 4x: a disk copy takes about 2.5 s, long enough to see its progress. The
    // qemu driver's tests ask for it with E2E_HYPERVISOR=qemu (and their own QEMU_IMAGES_DIR).
    HYPERVISOR: process.env.E2E_HYPERVISOR || 'sim',
    SIM_SPEED: '4',
  },
});
const cleanup = () => {
  if (process.env.E2E_HYPERVISOR === 'qemu') {
    // Machines and the switch outlive a server by design; the test's own go with its data.
    spawnSync('pkill', ['-KILL', '-f', process.env.QEMU_STATE_DIR || join(dataDir, 'qemu')]);
  }
  if (!keepData) rmSync(dataDir, { recursive: true, force: true });
};
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code) => {
  cleanup();
  process.exit(code ?? 0);
});
