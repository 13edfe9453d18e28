import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import {
  episodeRecordSchema,
  runDirectoryLayout,
  safeParseJsonLines,
  SealError,
  type EpisodeDiagnosis,
  type EpisodeRecord,
} from '@seal/spec';
import {
  trainingMeasures,
  type TrainingCell,
  type TrainingMeasure,
} from './compare-training';

/**
 * Re-verifies one recorded episode: its diagnosis, or why there is none
 * (`@seal/report`'s `EpisodeDiagnoser` is one).
 */
export type TrainingEpisodeDiagnoser = (options: {
  record: EpisodeRecord;
}) =>
  | { type: 'diagnosed'; diagnosis: EpisodeDiagnosis }
  | { type: 'unavailable'; reason: string };

const stepFilePattern = /^(step|baseline)-(\d{6})\.jsonl$/;

function measure(diagnosis: EpisodeDiagnosis): Record<TrainingMeasure, number> {
  return {
    success: diagnosis.success ? 1 : 0,
    spurious: diagnosis.turns.some((turn) => turn.tag === 'spurious_tool_call')
      ? 1
      : 0,
    emptyTurns: diagnosis.turns.filter(
      (turn) => turn.tag === 'empty_turn_model_response',
    ).length,
  };
}

const mean = (values: readonly number[]): number =>
  values.reduce((a, b) => a + b, 0) / values.length;

/** Each measure's mean over a task's episodes. */
function meanMeasures(
  values: readonly Record<TrainingMeasure, number>[],
): Record<TrainingMeasure, number> {
  return Object.fromEntries(
    (Object.keys(trainingMeasures) as TrainingMeasure[]).map((key) => [
      key,
      mean(values.map((value) => value[key])),
    ]),
  ) as Record<TrainingMeasure, number>;
}

/** The rollout's index within its group: the last field of its episode id (`run:s3:task:5`). */
function sampleIndex(record: EpisodeRecord): string | undefined {
  const last = record.episodeId.split(':').at(-1);
  return last !== undefined && /^\d+$/.test(last) ? last : undefined;
}

/**
 * The (step, task) cells of a run trained with the frozen baseline
 * (`frozenBaseline`, `--baseline on`): each step's episodes (`step-N.jsonl`)
 * paired with the baseline's (`baseline-N.jsonl`) by task and sample index,
 * re-verified by `diagnose`, averaged per task. Episodes that cannot be
 * re-verified or paired are counted, not guessed.
 */
export async function readTrainingCells({
  runDirectory,
  diagnose,
  fromStep = 1,
}: {
  runDirectory: string;
  diagnose: TrainingEpisodeDiagnoser;
  /** Leave out steps before this one. */
  fromStep?: number;
}): Promise<{
  cells: TrainingCell[];
  unpaired: number;
  unavailable: string[];
}> {
  const folder = join(runDirectory, runDirectoryLayout.episodes);
  const names = existsSync(folder) ? await readdir(folder) : [];
  const steps = new Map<number, { step?: string; baseline?: string }>();
  for (const name of names) {
    const match = stepFilePattern.exec(name);
    if (!match) continue;
    const step = Number(match[2]);
    if (step < fromStep) continue;
    steps.set(step, {
      ...steps.get(step),
      [match[1] === 'step' ? 'step' : 'baseline']: name,
    });
  }
  const cells: TrainingCell[] = [];
  const unavailable = new Set<string>();
  let unpaired = 0;
  // A torn or foreign line (a run still being written) is skipped, as the report does.
  const read = async (name: string) => {
    const path = join(folder, name);
    const text = await readFile(path, 'utf8').catch((error: unknown) => {
      throw new SealError({
        code: 'FILE_NOT_FOUND',
        message: `cannot read ${path}`,
        cause: error,
        details: { file: path },
      });
    });
    return safeParseJsonLines({
      text,
      source: path,
      schema: episodeRecordSchema,
    }).values;
  };
  const assess = (record: EpisodeRecord): EpisodeDiagnosis | undefined => {
    const assessment = diagnose({ record });
    if (assessment.type === 'diagnosed') return assessment.diagnosis;
    unavailable.add(assessment.reason);
    return undefined;
  };
  for (const [step, files] of [...steps].sort(([a], [b]) => a - b)) {
    if (!files.step || !files.baseline) continue;
    const frozen = new Map<string, EpisodeRecord>();
    for (const record of await read(files.baseline)) {
      const index = sampleIndex(record);
      if (index !== undefined) frozen.set(`${record.taskId}#${index}`, record);
    }
    const byTask = new Map<
      string,
      {
        category: string;
        policy: Record<TrainingMeasure, number>[];
        frozen: Record<TrainingMeasure, number>[];
      }
    >();
    for (const record of await read(files.step)) {
      const index = sampleIndex(record);
      const partner =
        index === undefined
          ? undefined
          : frozen.get(`${record.taskId}#${index}`);
      const policyDiagnosis = partner ? assess(record) : undefined;
      const frozenDiagnosis =
        partner && policyDiagnosis ? assess(partner) : undefined;
      if (!policyDiagnosis || !frozenDiagnosis) {
        unpaired++;
        continue;
      }
      const entry = byTask.get(record.taskId) ?? {
        category: policyDiagnosis.category,
        policy: [],
        frozen: [],
      };
      entry.policy.push(measure(policyDiagnosis));
      entry.frozen.push(measure(frozenDiagnosis));
      byTask.set(record.taskId, entry);
    }
    for (const [taskId, entry] of byTask) {
      cells.push({
        run: runDirectory,
        step,
        taskId,
        category: entry.category,
        episodes: entry.policy.length,
        policy: meanMeasures(entry.policy),
        frozen: meanMeasures(entry.frozen),
      });
    }
  }
  return { cells, unpaired, unavailable: [...unavailable] };
}
