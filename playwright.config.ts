import { defineConfig } from '@playwright/test';

// End-to-end tests drive Debian's Chromium (no browser download) against the real server with a
// fresh data folder, signing in through the embedded identity provider.
export const E2E_PORT = Number(process.env.E2E_PORT ?? 5181);
export const E2E_PASSWORD = process.env.E2E_PASSWORD ?? 'e2e-password-123';
const baseURL = `http://127.0.0.1:${E2E_PORT}`;

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

export default defineConfig({
  testDir: 'tests/e2e',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL,
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: CHROMIUM,
  },
  webServer: {
    command: 'node scripts/e2e-server.mjs',
    url: `${baseURL}/assets/settings.json`,
    reuseExistingServer: false,
    timeout: 60_000,
    env: { E2E_PORT: String(E2E_PORT), E2E_PASSWORD },
  },
});
