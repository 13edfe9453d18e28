import { fileURLToPath } from 'node:url';

/**
 * A captured training run directory (3 SEAL steps on generated tasks, seed 3;
 * see `src/__fixtures__/README.md`), for tests of code that reads runs.
 * Copy it before writing into it.
 */
export const runFixtureDirectory: string = fileURLToPath(
  new URL('../__fixtures__/run', import.meta.url),
);

/**
 * A captured Connect the Dots run directory (`seal train --method cod
 * --preset smoke`: pack runs with their hints in `packs/`; see
 * `src/__fixtures__/README.md`). Copy it before writing into it.
 */
export const codRunFixtureDirectory: string = fileURLToPath(
  new URL('../__fixtures__/cod-run', import.meta.url),
);
