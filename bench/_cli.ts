import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/**
 * The `seal` command's source entry, found through `@seal/cli`'s exported
 * `package.json`: benchmarks that start the CLI as a child process run it
 * from source, as `pnpm seal` does, with {@link sealCliNodeArguments}.
 */
export const sealCliEntry = join(
  dirname(createRequire(import.meta.url).resolve('@seal/cli/package.json')),
  'src',
  'bin.ts',
);

/** Node arguments that run the CLI from source (sources through `@seal/source`, TypeScript through tsx). */
export const sealCliNodeArguments: readonly string[] = [
  '--conditions=@seal/source',
  '--import',
  'tsx',
];
