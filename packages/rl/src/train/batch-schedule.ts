import type { CurriculumStage } from '@seal/evolve';
import { PyRandom } from '@seal/python';
import { SealError, type Task } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { deriveSeed } from '../rollout/run-rollouts';

/**
 * The tasks of training step `step` (1-based): a seeded order of the pool
 * per epoch (`config.batchOrder`: a shuffle, or categories dealt in turn),
 * then consecutive slices of `tasksPerStep` (drop_last). The pool is the
 * training tasks, or under Environment Tuning those of the current stage.
 * `perEpoch` is the number of steps in an epoch. With `config.taskMix` the
 * steps are dealt by {@link mixedBatch} from the mix's categories instead.
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
  if (config.taskMix !== undefined) {
    const mixed = mixPool(pool, config.taskMix);
    return {
      batch: mixedBatch({
        step,
        seed: config.seed,
        tasksPerStep: config.tasksPerStep,
        pool: mixed,
        mix: config.taskMix,
      }),
      perEpoch: Math.max(1, Math.floor(mixed.length / config.tasksPerStep)),
    };
  }
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

/**
 * The tasks of the pool a task mix trains on: those of its categories with a
 * positive weight. A weighted category with no task in the pool, or with
 * too few for its share of one step, is an error naming it.
 */
export function mixPool(
  pool: readonly Task[],
  mix: Readonly<Record<string, number>>,
): Task[] {
  const weighted = Object.entries(mix).filter(([, weight]) => weight > 0);
  const missing = weighted
    .map(([category]) => category)
    .filter((category) => !pool.some((task) => task.category === category));
  if (missing.length > 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `taskMix names ${missing.map((name) => `'${name}'`).join(', ')}, with no training task of that category (the pool's categories: ${[...new Set(pool.map((task) => task.category))].sort().join(', ')})`,
    });
  return pool.filter((task) => (mix[task.category] ?? 0) > 0);
}

/** Salt of the task mix's per-category shuffles. */
const mixSalt = 0x313c;

/**
 * Step `step`'s tasks under a task mix. Its slots' categories come from a
 * smooth weighted round robin over the weighted categories (sorted by name,
 * so the positions are the same every step and each category gets its share
 * of every step to within one slot); the k-th task of a category is the next
 * of that category's seeded shuffle, reshuffled (a new seed) each time it is
 * spent. A task already in the step is passed over for the next one, so a
 * step never holds a task twice; a category needs at least as many tasks as
 * it has slots in a step. Pure: the steps before `step` are replayed.
 */
export function mixedBatch({
  step,
  seed,
  tasksPerStep,
  pool,
  mix,
}: {
  step: number;
  seed: number;
  tasksPerStep: number;
  pool: readonly Task[];
  mix: Readonly<Record<string, number>>;
}): Task[] {
  const names = Object.keys(mix)
    .filter((name) => mix[name]! > 0)
    .sort();
  const total = names.reduce((sum, name) => sum + mix[name]!, 0);
  // The slots' categories, the same every step.
  const credit = names.map(() => 0);
  const slots: number[] = [];
  for (let slot = 0; slot < tasksPerStep; slot += 1) {
    let best = 0;
    names.forEach((name, index) => {
      credit[index]! += mix[name]!;
      if (credit[index]! > credit[best]!) best = index;
    });
    credit[best]! -= total;
    slots.push(best);
  }
  const byCategory = names.map((name) =>
    pool.filter((task) => task.category === name),
  );
  names.forEach((name, index) => {
    const needed = slots.filter((slot) => slot === index).length;
    if (byCategory[index]!.length < needed)
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `taskMix: category '${name}' has ${byCategory[index]!.length} training tasks for ${needed} places in each step of ${tasksPerStep}`,
      });
  });
  // Each category's queue: its cycles of seeded shuffles, consumed in order.
  const queues = byCategory.map((tasks, index) => ({
    tasks,
    index,
    cycle: -1,
    order: [] as Task[],
  }));
  const refill = (queue: (typeof queues)[number]) => {
    queue.cycle += 1;
    queue.order.push(
      ...new PyRandom(
        BigInt(deriveSeed(seed, mixSalt, queue.index, queue.cycle)),
      ).shuffle([...queue.tasks]),
    );
  };
  let batch: Task[] = [];
  for (let current = 1; current <= step; current += 1) {
    batch = [];
    for (const slot of slots) {
      const queue = queues[slot]!;
      let at = 0;
      for (;;) {
        if (at >= queue.order.length) refill(queue);
        if (!batch.includes(queue.order[at]!)) break;
        at += 1;
      }
      batch.push(queue.order.splice(at, 1)[0]!);
    }
  }
  return batch;
}

/**
 * Checks a task mix against the training tasks before anything runs: every
 * weighted category has tasks, enough for its places in a step. Throws the
 * error {@link mixedBatch} would throw at step 1.
 */
export function checkTaskMix({
  tasks,
  mix,
  tasksPerStep,
}: {
  tasks: readonly Task[];
  mix: Readonly<Record<string, number>>;
  tasksPerStep: number;
}): void {
  mixedBatch({
    step: 1,
    seed: 0,
    tasksPerStep,
    pool: mixPool(tasks, mix),
    mix,
  });
}
