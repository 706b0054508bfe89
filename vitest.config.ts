import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'workers/src/**/*.test.ts',
      'api/src/**/*.test.ts',
      'api/test/**/*.test.ts',
      'cli/src/**/*.test.ts',
      'fixtures/src/**/*.test.ts',
      'benchmarks/src/**/*.test.ts',
    ],
    // Native addons (sharp, hnswlib) and essentia's process-wide handlers are safest in child processes.
    pool: 'forks',
    testTimeout: 120_000,
    hookTimeout: 300_000,
    globalSetup: ['./fixtures/src/vitest-global-setup.ts'],
  },
});
