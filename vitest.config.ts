import { defaultExternalConditions, defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Tests run on the sources: every workspace package resolves to its `src` through the
// `@earshot/source` export condition, here (Vite) and in every process a test starts (Node reads
// NODE_OPTIONS: the forks, the worker threads, `earshot` children).
const SOURCE_CONDITION = '@earshot/source';
if (!(process.env.NODE_OPTIONS ?? '').includes(SOURCE_CONDITION)) {
  process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --conditions=${SOURCE_CONDITION}`.trim();
}

const sourceResolve = {
  conditions: [SOURCE_CONDITION, ...defaultServerConditions],
  externalConditions: [SOURCE_CONDITION, ...defaultExternalConditions],
};

export default defineConfig({
  // The test files (ssr) and the global setup (Vitest's own __vitest__ environment).
  ssr: { resolve: sourceResolve },
  environments: { __vitest__: { resolve: sourceResolve } },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'workers/src/**/*.test.ts',
      'workers/test/**/*.test.ts',
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
