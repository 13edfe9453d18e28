import {
  bfclCategories,
  bfclTasks,
  loadBfclData,
  resolveBfclDataDir,
  type BfclCategory,
  type BfclRuntimeData,
} from '@seal/bfcl';
import {
  confirmationSuiteSeed,
  createGeneratorRuntime,
  generateConfirmationTasks,
  taskFamilies,
} from '@seal/bfcl-tasks';
import {
  embeddedPresets,
  embeddedTasks,
  type EmbeddedPreset,
  type PolicyHints,
} from '@seal/embedded';
import { SealError, type Task } from '@seal/spec';

/** The task suite of one evaluation. */
export type TaskSuite = {
  /** One line for the header of the run, e.g. `BFCL eval split`. */
  description: string;
  /** What the results file's config hash covers of the suite. */
  identity: Record<string, unknown>;
  tasks: Task[];
  /** The runtime data the suite's episodes and verification run on. */
  runtime: BfclRuntimeData;
};

/** The flags of `seal eval` that choose its tasks. */
export type TaskSuiteFlags = {
  'task-source': 'embedded' | 'bfcl';
  preset?: 'default' | 'smoke' | undefined;
  data?: string | undefined;
  split?: 'eval' | 'train' | 'all' | 'test-id' | 'test-ood' | undefined;
  /** The embedded suite's development tasks (default) or the confirmation suite's. */
  suite?: 'development' | 'confirmation' | undefined;
  category?: string | undefined;
  limit?: number | undefined;
};

/**
 * The tasks of one evaluation: BFCL's own split (from its data directory) or
 * the embedded suite a model was trained beside (its preset and seed from the
 * model's hints unless `--preset` names another), narrowed by `--category` and
 * `--limit`.
 */
export async function loadTaskSuite({
  flags,
  hints,
}: {
  flags: TaskSuiteFlags;
  hints: PolicyHints;
}): Promise<TaskSuite> {
  const categories = parseCategories(flags.category);
  if (flags['task-source'] === 'bfcl') {
    if (flags.suite === 'confirmation') {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message:
          '--suite confirmation is a generated suite: use it with --task-source embedded',
      });
    }
    const split = flags.split ?? 'eval';
    if (split !== 'eval' && split !== 'train' && split !== 'all') {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `--split ${split} is for the embedded suite; BFCL has eval, train and all`,
      });
    }
    const dataset = await loadBfclData({
      dir: resolveBfclDataDir({ flag: flags.data }),
      categories,
    });
    const tasks = selectTasks({
      tasks: bfclTasks({ dataset, split }),
      categories,
      limit: flags.limit,
    });
    return {
      description: `BFCL ${split} split`,
      identity: { source: 'bfcl' },
      tasks,
      runtime: dataset.runtime,
    };
  }
  const split = flags.split ?? 'all';
  if (split !== 'test-id' && split !== 'test-ood' && split !== 'all') {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `--split ${split} is for BFCL; the embedded suite has test-id, test-ood and all`,
    });
  }
  const name = flags.preset ?? hints.preset?.name ?? 'default';
  const seed =
    hints.preset?.name === name
      ? hints.preset.seed
      : embeddedPresets[name].seed;
  const preset: EmbeddedPreset = { ...embeddedPresets[name], seed };
  const development = embeddedTasks(preset);
  const confirmation = flags.suite === 'confirmation';
  // The confirmation suite: the development suite's sizes and families at
  // the reserved generator seed, leaving out the development suite's tasks.
  const families = taskFamilies
    .filter((family) => preset.difficulties.includes(family.difficulty))
    .map((family) => family.id);
  const held = (which: 'test-id' | 'test-ood', tasks: Task[]): Task[] =>
    confirmation
      ? generateConfirmationTasks({
          split: which,
          count: tasks.length,
          families,
          excluding: tasks,
        })
      : tasks;
  const pool = [
    ...(split === 'test-ood' ? [] : held('test-id', development.testId)),
    ...(split === 'test-id' ? [] : held('test-ood', development.testOod)),
  ];
  return {
    description: confirmation
      ? `embedded ${name} confirmation suite (generator seed ${confirmationSuiteSeed}, development seed ${seed} left out), ${split === 'all' ? 'test-id and test-ood' : split}`
      : `embedded ${name} suite (seed ${seed}), ${split === 'all' ? 'test-id and test-ood' : split}`,
    identity: {
      source: 'embedded',
      preset: name,
      seed,
      ...(confirmation
        ? { suite: 'confirmation', suiteSeed: confirmationSuiteSeed }
        : {}),
    },
    tasks: selectTasks({ tasks: pool, categories, limit: flags.limit }),
    runtime: createGeneratorRuntime(),
  };
}

/** `--category base,miss_param` as BFCL categories (all four when absent). */
function parseCategories(list: string | undefined): BfclCategory[] {
  if (list === undefined) return [...bfclCategories];
  return list.split(',').map((raw) => {
    const name = raw.trim();
    const full = name.startsWith('multi_turn_') ? name : `multi_turn_${name}`;
    const found = bfclCategories.find((category) => category === full);
    if (found === undefined) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `--category: unknown category '${name}' (one of base, miss_func, miss_param, long_context)`,
      });
    }
    return found;
  });
}

/** The first `limit` tasks of each selected category, in the suite's order. */
function selectTasks({
  tasks,
  categories,
  limit,
}: {
  tasks: readonly Task[];
  categories: readonly BfclCategory[];
  limit: number | undefined;
}): Task[] {
  const wanted = new Set<string>(categories);
  const counts = new Map<string, number>();
  return tasks.filter((task) => {
    if (!wanted.has(task.category)) return false;
    const count = counts.get(task.category) ?? 0;
    if (limit !== undefined && count >= limit) return false;
    counts.set(task.category, count + 1);
    return true;
  });
}
