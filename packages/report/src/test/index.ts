import { fileURLToPath } from 'node:url';

/**
 * A captured training run directory (3 SEAL steps on generated tasks, seed 3;
 * see `src/__fixtures__/README.md`), for tests of code that reads runs.
 * Copy it before writing into it.
 */
export const runFixtureDirectory: string = fileURLToPath(new URL('../__fixtures__/run', import.meta.url));
