import { pyJsonDumps } from '@seal/python';
import { SealError, type Task, type ToolDoc } from '@seal/spec';
import type { BfclDataset, BfclEntry } from '../data/load-bfcl-data';

/**
 * Converts a BFCL entry into a {@link Task}: tool docs are the involved
 * classes' doc files concatenated in `involved_classes` order (as BFCL's
 * `process_multi_turn_test_case` does); `missed_function` becomes holdouts.
 */
export function bfclEntryToTask({
  entry,
  dataset,
}: {
  entry: BfclEntry;
  dataset: BfclDataset;
}): Task {
  const tools: ToolDoc[] = entry.involvedClasses.flatMap(
    (className) => dataset.docs.get(className) ?? [],
  );
  const holdouts = Object.entries(entry.missedFunction)
    .map(([turn, toolNames]) => ({ turn: Number(turn), toolNames }))
    .sort((a, b) => a.turn - b.turn);
  for (const holdout of holdouts) {
    for (const name of holdout.toolNames) {
      if (!tools.some((doc) => doc.name === name)) {
        throw new SealError({
          code: 'INVALID_DATA',
          message: `${entry.id}: field 'missed_function.${holdout.turn}': no function doc named ${name}`,
          details: {
            taskId: entry.id,
            path: `missed_function.${holdout.turn}`,
          },
        });
      }
    }
  }
  return {
    schemaVersion: 1,
    id: entry.id,
    category: entry.category,
    source: 'bfcl',
    turns: entry.question.map((turn) =>
      turn.map((message) => ({
        role: message.role === 'system' ? 'system' : 'user',
        content: message.content,
      })),
    ),
    tools,
    holdouts,
    backend: {
      kind: 'bfcl',
      involvedClasses: entry.involvedClasses,
      initialConfig: pyJsonDumps(entry.initialConfig, { ensureAscii: false }),
      longContext: entry.category === 'multi_turn_long_context',
    },
    groundTruth: entry.groundTruth,
  };
}

/** Every entry of the dataset as tasks, optionally restricted to a split or ids. */
export function bfclTasks({
  dataset,
  split,
  ids,
}: {
  dataset: BfclDataset;
  /** `train`, `eval`, or `all` (default). */
  split?: 'train' | 'eval' | 'all';
  ids?: readonly string[];
}): Task[] {
  let entries = dataset.entries;
  if (ids !== undefined) {
    entries = ids.map((id) => {
      const entry = dataset.byId.get(id);
      if (!entry)
        throw new SealError({
          code: 'NOT_FOUND',
          message: `no BFCL entry ${id}`,
          details: { id },
        });
      return entry;
    });
  } else if (split !== undefined && split !== 'all') {
    if (!dataset.split) {
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `the split needs split-seal-400.json in ${dataset.dir}`,
        details: { file: 'split-seal-400.json' },
      });
    }
    const wanted = new Set(dataset.split[split]);
    entries = entries.filter((entry) => wanted.has(entry.id));
  }
  return entries.map((entry) => bfclEntryToTask({ entry, dataset }));
}
