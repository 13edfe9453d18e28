import { bfclEntryToTask, type BfclDataset } from '@seal/bfcl';
import { SealError, type Task } from '@seal/spec';

/**
 * Where the service finds tasks: by id for `/create`, and task-id lists per
 * split for `/get_env_profile`.
 */
export type TaskSource = {
  /** The task with this id, or `undefined` when there is none. */
  get(taskId: string): Task | undefined;
  /**
   * The task ids of a split, or `undefined` for an unknown split name. The
   * accepted names are listed in {@link TaskSource.splits}.
   */
  list(split: string): readonly string[] | undefined;
  /** The split names {@link TaskSource.list} accepts. */
  readonly splits: readonly string[];
};

/**
 * The BFCL v3 multi-turn tasks of a loaded data directory. Split names for
 * `/get_env_profile` (SEAL passes `train` and `val`):
 * - `train`: the 400 training ids of `split-seal-400.json`;
 * - `val`, `eval`, `test`: the 400 evaluation ids (SEAL evaluates on all 400);
 * - `eval_val`: the 100-id validation subset of the evaluation split;
 * - `all`: all 800 entries in BFCL order.
 * Without `split-seal-400.json` only `all` is available. Tasks are converted
 * once and cached; a cached task is shared read-only by every episode.
 */
export function createBfclTaskSource({
  dataset,
}: {
  dataset: BfclDataset;
}): TaskSource {
  const cache = new Map<string, Task>();
  const all = dataset.entries.map((entry) => entry.id);
  const split = dataset.split;
  const lists: Record<string, readonly string[]> = { all };
  if (split) {
    lists['train'] = split.train;
    lists['val'] = split.eval;
    lists['eval'] = split.eval;
    lists['test'] = split.eval;
    lists['eval_val'] = split.evalVal;
  }
  return {
    splits: Object.keys(lists),
    get(taskId) {
      const cached = cache.get(taskId);
      if (cached) return cached;
      const entry = dataset.byId.get(taskId);
      if (!entry) return undefined;
      const task = bfclEntryToTask({ entry, dataset });
      cache.set(taskId, task);
      return task;
    },
    list(name) {
      return Object.hasOwn(lists, name) ? lists[name] : undefined;
    },
  };
}

/** A task source over a fixed list of tasks (generated tasks, tests). */
export function createStaticTaskSource({
  tasks,
  splits = {},
}: {
  tasks: readonly Task[];
  /** Split name → task ids; `all` is added (every task, in order). */
  splits?: Readonly<Record<string, readonly string[]>>;
}): TaskSource {
  const byId = new Map(tasks.map((task) => [task.id, task]));
  const lists: Record<string, readonly string[]> = {
    ...splits,
    all: tasks.map((task) => task.id),
  };
  for (const [name, ids] of Object.entries(lists)) {
    for (const id of ids) {
      if (!byId.has(id)) {
        throw new SealError({
          code: 'INVALID_ARGUMENT',
          message: `split '${name}' names task ${id}, which is not in the task list`,
          details: { split: name, taskId: id },
        });
      }
    }
  }
  return {
    splits: Object.keys(lists),
    get: (taskId) => byId.get(taskId),
    list: (name) => (Object.hasOwn(lists, name) ? lists[name] : undefined),
  };
}
