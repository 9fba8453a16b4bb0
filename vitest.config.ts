import { availableParallelism } from 'node:os';
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
    // Vitest's default is one worker fewer than the cores: a single worker on a machine of two,
    // which leaves a core idle, and that worker mostly waits too: most suites wait on servers,
    // child processes, databases and QEMU rather than compute. Three at once keep two cores busy.
    maxWorkers: Math.max(3, availableParallelism() - 1),
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
