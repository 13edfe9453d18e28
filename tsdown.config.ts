import { defineConfig, type UserConfig } from 'tsdown';

/**
 * Shared build settings for every `@seal/*` package: ESM only, type
 * declarations, publint, and `exports` generated from the entry points.
 */
export function createPackageConfig(overrides: UserConfig = {}): UserConfig {
  return defineConfig({
    entry: ['src/index.ts'],
    format: ['esm'],
    platform: 'node',
    target: 'node20',
    dts: true,
    sourcemap: true,
    clean: true,
    // `.js` with `"type": "module"`, matching the `exports` of every package.
    fixedExtension: false,
    publint: true,
    ...overrides,
  }) as UserConfig;
}
