import { fileURLToPath } from 'node:url';
import { defineConfig } from '@playwright/test';
import base from '../../playwright.config';

// `npm run bench:wall`: the instructor wall with 200 running gamespaces (wall.bench.ts beside it)
// on one e2e server (E2E_PORT). Not a spec: the end-to-end suite leaves it out, as its 200
// gamespaces would crowd the suite's servers.

const root = fileURLToPath(new URL('../..', import.meta.url));

export default defineConfig({
  ...base,
  testDir: '.',
  testMatch: 'wall.bench.ts',
  workers: 1,
  webServer: [base.webServer]
    .flat()
    .slice(0, 1)
    .map((server) => ({ ...server!, cwd: root })),
});
