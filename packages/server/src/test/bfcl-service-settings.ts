import { createBfclBackend, loadBfclData } from '@seal/bfcl';
import { createBfclVerifier } from '@seal/verifier';
import type { EnvServiceSettings } from '../env-service';
import { createBfclTaskSource } from '../task-source';

/**
 * Test support: a settings module for the worker threads of a multi-core
 * server (`startEnvServer({workers})`): the BFCL data in `options.dir`.
 */
export async function createEnvServiceSettings(options: {
  dir: string;
}): Promise<EnvServiceSettings> {
  const dataset = await loadBfclData({ dir: options.dir });
  return {
    tasks: createBfclTaskSource({ dataset }),
    backend: createBfclBackend({ runtime: dataset.runtime }),
    verifier: createBfclVerifier({ runtime: dataset.runtime }),
  };
}
