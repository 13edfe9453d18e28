import { defineConfig } from 'vitest/config';

/**
 * The browser tests (`pnpm test:browser`): headless Chromium opens the run
 * report and the trajectory viewer of a run made by the real training loop.
 * Kept out of `pnpm test`; `.ci/run` runs them after it.
 */
export default defineConfig({
  resolve: {
    conditions: ['@seal/source', 'module', 'node', 'import', 'default'],
  },
  ssr: {
    resolve: {
      conditions: ['@seal/source', 'module', 'node', 'import', 'default'],
      externalConditions: ['@seal/source'],
    },
  },
  test: {
    name: 'browser',
    include: ['e2e/**/*.browser.test.ts'],
    restoreMocks: true,
    clearMocks: true,
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // One browser at a time on small CI machines.
    fileParallelism: false,
  },
});
