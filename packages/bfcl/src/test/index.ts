import { join } from 'node:path';
import { sharedDir, sharedFixture } from '@seal/spec/test';
import { loadBfclData, type BfclDataset } from '../data/load-bfcl-data';

/**
 * Test support: the BFCL data in the `shared/` folder beside the project
 * (located by `@seal/spec/test`'s `sharedFixture`; `SEAL_SHARED_DIR`
 * overrides it). Tests that need it skip, with a message, when it is absent,
 * and fail instead when `SEAL_REQUIRE_FIXTURES=1` (CI).
 */
const bfclData = sharedFixture({ path: 'bfcl/default_states.json' });

/** The `shared/` folder beside the project. */
export { sharedDir };
/** `shared/bfcl`, the BFCL v3 data directory. */
export const sharedBfclDataDir: string = join(sharedDir, 'bfcl');
/** Whether the shared BFCL data is present (when it is not, `SEAL_REQUIRE_FIXTURES=1` throws on import). */
export const hasSharedBfclData: boolean = bfclData.present;
/** The message tests print when they skip for lack of shared data. */
export const sharedDataSkipMessage: string = bfclData.skipMessage;

let cached: Promise<BfclDataset> | undefined;
/** Loads `shared/bfcl` once per process. */
export function loadSharedBfclData(): Promise<BfclDataset> {
  cached ??= loadBfclData({ dir: sharedBfclDataDir });
  return cached;
}
