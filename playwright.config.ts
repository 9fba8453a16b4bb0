import { defineConfig } from '@playwright/test';

// End-to-end tests drive Debian's Chromium (no browser download) against the real server with a
// fresh data folder, signing in through the embedded identity provider.
//
// Several workers run the specs at once, each against a server of its own (its own port, data
// folder and database), so that no spec sees another's workspaces, games or users. This file is
// loaded again in every worker with TEST_PARALLEL_INDEX set (0 to E2E_WORKERS - 1, kept when a
// worker is replaced), which gives each worker its block of PORTS_PER_WORKER ports: its server on
// E2E_PORT, and the extra servers its specs start on E2E_PORT + 1 and up. Choose the number of
// workers with E2E_WORKERS, not --workers: only the servers of E2E_WORKERS workers are started.
const E2E_BASE_PORT = Number(process.env.E2E_PORT ?? 5181);
// Two workers by default: a worker mostly waits (on the browser, the server, timers, machines),
// so on two cores two of them, beside the unit tests that npm test runs at the same time, keep
// the cores busy without starving any test of its time budget (measured in docs/performance.md,
// "The test suite"). E2E_WORKERS=1 runs the specs one at a time, E2E_WORKERS=3 on three.
const E2E_WORKERS = Number(process.env.E2E_WORKERS ?? 2);
const PORTS_PER_WORKER = 10;
const portOf = (worker: number) => E2E_BASE_PORT + worker * PORTS_PER_WORKER;

/** This worker's server; `E2E_PORT + n` (n from 1 to 9) are free for a spec's extra servers. */
export const E2E_PORT = portOf(Number(process.env.TEST_PARALLEL_INDEX ?? 0));
export const E2E_PASSWORD = process.env.E2E_PASSWORD ?? 'e2e-password-123';
const urlOf = (port: number) => `http://127.0.0.1:${port}`;

/** Debian's Chromium, headless on this machine (the e2e tests and tests/bench/wire.ts). */
export const CHROMIUM = {
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
};

// Budgets, not waits: every wait is on a condition. On a 2-core machine where Chromium renders in
// software, the suite ran 2.8 times slower than on the machine these were first set on (22.6
// instead of 8 minutes, 2026-11-30), and three waits ran out: a disk image upload's progress,
// Monaco's first load. Two minutes a test and 20 s a wait leave that room.
export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 120_000,
  expect: { timeout: 20_000 },
  // Tests, not whole files, are shared out, so that the long ones do not end up on one worker.
  // Every test builds what it needs; the server a test runs against is its worker's alone.
  fullyParallel: true,
  workers: E2E_WORKERS,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: urlOf(E2E_PORT),
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: CHROMIUM,
  },
  webServer: Array.from({ length: E2E_WORKERS }, (_, worker) => ({
    command: 'node scripts/e2e-server.mjs',
    url: `${urlOf(portOf(worker))}/assets/settings.json`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: { E2E_PORT: String(portOf(worker)), E2E_PASSWORD },
  })),
});
