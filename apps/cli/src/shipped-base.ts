import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  prepareEmbedded as prepareEmbeddedAssets,
  type EmbeddedAssets,
} from '@seal/embedded';
import { warmStartManifestFile } from '@seal/spec';

/**
 * The shipped base model: the warm start of the `base` preset, trained once
 * with `seal warmstart --preset base --out apps/cli/assets/base` and
 * committed (model, tokenizer, config, and `warmstart.json` with its recipe,
 * losses and the SHA-256 of its weights). A run whose preset has the same
 * warm-start key starts from it instead of training one; `seal warmstart`
 * rebuilds it from scratch.
 */
export function shippedBaseDirectory(): string | undefined {
  const here = dirname(fileURLToPath(import.meta.url));
  // Sources live in src/, the build in dist/: the assets folder is beside both.
  const directory = join(here, '..', 'assets', 'base');
  return existsSync(join(directory, warmStartManifestFile))
    ? directory
    : undefined;
}

/**
 * `@seal/embedded`'s `prepareEmbedded`, starting from the shipped base model
 * (apps/cli/assets/base) when the preset's warm-start key is its own: what
 * `seal train` and the benchmarks run.
 */
export function prepareEmbedded(
  options: Omit<
    Parameters<typeof prepareEmbeddedAssets>[0],
    'shippedDirectory'
  >,
): Promise<EmbeddedAssets> {
  const shippedDirectory = shippedBaseDirectory();
  return prepareEmbeddedAssets({
    ...options,
    ...(shippedDirectory === undefined ? {} : { shippedDirectory }),
  });
}
