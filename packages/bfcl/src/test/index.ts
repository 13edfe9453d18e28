import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadBfclData, type BfclDataset } from '../data/load-bfcl-data';

/**
 * Test support: locates the `shared/` folder beside the project (BFCL data,
 * golden replays, checker verdicts). Tests that need it skip, with a message,
 * when it is absent. `SEAL_SHARED_DIR` overrides the location.
 */
function findSharedDir(): string {
  const override = process.env['SEAL_SHARED_DIR'];
  if (override) return resolve(override);
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 8; i++) {
    const candidate = join(dir, '..', 'shared');
    if (existsSync(join(candidate, 'bfcl'))) return resolve(candidate);
    dir = dirname(dir);
  }
  return resolve(dirname(fileURLToPath(import.meta.url)), '../../../../../shared');
}

/** The `shared/` folder beside the project. */
export const sharedDir: string = findSharedDir();
/** `shared/bfcl`, the BFCL v3 data directory. */
export const sharedBfclDataDir: string = join(sharedDir, 'bfcl');
/** Whether the shared BFCL data is present. */
export const hasSharedBfclData: boolean = existsSync(join(sharedBfclDataDir, 'default_states.json'));
/** The message tests print when they skip for lack of shared data. */
export const sharedDataSkipMessage = `skipped: BFCL fixtures not found at ${sharedBfclDataDir} (set SEAL_SHARED_DIR)`;

let cached: Promise<BfclDataset> | undefined;
/** Loads `shared/bfcl` once per process. */
export function loadSharedBfclData(): Promise<BfclDataset> {
  cached ??= loadBfclData({ dir: sharedBfclDataDir });
  return cached;
}
