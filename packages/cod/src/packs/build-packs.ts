import { SealError } from '@seal/spec';
import { mixSeed } from './pack-random';

/**
 * How tasks become packs (spec B1, B6):
 * - `cod`: different tasks of one taskset per pack;
 * - `ralph_sample`: each `cod` pack's first task repeated `packSize` times
 *   (the pack seed, hence the hidden regularity, stays the pack's);
 * - `ralph_full`: every task is the anchor of its own repeated pack.
 */
export const packStrategies = ['cod', 'ralph_sample', 'ralph_full'] as const;

/** See {@link packStrategies}. */
export type PackStrategy = (typeof packStrategies)[number];

/** Pack size of training (spec B1). */
export const trainPackSize = 4;

/** Pack size of evaluation: longer than training, to test extrapolation (spec B1). */
export const evalPackSize = 8;

/** A pack: tasks solved in order by one pack run, sharing one hidden regularity. */
export type Pack<TTask> = {
  /** Unique within a build: `<strategy>/<seed>/<index>`. */
  packId: string;
  /** Position in the build's output. */
  packIndex: number;
  /** Draws the pack's hidden regularity; re-drawn per pack. */
  packSeed: number;
  /** The taskset every task of the pack comes from. */
  tasksetId: string;
  strategy: PackStrategy;
  /** The tasks, in solve order. */
  tasks: TTask[];
};

/** Options of {@link buildPacks}. */
export type BuildPacksOptions<TTask> = {
  /** Candidate tasks, in the order packs should take them. */
  tasks: readonly TTask[];
  /** A task's id (for messages). */
  taskId: (task: TTask) => string;
  /** A task's taskset; packs never mix tasksets. */
  tasksetId: (task: TTask) => string;
  /** Tasks per pack, at least 2. */
  packSize: number;
  /** Default `cod`. */
  strategy?: PackStrategy;
  /** Seeds the pack seeds. */
  seed: number;
  /**
   * What happens to the tasks of a taskset left over after its full packs
   * (fewer than `packSize`): `cyclic` (default) fills a last pack with the
   * taskset's first tasks again; `drop` leaves them out. A taskset with fewer
   * tasks than one pack yields no `cod` pack either way.
   */
  padding?: 'cyclic' | 'drop';
};

/** The seed of pack `packIndex` of a build seeded with `seed`. */
export function derivePackSeed({
  seed,
  packIndex,
}: {
  seed: number;
  packIndex: number;
}): number {
  return mixSeed(seed, packIndex, 0x70ac);
}

function groupByTaskset<TTask>(
  tasks: readonly TTask[],
  tasksetId: (task: TTask) => string,
): Map<string, TTask[]> {
  const groups = new Map<string, TTask[]>();
  for (const task of tasks) {
    const id = tasksetId(task);
    const group = groups.get(id);
    if (group) group.push(task);
    else groups.set(id, [task]);
  }
  return groups;
}

/**
 * Groups tasks into packs (spec B1, B6). Tasksets keep their first-appearance
 * order and their tasks keep the input order; pack `k` gets the seed
 * `derivePackSeed({ seed, packIndex: k })`. Throws `INVALID_ARGUMENT` for a
 * pack size below 2, and when no taskset has enough tasks for one pack.
 */
export function buildPacks<TTask>(
  options: BuildPacksOptions<TTask>,
): Pack<TTask>[] {
  const { tasks, packSize, seed } = options;
  const strategy = options.strategy ?? 'cod';
  const padding = options.padding ?? 'cyclic';
  if (!Number.isInteger(packSize) || packSize < 2) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `pack size must be a whole number ≥ 2 (a pack of one task has nothing to carry over), got ${packSize}`,
      details: { packSize },
    });
  }
  if (!(packStrategies as readonly string[]).includes(strategy)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `unknown pack strategy '${strategy}' (expected ${packStrategies.join(', ')})`,
      details: { strategy },
    });
  }
  const packs: Pack<TTask>[] = [];
  const push = (tasksetId: string, packTasks: TTask[], packSeed?: number) => {
    const packIndex = packs.length;
    packs.push({
      packId: `${strategy}/${seed}/${packIndex}`,
      packIndex,
      packSeed: packSeed ?? derivePackSeed({ seed, packIndex }),
      tasksetId,
      strategy,
      tasks: packTasks,
    });
  };
  if (strategy === 'ralph_full') {
    if (tasks.length === 0) throw tooSmall({ packSize, largest: undefined });
    for (const task of tasks)
      push(options.tasksetId(task), new Array<TTask>(packSize).fill(task));
    return packs;
  }
  const groups = groupByTaskset(tasks, options.tasksetId);
  for (const [tasksetId, group] of groups) {
    if (group.length < packSize) continue;
    for (let start = 0; start < group.length; start += packSize) {
      const chunk = group.slice(start, start + packSize);
      if (chunk.length < packSize) {
        if (padding === 'drop') break;
        // Cyclic padding: continue from the taskset's first tasks.
        for (let i = 0; chunk.length < packSize; i++)
          chunk.push(group[i % group.length]!);
      }
      push(
        tasksetId,
        strategy === 'ralph_sample'
          ? new Array<TTask>(packSize).fill(chunk[0]!)
          : chunk,
      );
    }
  }
  if (packs.length === 0) {
    let largest: { id: string; size: number } | undefined;
    for (const [id, group] of groups)
      if (largest === undefined || group.length > largest.size)
        largest = { id, size: group.length };
    throw tooSmall({ packSize, largest });
  }
  return packs;
}

function tooSmall({
  packSize,
  largest,
}: {
  packSize: number;
  largest: { id: string; size: number } | undefined;
}): SealError {
  return new SealError({
    code: 'INVALID_ARGUMENT',
    message:
      largest === undefined
        ? `no tasks to build packs of ${packSize} from`
        : `no taskset has enough tasks for one pack of ${packSize} (the largest, '${largest.id}', has ${largest.size})`,
    details: {
      packSize,
      ...(largest === undefined
        ? {}
        : { largestTaskset: largest.id, largestSize: largest.size }),
    },
  });
}
