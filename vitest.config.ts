import { defineConfig } from 'vitest/config';

// Integration tests share one real Kafka sandbox per run (test/global-setup.ts),
// so files run one after another: the cluster is the shared resource.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    fileParallelism: false,
    testTimeout: 120_000,
    hookTimeout: 600_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default'],
  },
});
