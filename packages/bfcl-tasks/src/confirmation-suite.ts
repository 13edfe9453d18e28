import { SealError, type Task } from '@seal/spec';
import { generateTasks, type GenerateTasksOptions } from './generate-tasks';
import { confirmationSuiteSeed } from './seeds';

/** The id prefix of confirmation tasks: their ids never meet a development task's. */
export const confirmationTaskPrefix = 'confirm_';

/** The fingerprint key the generator deduplicates on: category and drawn values. */
function contentKey(task: Task): string | undefined {
  const fingerprint = task.meta?.['fingerprint'];
  return typeof fingerprint === 'string'
    ? `${task.category}:${fingerprint}`
    : undefined;
}

/**
 * Draws held-out tasks of the confirmation suite: the generator's `test-id`
 * or `test-ood` split at {@link confirmationSuiteSeed}, the same families and
 * categories as the development suite, ids prefixed with
 * {@link confirmationTaskPrefix} (`confirm_gen_test-id_multi_turn_base_0`), and
 * none of the tasks in `excluding` (the development suite: a draw with the
 * same category and values is skipped, so the two suites share no task).
 * Deterministic for its options. Only for final figures: choosing a setting
 * on these tasks spends the suite.
 */
export function generateConfirmationTasks({
  split,
  count,
  families,
  variants,
  excluding = [],
  runtime,
}: Omit<GenerateTasksOptions, 'seed' | 'split'> & {
  split: 'test-id' | 'test-ood';
  /** The development suite's tasks, left out of the confirmation suite. */
  excluding?: readonly Task[];
}): Task[] {
  if (split !== 'test-id' && split !== 'test-ood')
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `the confirmation suite holds held-out splits only (test-id, test-ood), got '${String(split)}'`,
    });
  const excluded = new Set(
    excluding.map(contentKey).filter((key) => key !== undefined),
  );
  // Draw more than asked and drop the excluded: the generator's pool of `n`
  // tasks is the first `n` of a larger one, so the kept tasks do not depend
  // on the margin (a dropped task shifts the categories' rotation by one).
  for (let margin = Math.max(8, count); ; margin *= 2) {
    const drawn = generateTasks({
      seed: confirmationSuiteSeed,
      split,
      count: count + margin,
      ...(families === undefined ? {} : { families }),
      ...(variants === undefined ? {} : { variants }),
      ...(runtime === undefined ? {} : { runtime }),
    });
    const kept = drawn.filter((task) => {
      const key = contentKey(task);
      return key === undefined || !excluded.has(key);
    });
    if (kept.length >= count)
      return kept.slice(0, count).map((task) => ({
        ...task,
        id: `${confirmationTaskPrefix}${task.id}`,
        meta: { ...task.meta, suite: 'confirmation' },
      }));
    if (margin >= 8 * count + 64)
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `could not draw ${count} ${split} confirmation tasks outside the ${excluding.length} excluded (${kept.length} of ${drawn.length} drawn were new); ask for fewer`,
      });
  }
}
