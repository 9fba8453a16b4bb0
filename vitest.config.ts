import { availableParallelism } from 'node:os';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import { defineConfig } from 'vitest/config';

/**
 * The files that take longest (real QEMU machines, both databases, property and fuzz runs), in
 * the order they run first. Without results of an earlier run (a fresh clone, as in CI), Vitest
 * starts the largest files first, and some of the longest started past the middle of the run,
 * which then waited on them alone. With results of an earlier run, Vitest's own order (longest
 * first) stands.
 */
const LONGEST = [
  'tests/server/grading.test.ts',
  'tests/server/authz/matrix.test.ts',
  'tests/server/crash/kill9.test.ts',
  'tests/server/fuzz/fuzz.test.ts',
  'tests/server/hypervisor/qemu.test.ts',
  'src/domain/coedit.convergence.test.ts',
  'tests/server/hypervisor/tinyImage.test.ts',
  'tests/server/hypervisor/isoInstall.test.ts',
  'tests/server/hypervisor/importedImageBoot.test.ts',
  'tests/server/release/production.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    if (files.every((file) => this.ctx.cache.getTestSpecificationResult(file))) return sorted;
    const rank = (file: TestSpecification) => {
      const index = LONGEST.findIndex((name) => file.moduleId.endsWith(`/${name}`));
      return index < 0 ? LONGEST.length : index;
    };
    return sorted
      .map((file, order) => ({ file, order }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.order - b.order)
      .map(({ file }) => file);
  }
}

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
    sequence: { sequencer: LongestFirst },
    testTimeout: 20_000,
    hookTimeout: 60_000,
  },
});
