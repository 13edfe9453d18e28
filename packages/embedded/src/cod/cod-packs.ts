import { createBfclBackend } from '@seal/bfcl';
import { createGeneratorRuntime, generateTasks } from '@seal/bfcl-tasks';
import {
  buildPacks,
  createBfclPackEnvironment,
  createFrozenLakeEnvironment,
  generateFrozenLakeTasks,
  type CodPackSource,
  type Pack,
  type PackEnvironment,
  type PromptFormat,
} from '@seal/cod';
import type { Task } from '@seal/spec';
import { createBfclVerifier } from '@seal/verifier';

/** The pack environments the CLI offers. */
export const codEnvironments = [
  'frozen-lake',
  'frozen-lake-literal',
  'bfcl',
] as const;

/** See {@link codEnvironments}. */
export type CodEnvironmentName = (typeof codEnvironments)[number];

/** An environment with packs drawn for a run (`@seal/cod`'s, which `runCodTraining` takes). */
export type { CodPackSource };

/**
 * The embedded pack sources: FrozenLake-Obscure maps (train 4–5 wide; the
 * evaluation split uses other seeds, `harder` 6–7 wide; `frozen-lake-literal`:
 * the same maps and pack seeds, with observations that name the real move,
 * decision 0041), or the embedded
 * generator's base tasks behind per-pack BFCL aliases.
 */
export function createCodPackSource({
  name,
  seed,
  split,
  format = 'paper',
}: {
  name: CodEnvironmentName;
  seed: number;
  split: 'train' | 'eval' | 'harder';
  /** Prompt wording of the FrozenLake system prompt (`compact` for the embedded CoD model). */
  format?: PromptFormat;
}): CodPackSource {
  // Evaluation tasks and pack seeds never overlap training ones.
  const splitSeed = { train: 0, eval: 1_000_003, harder: 2_000_003 }[split];
  if (name === 'frozen-lake' || name === 'frozen-lake-literal') {
    const environment = createFrozenLakeEnvironment({
      format,
      observations: name === 'frozen-lake-literal' ? 'literal' : 'positions',
    });
    return {
      environment: environment as PackEnvironment<unknown>,
      packs: ({ count, packSize, strategy, round }) => {
        const tasks = generateFrozenLakeTasks({
          seed: seed + splitSeed + round * 7919,
          count: count * packSize,
          ...(split === 'harder' ? { minSize: 6, maxSize: 7 } : {}),
        });
        return buildPacks({
          tasks,
          taskId: (t) => t.taskId,
          tasksetId: (t) => t.tasksetId,
          packSize,
          strategy,
          seed: seed + splitSeed + round,
        }).slice(0, count) as Pack<unknown>[];
      },
    };
  }
  const runtime = createGeneratorRuntime();
  const environment = createBfclPackEnvironment({
    backend: createBfclBackend({ runtime }),
    verifier: createBfclVerifier({ runtime }),
  });
  return {
    environment: environment as PackEnvironment<unknown>,
    packs: ({ count, packSize, strategy, round }) => {
      // One taskset for the whole pool: the regularity (how names are spelled) holds across the eight classes.
      const tasks = generateTasks({
        seed: seed + splitSeed + round,
        split:
          split === 'train'
            ? 'train'
            : split === 'eval'
              ? 'test-id'
              : 'test-ood',
        count: count * packSize,
        variants: ['multi_turn_base'],
      });
      return buildPacks<Task>({
        tasks,
        taskId: (t) => t.id,
        tasksetId: () => 'generated',
        packSize,
        strategy,
        seed: seed + splitSeed + round,
      }).slice(0, count) as Pack<unknown>[];
    },
  };
}
