import { createBfclBackend, loadBfclData } from '@seal/bfcl';
import {
  createBfclTaskSource,
  createStateFileStatisticsLoader,
  type EnvServiceSettings,
} from '@seal/server';
import { createBfclVerifier } from '@seal/verifier';

/** What `seal serve` passes to each worker thread (structured-cloneable). */
export type ServeSettingsOptions = {
  /** The BFCL data directory. */
  dir: string;
  allowStatePath: boolean;
  maxModelCalls?: number;
};

/**
 * The environment-service settings of `seal serve` over the BFCL data in
 * `dir`; each worker thread of a multi-core server builds its own with it.
 */
export async function createEnvServiceSettings(
  options: ServeSettingsOptions,
): Promise<EnvServiceSettings> {
  const dataset = await loadBfclData({ dir: options.dir });
  return {
    tasks: createBfclTaskSource({ dataset }),
    backend: createBfclBackend({ runtime: dataset.runtime }),
    // Records come from the service's own episodes.
    verifier: createBfclVerifier({
      runtime: dataset.runtime,
      checkRecords: false,
    }),
    ...(options.maxModelCalls === undefined
      ? {}
      : { maxModelCalls: options.maxModelCalls }),
    ...(options.allowStatePath
      ? { loadStatistics: createStateFileStatisticsLoader() }
      : {}),
  };
}
