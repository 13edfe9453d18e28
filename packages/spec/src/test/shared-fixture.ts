import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SealError } from '../errors/seal-error';

/**
 * The environment variable that turns a missing shared fixture from a skip
 * into a failure. CI (`.ci/run`) sets it to `1`, so a clone without
 * `../shared` cannot pass by skipping every fixture test.
 */
export const requireFixturesVariable = 'SEAL_REQUIRE_FIXTURES';

/** Whether `SEAL_REQUIRE_FIXTURES` asks for every shared fixture to be present. */
export function fixturesRequired(
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  const value = env[requireFixturesVariable];
  return value === '1' || value === 'true';
}

/**
 * Finds the `shared/` folder beside the project: `SEAL_SHARED_DIR` if set,
 * else the first `shared/` with a `bfcl/` inside, next to this file or to one
 * of its parents (the source tree, or `node_modules/@seal/spec/dist`).
 */
function findSharedDir(): string {
  const override = process.env['SEAL_SHARED_DIR'];
  if (override) return resolve(override);
  const here = dirname(fileURLToPath(import.meta.url));
  let dir = here;
  for (let level = 0; level < 8; level++) {
    const candidate = join(dir, '..', 'shared');
    if (existsSync(join(candidate, 'bfcl'))) return resolve(candidate);
    dir = dirname(dir);
  }
  return resolve(here, '../../../../../shared');
}

/** The `shared/` folder beside the project (BFCL data, golden replays, checker verdicts). */
export const sharedDir: string = findSharedDir();

/** A file or folder under `shared/`, and whether tests that need it can run. */
export type SharedFixture = {
  /** Absolute path of the fixture. */
  readonly path: string;
  /** Whether it exists. When it does not, the tests that need it skip. */
  readonly present: boolean;
  /** The title of the placeholder test that reports the skip. */
  readonly skipMessage: string;
};

/**
 * Locates a shared fixture for a test file. Call it at the top of the file and
 * skip the suites that need it when `present` is false:
 *
 * ```ts
 * const verdicts = sharedFixture({ path: 'bfcl-checker/verdicts.jsonl' });
 * describe.skipIf(!verdicts.present)('…', () => { … });
 * ```
 *
 * When the fixture is missing and `SEAL_REQUIRE_FIXTURES=1` (or `required`),
 * it throws a `FILE_NOT_FOUND` {@link SealError} instead, which fails the test
 * file: the guard that keeps CI from passing by skipping.
 */
export function sharedFixture({
  path,
  dir = sharedDir,
  required = fixturesRequired(),
}: {
  /** The fixture's path under `shared/`, e.g. `bfcl/default_states.json`. */
  path: string;
  /** The `shared/` folder (default: {@link sharedDir}). */
  dir?: string;
  /** Whether a missing fixture throws (default: `SEAL_REQUIRE_FIXTURES`). */
  required?: boolean;
}): SharedFixture {
  const absolute = resolve(dir, path);
  const present = existsSync(absolute);
  if (!present && required) {
    throw new SealError({
      code: 'FILE_NOT_FOUND',
      message: `shared fixture ${absolute} is missing and ${requireFixturesVariable} is set: put the shared fixtures beside the project or point SEAL_SHARED_DIR at them`,
      details: { path: absolute },
    });
  }
  return {
    path: absolute,
    present,
    skipMessage: `skipped: shared fixture not found at ${absolute} (set SEAL_SHARED_DIR; ${requireFixturesVariable}=1 makes this fail)`,
  };
}
