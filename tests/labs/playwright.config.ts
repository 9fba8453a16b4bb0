import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../../playwright.config';

// `npm run check:labs` (docs/drivers.md): labs of the Debian stock images played in Chromium on
// real QEMU machines. Each boot takes a minute or more under software emulation, so these are not
// part of `npm test`. The images come from a per-machine cache (./setup.ts), the SPA from dist/
// (the command builds it first).
export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  globalSetup: './setup.ts',
  timeout: 600_000,
  expect: { timeout: 20_000 },
  workers: 1,
  retries: 0,
  reporter: [['list']],
  // Outside test-results/, which every other Playwright run here empties when it starts.
  outputDir: join(tmpdir(), 'topoplay-check-labs'),
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: CHROMIUM,
  },
});
