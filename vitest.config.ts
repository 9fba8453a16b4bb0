import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'src/**/*.test.{ts,tsx}',
      'server/**/*.test.ts',
      'tests/server/**/*.test.ts',
      'tests/pvesim/**/*.test.ts',
      'tests/deploy/**/*.test.ts',
      'tests/*.test.ts',
    ],
    environment: 'node',
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
