import { defineConfig } from 'vitest/config';

// `npm run check:proxmox`: the driver contract against a real Proxmox VE cluster (PROXMOX_*
// settings). Not part of `npm test`: it needs a cluster, and a real one takes minutes.
export default defineConfig({
  test: {
    include: ['tests/live/**/*.check.ts'],
    environment: 'node',
    testTimeout: 300_000,
    hookTimeout: 600_000,
    // One cluster, one check at a time.
    fileParallelism: false,
  },
});
