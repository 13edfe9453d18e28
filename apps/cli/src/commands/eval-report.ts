import { bfclCategories, type BfclCategory } from '@seal/bfcl';
import { summarizeDiagnoses } from '@seal/diagnose';
import { emptyOverlayHash } from '@seal/env';
import {
  buildBfclScoreFiles,
  displayAccuracy,
  writeBfclScoreFiles,
  type EvalResultRecord,
  type ScoredTask,
} from '@seal/rl';
import type { DiagnosisSummary } from '@seal/spec';
import { exitCodes } from '../exit-codes';
import type { Output } from '../ui/output';
import { table } from '../ui/table';
import type { PolicySource } from './eval-policy-source';
import type { TaskSuite } from './eval-task-suite';

/**
 * Scores an evaluation's results with BFCL's accounting: writes
 * `scores.json`, `scores.csv` and BFCL's per-category score files under
 * `outDirectory`, then prints the score table, the per-turn failure tags and
 * a summary line.
 */
export async function reportEval({
  output,
  source,
  suite,
  byId,
  config,
  configHash,
  outDirectory,
  resumed,
  ran,
  started,
}: {
  output: Output;
  source: PolicySource;
  suite: TaskSuite;
  /** Every result so far, by task id (resumed and fresh). */
  byId: ReadonlyMap<string, EvalResultRecord>;
  config: Record<string, unknown>;
  configHash: string;
  outDirectory: string;
  resumed: number;
  ran: number;
  /** When the command started (ms since the epoch). */
  started: number;
}): Promise<number> {
  const scored: ScoredTask[] = [];
  const records: EvalResultRecord[] = [];
  for (const task of suite.tasks) {
    const record = byId.get(task.id);
    if (record === undefined) continue;
    records.push(record);
    scored.push({
      task,
      record: record.record,
      verification: record.verification,
    });
  }
  const files = buildBfclScoreFiles({ modelName: source.name, scored });
  const tags = summarizeDiagnoses(records.map((record) => record.diagnosis));
  const summary = {
    ...files.summary,
    tasks: suite.description,
    configHash,
    overlayHash: emptyOverlayHash,
    config,
    tags: Object.fromEntries(
      Object.entries(tags.tags).map(([tag, stats]) => [tag, stats.count]),
    ),
    categoryTags: Object.fromEntries(
      Object.entries(tags.categoryTags).map(([key, stats]) => [
        key,
        stats.count,
      ]),
    ),
  };
  await writeBfclScoreFiles({
    outDirectory,
    modelName: source.name,
    files,
    summary,
  });

  output.line();
  for (const line of scoreTable(files)) output.line(line);
  output.line();
  for (const line of tagTable(tags)) output.line(line);
  output.line();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  output.line(
    `${ran} tasks run, ${resumed} resumed, in ${seconds} s · BFCL multi-turn overall ${displayAccuracy(files.scores.overall)} · ${outDirectory}/{results.jsonl,scores.json,scores.csv}`,
  );
  output.result({
    out: outDirectory,
    model: source.name,
    ran,
    resumed,
    scores: summary,
  });
  return exitCodes.success;
}

function tagTable(summary: DiagnosisSummary): string[] {
  const categories = Object.keys(summary.categories).sort(
    (a, b) =>
      bfclCategories.indexOf(a as BfclCategory) -
      bfclCategories.indexOf(b as BfclCategory),
  );
  const tags = Object.entries(summary.tags)
    .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
    .map(([tag]) => tag);
  const short = (category: string) => category.replace('multi_turn_', '');
  const rows = tags.map((tag) => [
    tag,
    ...categories.map((category) =>
      String(summary.categoryTags[`${category}::${tag}`]?.count ?? 0),
    ),
    String(summary.tags[tag]!.count),
  ]);
  return table(['tag (per turn)', ...categories.map(short), 'total'], rows);
}

function scoreTable(files: ReturnType<typeof buildBfclScoreFiles>): string[] {
  const rows = Object.entries(files.summary.categories).map(
    ([category, score]) => [
      category,
      score.display_accuracy,
      String(score.correct_count),
      String(score.total_count),
    ],
  );
  rows.push([
    'multi-turn overall',
    files.summary.multi_turn_overall.display_accuracy,
    '',
    '',
  ]);
  return table(['category', 'accuracy', 'correct', 'total'], rows);
}
