import { readdirSync, existsSync } from 'node:fs';
import { defineConfig } from 'vitest/config';

const workspaceDirs = ['packages', 'apps'].flatMap((group) =>
  existsSync(group)
    ? readdirSync(group, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => `${group}/${entry.name}`)
    : [],
);

/**
 * One vitest project per workspace package, and one for bench/'s harnesses.
 * Sources are resolved through the `@seal/source` export condition, so tests
 * never wait for a build.
 *
 * Files named `*.slow.test.ts` take ten seconds or more each (training,
 * resume chaos, the copy drill, SEAL's own client); `pnpm test` runs them
 * like any other, and `pnpm test:fast` leaves them out for a quick loop.
 */
/** `pnpm test:fast` (SEAL_FAST_TESTS=1) leaves the slow files out. */
const slow =
  process.env['SEAL_FAST_TESTS'] === '1' ? ['**/*.slow.test.ts'] : [];

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
    restoreMocks: true,
    clearMocks: true,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      ...workspaceDirs.map((dir) => ({
        extends: true as const,
        test: {
          name: dir.split('/')[1],
          root: dir,
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...slow, '**/node_modules/**'],
        },
      })),
      // The benchmarks' harnesses (the hostile fuzz, the resume chaos test).
      {
        extends: true as const,
        test: {
          name: 'bench',
          root: 'bench',
          include: ['**/*.test.ts'],
          exclude: [...slow, '**/node_modules/**', 'out/**'],
        },
      },
    ],
  },
});
