import { PyRandom } from '@seal/python';
import {
  SealError,
  taskCategorySchema,
  type Task,
  type TaskCategory,
} from '@seal/spec';
import * as z from 'zod';
import type { BfclRuntimeData } from '@seal/bfcl';
import { buildTask, createGeneratorRuntime } from './build-task';
import { taskFamilies } from './families';
import {
  bucketAllowed,
  familiesForSplit,
  generatorSplits,
  supportsLongContext,
} from './generator-splits';
import { deriveSeed } from './seeds';
import { invalidGroundTruthReason, type TaskFamily } from './task-family';

/** The four BFCL categories, the default variants of every split but warmup. */
export const generatedCategories: readonly TaskCategory[] =
  taskCategorySchema.options;

/** Categories a warmup pool may hold: base-style only (the agent always acts). */
export const warmupCategories: readonly TaskCategory[] = ['multi_turn_base'];

/** Zod schema of {@link GenerateTasksOptions} (without `runtime`, which is not data). */
export const generateTasksOptionsSchema = z
  .object({
    /** Seed of the whole pool. */
    seed: z.int().nonnegative(),
    /** Which split to draw. */
    split: z.enum(generatorSplits),
    /** How many tasks, all categories together. */
    count: z.int().nonnegative().max(100_000),
    /**
     * Categories to produce, in rotation. Default: all four (warmup: base
     * only; a warm start that should also ask for missing values or wait for
     * missing tools asks for those variants explicitly).
     */
    variants: z.array(taskCategorySchema).min(1).optional(),
    /** Restrict to these family ids. Default: every family of the split. */
    families: z.array(z.string().min(1)).min(1).optional(),
  })
  .strict();

/** Options of {@link generateTasks}. */
export type GenerateTasksOptions = z.input<
  typeof generateTasksOptionsSchema
> & {
  /** Runtime data for executing ground truth. Default: an empty runtime (generated states are complete). */
  runtime?: BfclRuntimeData;
};

/** Seeds tried per task slot before the slot moves on to the next family. */
const attemptsPerFamily = 24;

function invalid(message: string, details: Record<string, unknown>): SealError {
  return new SealError({ code: 'INVALID_ARGUMENT', message, details });
}

/**
 * Generates a pool of tasks: `count` tasks that rotate through the requested
 * categories (ids `gen_<split>_<category>_<n>`, `n` counting per category)
 * and, per category, through the split's families in a seeded order (in
 * test-ood, alternately an in-distribution family with held-out phrasings
 * and a held-out composition). Each
 * task has its own seed drawn from the pool seed; a draw whose values belong
 * to another split's content bucket, or that repeats a task already drawn,
 * is redrawn. The same options always give the same tasks, byte for byte.
 *
 * Throws INVALID_ARGUMENT for malformed options, unknown family ids, or a family/category pairing that cannot be met.
 */
export function generateTasks(options: GenerateTasksOptions): Task[] {
  const { runtime, ...rest } = options;
  const parsed = generateTasksOptionsSchema.safeParse(rest);
  if (!parsed.success) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `generateTasks: ${z.prettifyError(parsed.error)}`,
      cause: parsed.error,
      details: { issues: parsed.error.issues },
    });
  }
  const { seed, split, count, variants, families: familyIds } = parsed.data;
  const categories =
    variants ?? (split === 'warmup' ? warmupCategories : generatedCategories);
  let pool = familiesForSplit({ split, families: taskFamilies });
  if (familyIds !== undefined) {
    const unknown = familyIds.filter(
      (id) => !taskFamilies.some((family) => family.id === id),
    );
    if (unknown.length > 0)
      throw invalid(`unknown task families: ${unknown.join(', ')}`, {
        families: unknown,
      });
    pool = pool.filter((family) => familyIds.includes(family.id));
    if (pool.length === 0)
      throw invalid(
        `none of the families ${familyIds.join(', ')} belongs to split ${split}`,
        { split },
      );
  }
  const data = runtime ?? createGeneratorRuntime();
  const master = new PyRandom(deriveSeed('generate-tasks', seed, split));
  // Per category, one or two family groups in a seeded order: test-ood
  // alternates between in-distribution families (held-out phrasings) and
  // held-out compositions, so both make up about half of it.
  const rotations = new Map<
    TaskCategory,
    { groups: { families: TaskFamily[]; next: number }[]; made: number }
  >();
  for (const category of categories) {
    if (rotations.has(category)) continue;
    const eligible = pool.filter(
      (family) =>
        category !== 'multi_turn_long_context' || supportsLongContext(family),
    );
    if (eligible.length === 0)
      throw invalid(`no family of split ${split} can make ${category} tasks`, {
        split,
        category,
      });
    const groups = [
      eligible.filter((family) => family.pool === 'in-distribution'),
      eligible.filter((family) => family.pool === 'out-of-distribution'),
    ]
      .filter((group) => group.length > 0)
      .map((group) => ({ families: master.shuffle([...group]), next: 0 }));
    rotations.set(category, { groups, made: 0 });
  }

  const seen = new Set<string>();
  const tasks: Task[] = [];
  for (let index = 0; index < count; index++) {
    const category = categories[index % categories.length]!;
    const rotation = rotations.get(category)!;
    const group = rotation.groups[rotation.made % rotation.groups.length]!;
    let task: Task | undefined;
    for (
      let tried = 0;
      task === undefined && tried < group.families.length;
      tried++
    ) {
      const family = group.families[group.next % group.families.length]!;
      group.next++;
      for (let attempt = 0; attempt < attemptsPerFamily; attempt++) {
        const taskSeed = Number(master.randint(0, 2 ** 48 - 1));
        let candidate: Task;
        try {
          candidate = buildTask({
            family,
            category,
            seed: taskSeed,
            split,
            id: `gen_${split}_${category}_${rotation.made}`,
            runtime: data,
          });
        } catch (error) {
          // A draw whose ground truth fails is a generator bug that tests
          // catch; in a long run the draw is skipped, not the run.
          if (
            SealError.isInstance(error) &&
            error.details['reason'] === invalidGroundTruthReason
          )
            continue;
          throw error;
        }
        const meta = candidate.meta as { fingerprint: string };
        const key = `${category}:${meta.fingerprint}`;
        if (
          seen.has(key) ||
          !bucketAllowed({ split, family, fingerprint: meta.fingerprint })
        )
          continue;
        seen.add(key);
        candidate.meta = { ...candidate.meta, generatorSeed: seed, index };
        task = candidate;
        break;
      }
    }
    if (task === undefined) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `could not draw a new ${category} task for split ${split} (the families' value space is used up; ask for fewer tasks)`,
        details: { split, category, count },
      });
    }
    rotation.made++;
    tasks.push(task);
  }
  return tasks;
}
