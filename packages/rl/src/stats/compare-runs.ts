import { SealError, type EvalEvent } from '@seal/spec';
import {
  clusteredPairedBootstrap,
  minimumDetectableEffect,
  minimumDetectableEffectOverRuns,
  sampleStandardDeviation,
  type PairedEstimate,
} from './bootstrap';
import { compareCrossed, seedTInterval } from './crossed-bootstrap';

/** One run's evaluations, as `seal compare` pairs them. */
export type ComparedRun = {
  /** How the run is named in messages (its directory). */
  name: string;
  /** The run's RL seed (`config.json`); pairs a run with its control. */
  seed: number | undefined;
  evaluations: readonly EvalEvent[];
};

/**
 * The measures of an evaluation per task: sampled pass@1 (the share of the k
 * samples that succeed), greedy, and pass@k (1 where any of the k samples
 * succeeds), which falls when RL narrows what the policy reaches.
 */
export type CompareMeasure = 'sampled' | 'greedy' | 'pass@k';

/** One run's share of a comparison. */
export type ComparedPair = {
  /** The run (and, with a control, the control it is paired with). */
  run: string;
  control?: string;
  seed: number | undefined;
  /** The steps compared: `after` of the run against `before` (of the control, or of the run itself). */
  before: number;
  after: number;
  /** Paired tasks. */
  tasks: number;
  /** Mean success before and after, and their difference (fractions). */
  meanBefore: number;
  meanAfter: number;
  gain: number;
};

/** A measure on one evaluation set, pooled over the runs. */
export type ComparedMeasure = {
  set: string;
  measure: CompareMeasure;
  /** The category the tasks were restricted to, if any. */
  category?: string;
  /** Samples per task (k) of a sampled measure. */
  samples?: number;
  /**
   * The sampling temperatures of a sampled measure: the runs' and their
   * baseline's (the warm start at step 0, or the control). `matched` is true
   * only when the baseline was sampled at a temperature chosen for it on
   * validation data; no run records that yet, so a sampled gain at T = 1
   * against the warm start at T = 1 is not temperature-matched: a learned
   * logit scale alone moves it.
   */
  temperatures?: { runs: number; baseline: number; matched: boolean };
  pairs: ComparedPair[];
  /**
   * The gain over every (run, task) cell with its 95% interval: the crossed
   * two-way bootstrap (runs and tasks resampled independently) when every
   * run is scored on the same tasks, otherwise the nested two-stage one
   * (runs, then tasks within a run).
   */
  pooled: PairedEstimate & {
    runs: number;
    design: 'crossed' | 'nested';
    /** The crossed design's standard error (the spread of its resampled means). */
    standardError?: number;
  };
  /** The 95% t-interval over the runs' gains (the run as the unit); undefined with one run. */
  tInterval: PairedEstimate | undefined;
  meanBefore: number;
  meanAfter: number;
  /**
   * The smallest true gain this design detects (two-sided α = 0.05, power
   * 0.8): 2.802 × the crossed standard error (`design`); for the nested
   * fallback, over runs (Student's t on the runs' gains) from two runs on,
   * otherwise over the one run's tasks.
   */
  minimumDetectableEffect:
    { value: number; over: 'design' | 'runs' | 'tasks' } | undefined;
};

/** The categories of BFCL v3 multi-turn, as `--category` names them. */
export const compareCategories = [
  'base',
  'miss_param',
  'miss_func',
  'long_context',
] as const;

/** Whether a task id belongs to a multi-turn category (`multi_turn_miss_param_3`, `gen_test-id_multi_turn_miss_param_3`). */
export function taskInCategory(taskId: string, category: string): boolean {
  return taskId.includes(`multi_turn_${category}_`);
}

const mean = (values: readonly number[]): number =>
  values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;

function evaluationAt(
  run: ComparedRun,
  set: string,
  step: number | undefined,
): EvalEvent {
  const ofSet = run.evaluations.filter((evaluation) => evaluation.set === set);
  if (ofSet.length === 0) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${run.name}: no '${set}' evaluation recorded`,
    });
  }
  if (step === undefined)
    return ofSet.reduce((last, evaluation) =>
      evaluation.step > last.step ? evaluation : last,
    );
  const found = ofSet.find((evaluation) => evaluation.step === step);
  if (!found) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${run.name}: no '${set}' evaluation at step ${step} (recorded at steps ${ofSet.map((evaluation) => evaluation.step).join(', ')})`,
    });
  }
  return found;
}

function perTask(
  evaluation: EvalEvent,
  measure: CompareMeasure,
): Record<string, number> | undefined {
  if (measure === 'greedy') return evaluation.taskSuccess;
  const success = evaluation.sampled?.taskSuccess;
  if (measure === 'sampled' || success === undefined) return success;
  return Object.fromEntries(
    Object.entries(success).map(([id, share]) => [id, share > 0 ? 1 : 0]),
  );
}

/**
 * Pairs each run with its control: by seed when every run records a
 * distinct one, else by position. The lists must be equally long.
 */
export function pairRuns({
  runs,
  controls,
}: {
  runs: readonly ComparedRun[];
  controls: readonly ComparedRun[];
}): [ComparedRun, ComparedRun][] {
  if (runs.length !== controls.length) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `${runs.length} runs against ${controls.length} controls: give one control per run`,
    });
  }
  const distinctSeeds = (list: readonly ComparedRun[]) =>
    list.every((run) => run.seed !== undefined) &&
    new Set(list.map((run) => run.seed)).size === list.length;
  if (!distinctSeeds(runs) || !distinctSeeds(controls))
    return runs.map((run, index) => [run, controls[index]!]);
  return runs.map((run) => {
    const control = controls.find((candidate) => candidate.seed === run.seed);
    if (!control) {
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `${run.name} (seed ${run.seed}) has no control of the same seed (controls' seeds: ${controls.map((candidate) => candidate.seed).join(', ')})`,
      });
    }
    return [run, control];
  });
}

/**
 * Paired gains of training runs on their held-out evaluations, pooled over
 * the runs: the crossed two-way bootstrap (runs and tasks resampled
 * independently) when every run is scored on the same tasks, the nested
 * two-stage one otherwise, with the t-interval over the runs' gains beside
 * it and the design's minimum detectable effect. Greedy comes first.
 * Without controls: each run at `step` (default: its last evaluation)
 * against its own step 0, on the same tasks: what training added to the
 * starting policy. With controls: each run at `step` against its control
 * (see {@link pairRuns}) at `controlStep`: what a change did against the
 * run without it. The paired evaluations must cover the same tasks. A
 * measure is left out when a paired evaluation lacks it (greedy-only runs
 * have no sampled pass@1).
 */
export function compareRuns({
  runs,
  controls,
  step,
  controlStep,
  sets,
  category,
  seed = 1,
}: {
  runs: readonly ComparedRun[];
  controls?: readonly ComparedRun[];
  step?: number;
  controlStep?: number;
  /** Evaluation sets (default: every set the first run evaluated). */
  sets?: readonly string[];
  /** Restrict to one BFCL category's tasks (see {@link compareCategories}). */
  category?: string;
  /** The bootstrap's seed (1: `seal train`'s, so one run reproduces its summary). */
  seed?: number;
}): ComparedMeasure[] {
  if (runs.length === 0)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: 'no runs to compare',
    });
  if (
    category !== undefined &&
    !(compareCategories as readonly string[]).includes(category)
  ) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `unknown category '${category}' (known: ${compareCategories.join(', ')})`,
    });
  }
  const pairs: [ComparedRun, ComparedRun | undefined][] = controls
    ? pairRuns({ runs, controls })
    : runs.map((run) => [run, undefined]);
  const chosenSets = sets ?? [
    ...new Set(runs[0]!.evaluations.map((evaluation) => evaluation.set)),
  ];
  const results: ComparedMeasure[] = [];
  for (const set of chosenSets) {
    const evaluations = pairs.map(([run, control]) => ({
      run,
      control,
      after: evaluationAt(run, set, step),
      before: control
        ? evaluationAt(control, set, controlStep)
        : evaluationAt(run, set, 0),
    }));
    // Greedy first: it is the primary measure (issue 44); sampled beside it.
    for (const measure of ['greedy', 'sampled', 'pass@k'] as const) {
      if (
        evaluations.some(
          ({ before, after }) =>
            !perTask(before, measure) || !perTask(after, measure),
        )
      )
        continue;
      const samples = evaluations[0]!.after.sampled?.samples;
      // pass@k compares like with like only: the same k on both sides of every pair.
      if (
        measure === 'pass@k' &&
        evaluations.some(
          ({ before, after }) =>
            before.sampled?.samples !== samples ||
            after.sampled?.samples !== samples,
        )
      )
        continue;
      const clusters = evaluations.map(({ run, control, before, after }) => {
        const beforeTasks = perTask(before, measure)!;
        const afterTasks = perTask(after, measure)!;
        const ids = Object.keys(afterTasks).sort();
        const missing =
          ids.find((id) => !(id in beforeTasks)) ??
          Object.keys(beforeTasks).find((id) => !(id in afterTasks));
        if (missing !== undefined) {
          throw new SealError({
            code: 'INVALID_ARGUMENT',
            message: `${run.name}${control ? ` against ${control.name}` : ''}: the '${set}' evaluations cover different tasks ('${missing}' is in one only)`,
          });
        }
        const kept =
          category === undefined
            ? ids
            : ids.filter((id) => taskInCategory(id, category));
        return {
          run,
          control,
          before,
          after,
          ids: kept,
          beforeValues: kept.map((id) => beforeTasks[id]!),
          afterValues: kept.map((id) => afterTasks[id]!),
        };
      });
      const cells = clusters.reduce(
        (sum, cluster) => sum + cluster.ids.length,
        0,
      );
      if (cells === 0) continue;
      const runGains = clusters.map(
        ({ beforeValues, afterValues }) =>
          mean(afterValues) - mean(beforeValues),
      );
      const first = clusters[0]!.ids;
      const crossedDesign = clusters.every(
        ({ ids }) =>
          ids.length === first.length && ids.every((id, i) => id === first[i]),
      );
      const rows = clusters.map(({ beforeValues, afterValues }) => ({
        before: beforeValues,
        after: afterValues,
      }));
      let pooled: ComparedMeasure['pooled'];
      let tInterval: PairedEstimate | undefined;
      let detectable: ComparedMeasure['minimumDetectableEffect'];
      if (crossedDesign) {
        const comparison = compareCrossed({ rows, seed });
        const {
          seeds: _seeds,
          tasks: _tasks,
          ...estimate
        } = comparison.crossed;
        pooled = { ...estimate, runs: clusters.length, design: 'crossed' };
        tInterval = comparison.tInterval;
        detectable =
          comparison.minimumDetectableEffect === undefined
            ? undefined
            : { value: comparison.minimumDetectableEffect, over: 'design' };
      } else {
        // Runs scored on different tasks are not a crossed design: resample
        // the runs, then the tasks within each (nested).
        const { clusters: count, ...estimate } = clusteredPairedBootstrap({
          clusters: rows,
          seed,
        });
        pooled = { ...estimate, runs: count, design: 'nested' };
        tInterval =
          runGains.length < 2 ? undefined : seedTInterval({ gains: runGains });
        const differences = clusters.flatMap(({ beforeValues, afterValues }) =>
          afterValues.map((value, index) => value - beforeValues[index]!),
        );
        const overRuns = minimumDetectableEffectOverRuns({
          runDifferences: runGains,
        });
        detectable =
          // Runs whose gains all tie (a spread of 0) say nothing of the spread between
          // runs: fall back to the tasks rather than claim that every effect is detected.
          overRuns !== undefined && overRuns > 0
            ? { value: overRuns, over: 'runs' }
            : differences.length > 1
              ? {
                  value: minimumDetectableEffect({
                    n: differences.length,
                    sdDifference: sampleStandardDeviation(differences),
                  }),
                  over: 'tasks',
                }
              : undefined;
      }
      const temperature = (event: EvalEvent) => event.sampled?.temperature;
      const runTemperature = temperature(evaluations[0]!.after);
      const baselineTemperature = temperature(evaluations[0]!.before);
      results.push({
        set,
        measure,
        ...(category === undefined ? {} : { category }),
        ...(measure !== 'greedy' && samples !== undefined ? { samples } : {}),
        ...(measure !== 'greedy' &&
        runTemperature !== undefined &&
        baselineTemperature !== undefined
          ? {
              temperatures: {
                runs: runTemperature,
                baseline: baselineTemperature,
                matched: false,
              },
            }
          : {}),
        pairs: clusters.map(
          (
            { run, control, before, after, ids, beforeValues, afterValues },
            index,
          ) => ({
            run: run.name,
            ...(control ? { control: control.name } : {}),
            seed: run.seed,
            before: before.step,
            after: after.step,
            tasks: ids.length,
            meanBefore: mean(beforeValues),
            meanAfter: mean(afterValues),
            gain: runGains[index]!,
          }),
        ),
        pooled,
        tInterval,
        meanBefore: mean(clusters.flatMap((cluster) => cluster.beforeValues)),
        meanAfter: mean(clusters.flatMap((cluster) => cluster.afterValues)),
        minimumDetectableEffect: detectable,
      });
    }
  }
  return results;
}
