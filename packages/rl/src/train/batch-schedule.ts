import type { CurriculumStage } from '@seal/evolve';
import { PyRandom } from '@seal/python';
import type { Task } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { deriveSeed } from '../rollout/run-rollouts';

/**
 * The tasks of training step `step` (1-based): a seeded order of the pool
 * per epoch (`config.batchOrder`: a shuffle, or categories dealt in turn),
 * then consecutive slices of `tasksPerStep` (drop_last). The pool is the
 * training tasks, or under Environment Tuning those of the current stage.
 * `perEpoch` is the number of steps in an epoch.
 */
export function scheduleBatch({
  step,
  config,
  pool,
}: {
  step: number;
  config: TrainConfig;
  pool: readonly Task[];
}): { batch: Task[]; perEpoch: number } {
  const perEpoch = Math.max(1, Math.floor(pool.length / config.tasksPerStep));
  const epoch = Math.floor((step - 1) / perEpoch);
  const order =
    config.batchOrder === 'stratified'
      ? stratifiedForEpoch(pool, config.seed, epoch)
      : shuffleForEpoch(pool, config.seed, epoch);
  const offset = ((step - 1) % perEpoch) * config.tasksPerStep;
  return {
    batch: order.slice(offset, offset + config.tasksPerStep),
    perEpoch,
  };
}

/** Tasks a curriculum stage trains on (all of them when the stage's subset is empty). */
export function stageTasks(
  tasks: readonly Task[],
  data: CurriculumStage['data'],
): Task[] {
  if (data === 'all') return [...tasks];
  const base = tasks.filter((task) => task.category === 'multi_turn_base');
  if (base.length === 0) return [...tasks];
  if (data === 'base') return base;
  // Easy: the shortest base tasks (fewest turns, then fewest ground-truth calls).
  const sorted = [...base].sort(
    (a, b) =>
      a.groundTruth.length - b.groundTruth.length ||
      a.groundTruth.flat().length - b.groundTruth.flat().length,
  );
  return sorted.slice(0, Math.max(1, Math.ceil(sorted.length / 4)));
}

function shuffleForEpoch(
  tasks: readonly Task[],
  seed: number,
  epoch: number,
): Task[] {
  const rng = new PyRandom(BigInt(deriveSeed(seed, 0x7a5c, epoch)));
  return rng.shuffle([...tasks]);
}

/**
 * Each category shuffled on its own, then dealt in rounds: every round takes
 * the next task of each category that has one left, in a shuffled category
 * order. With equal categories every slice of a multiple of their number
 * holds each equally often; a larger category's surplus comes last.
 */
function stratifiedForEpoch(
  tasks: readonly Task[],
  seed: number,
  epoch: number,
): Task[] {
  const rng = new PyRandom(BigInt(deriveSeed(seed, 0x57a7, epoch)));
  const byCategory = new Map<string, Task[]>();
  for (const task of tasks) {
    const list = byCategory.get(task.category);
    if (list) list.push(task);
    else byCategory.set(task.category, [task]);
  }
  // Categories in sorted order, so which one comes first in the pool does not matter.
  const queues = [...byCategory.keys()]
    .sort()
    .map((name) => rng.shuffle([...byCategory.get(name)!]));
  const order: Task[] = [];
  for (let round = 0; order.length < tasks.length; round += 1) {
    const open = queues.filter((queue) => round < queue.length);
    for (const queue of rng.shuffle(open)) order.push(queue[round]!);
  }
  return order;
}
