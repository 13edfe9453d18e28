import { toSealError, type Task } from '@seal/spec';
import { generatorSplits, type GeneratorSplit } from './generator-splits';
import {
  generateTasks,
  generatedCategories,
  warmupCategories,
} from './generate-tasks';

/** Ids the task generator gives: `gen_<split>_<category>_<n>`, `n` counting per category. */
const generatedIdPattern =
  /^gen_(.+)_(multi_turn_(?:base|miss_func|miss_param|long_context))_(\d+)$/;

/** Whether `id` has the form of a generated task's id (`gen_<split>_<category>_<n>`). */
export function isGeneratedTaskId(id: string): boolean {
  return generatedIdPattern.test(id);
}

/** A task re-drawn from its id, or why it could not be. */
export type RedrawnTask =
  { success: true; task: Task } | { success: false; reason: string };

/**
 * Re-draws generated tasks from their ids: generation is deterministic and
 * each task depends only on those before it, so the pool of the id's split
 * drawn with the same seed holds it at a position the id names. Each split's
 * pool is drawn once and grown on demand (doubling), so re-drawing many tasks
 * of one run costs about one draw of the largest. Tasks of a pool drawn with
 * `families` or other `variants` than the split's default have other ids at
 * those positions: the caller checks the task against what it recorded.
 */
export function createTaskRedrawer({
  seed,
}: {
  /** The seed the tasks were generated with. */
  seed: number;
}): (id: string) => RedrawnTask {
  const pools = new Map<GeneratorSplit, Task[]>();
  return (id) => {
    const match = generatedIdPattern.exec(id);
    if (!match)
      return { success: false, reason: `${id} is not a generated task id` };
    const [, split, category, n] = match as unknown as [
      string,
      string,
      string,
      string,
    ];
    if (!(generatorSplits as readonly string[]).includes(split))
      return { success: false, reason: `the generator has no split ${split}` };
    const categories =
      split === 'warmup' ? warmupCategories : generatedCategories;
    const position = categories.indexOf(
      category as (typeof categories)[number],
    );
    if (position < 0)
      return {
        success: false,
        reason: `split ${split} has no ${category} tasks`,
      };
    const need = Number(n) * categories.length + position + 1;
    const key = split as GeneratorSplit;
    let tasks = pools.get(key) ?? [];
    if (tasks.length < need) {
      const draw = (count: number) =>
        generateTasks({ seed, split: key, count });
      try {
        tasks = draw(Math.max(need, tasks.length * 2));
      } catch {
        // The doubled pool may exceed the generator's limits where `need` does not.
        try {
          tasks = draw(need);
        } catch (error) {
          return {
            success: false,
            reason: `cannot re-draw ${id}: ${toSealError(error).message}`,
          };
        }
      }
      pools.set(key, tasks);
    }
    const task = tasks[need - 1];
    return task?.id === id
      ? { success: true, task }
      : { success: false, reason: `the generator did not re-draw ${id}` };
  };
}
