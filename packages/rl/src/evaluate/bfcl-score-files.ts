import type { EpisodeRecord, Task, VerifierV1Result } from '@seal/spec';
import {
  aggregateBfclScores,
  type BfclScores,
  type CategoryScore,
} from '@seal/verifier';

/** BFCL's multi-turn categories, in the column order of its score tables. */
const multiTurnColumns = [
  ['multi_turn_base', 'Base'],
  ['multi_turn_miss_func', 'Miss Func'],
  ['multi_turn_miss_param', 'Miss Param'],
  ['multi_turn_long_context', 'Long Context'],
] as const;

/** One scored task: what the score files are built from. */
export type ScoredTask = {
  task: Task;
  record: EpisodeRecord;
  verification: VerifierV1Result;
};

/** The header row of a BFCL score file (`{accuracy, correct_count, total_count}`). */
export type BfclScoreHeader = {
  accuracy: number;
  correct_count: number;
  total_count: number;
};

/** A failed entry's row in a BFCL score file (the fields BFCL's multi-turn runner writes). */
export type BfclScoreRow = {
  id: string;
  model_name: string;
  test_category: string;
  valid: false;
  error: Record<string, unknown>;
  prompt: Record<string, unknown>;
  model_result_raw: string[][];
  model_result_decoded: string[][][];
  possible_answer: string[][];
  inference_log: string;
};

/** The score files of one evaluation (see {@link buildBfclScoreFiles}). */
export type BfclScoreFiles = {
  /** BFCL's accounting: per category and the multi-turn overall. */
  scores: BfclScores;
  /** `scores.json`: the overall and per-category headers, by BFCL category name. */
  summary: {
    schemaVersion: 1;
    model_name: string;
    /** The unweighted mean of the four categories (a missing one counts 0, as in BFCL). */
    multi_turn_overall: { accuracy: number; display_accuracy: string };
    categories: Record<string, BfclScoreHeader & { display_accuracy: string }>;
  };
  /** `scores.csv`, in the layout of BFCL's `data_multi_turn.csv`. */
  csv: string;
  /**
   * Per category, the lines of BFCL's `BFCL_v3_<category>_score.json` (JSON
   * Lines): the header row, then one row per failed entry.
   */
  categoryFiles: Record<string, [BfclScoreHeader, ...BfclScoreRow[]]>;
};

/** BFCL's `"{:.2f}%".format(accuracy * 100)`. */
export function displayAccuracy(accuracy: number): string {
  return `${(accuracy * 100).toFixed(2)}%`;
}

function header(score: CategoryScore): BfclScoreHeader {
  return {
    accuracy: score.accuracy,
    correct_count: score.correctCount,
    total_count: score.totalCount,
  };
}

function errorOf(verification: VerifierV1Result): Record<string, unknown> {
  const official = verification.official;
  const type = official.errorType ?? 'multi_turn:inference_error';
  const message = official.errorMessage ?? '';
  // The runner's own checks (force_terminated) write the message as a list.
  if (official.checkedBy === 'runner') {
    return { error_message: [message], error_type: type };
  }
  const details: Record<string, unknown> = {};
  if (official.mismatchClass !== undefined) {
    details['mismatch_class'] = official.mismatchClass;
  }
  if (official.mismatchAttributes !== undefined) {
    details['differences'] = official.mismatchAttributes;
  }
  if (official.missingItems !== undefined) {
    details['missing_items'] = official.missingItems;
  }
  return {
    error_message: message,
    error_type: type,
    ...(Object.keys(details).length === 0 ? {} : { details }),
  };
}

function failedRow(modelName: string, scored: ScoredTask): BfclScoreRow {
  const { task, record, verification } = scored;
  return {
    id: task.id,
    model_name: modelName,
    test_category: task.category,
    valid: false,
    error: errorOf(verification),
    prompt: {
      id: task.id,
      question: task.turns,
      involved_classes: task.backend.involvedClasses,
    },
    model_result_raw: record.turns.map((turn) =>
      turn.steps.map((step) => step.text),
    ),
    // BFCL drops steps that decode to nothing.
    model_result_decoded: record.turns.map((turn) =>
      turn.steps
        .filter((step) => step.calls.length > 0)
        .map((step) => step.calls),
    ),
    possible_answer: task.groundTruth,
    inference_log: '',
  };
}

/** BFCL's `data_multi_turn.csv` for one or more models, best first. */
export function bfclMultiTurnCsv(
  models: readonly { modelName: string; scores: BfclScores }[],
): string {
  const rows = [...models]
    .sort((a, b) => b.scores.overall - a.scores.overall)
    .map(({ modelName, scores }, rank) => [
      String(rank + 1),
      modelName,
      displayAccuracy(scores.overall),
      ...multiTurnColumns.map(([category]) => {
        const score = scores.categories[category];
        // BFCL shows N/A for a category that was not run (it still counts 0).
        return score === undefined ? 'N/A' : displayAccuracy(score.accuracy);
      }),
    ]);
  const head = [
    'Rank',
    'Model',
    'Multi Turn Overall Acc',
    ...multiTurnColumns.map(([, title]) => title),
  ];
  // BFCL writes no newline after the last row.
  return [head, ...rows].map((row) => row.join(',')).join('\n');
}

/**
 * BFCL's score files for a set of scored tasks, with its accounting
 * (`aggregateBfclScores`): accuracy per category, the multi-turn overall as
 * the unweighted mean of the four categories, per-category files with a
 * header row and one row per failed entry, and `data_multi_turn.csv`.
 * Tasks are taken in BFCL's order (by category, then id as given).
 */
export function buildBfclScoreFiles({
  modelName,
  scored,
}: {
  modelName: string;
  scored: readonly ScoredTask[];
}): BfclScoreFiles {
  const scores = aggregateBfclScores(
    scored.map(({ task, verification }) => ({
      category: task.category,
      valid: verification.official.valid,
    })),
  );
  const categories: BfclScoreFiles['summary']['categories'] = {};
  const categoryFiles: BfclScoreFiles['categoryFiles'] = {};
  const ordered = [
    ...multiTurnColumns.map(([category]) => category as string),
    ...Object.keys(scores.categories).sort(),
  ].filter((category, index, all) => all.indexOf(category) === index);
  for (const category of ordered) {
    const score = scores.categories[category];
    if (score === undefined) continue;
    categories[category] = {
      ...header(score),
      display_accuracy: displayAccuracy(score.accuracy),
    };
    const failed = scored
      .filter(
        ({ task, verification }) =>
          task.category === category && !verification.official.valid,
      )
      .map((entry) => failedRow(modelName, entry));
    categoryFiles[category] = [header(score), ...failed];
  }
  return {
    scores,
    summary: {
      schemaVersion: 1,
      model_name: modelName,
      multi_turn_overall: {
        accuracy: scores.overall,
        display_accuracy: displayAccuracy(scores.overall),
      },
      categories,
    },
    csv: bfclMultiTurnCsv([{ modelName, scores }]),
    categoryFiles,
  };
}
