import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { CHROMIUM } from '../../playwright.config';

// `npm run check:image` (docs/deploy.md): builds the container image with a real Docker engine and
// plays a lab on it in Chromium, alone and as the compose stack behind nginx. Not part of
// `npm test`; CI runs it where an engine can run (.ci/run).
export default defineConfig({
  testDir: '.',
  testMatch: 'image.spec.ts',
  globalSetup: './setup.ts',
  timeout: 300_000,
  expect: { timeout: 20_000 },
  workers: 1,
  retries: 0,
  reporter: [['list']],
  // Outside test-results/, which every other Playwright run here empties when it starts.
  outputDir: join(tmpdir(), 'topoplay-check-image'),
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: CHROMIUM,
  },
});
