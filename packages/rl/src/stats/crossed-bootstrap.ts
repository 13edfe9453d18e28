import { PyRandom } from '@seal/python';
import { SealError } from '@seal/spec';
import {
  normalQuantile,
  rank,
  sampleStandardDeviation,
  studentTQuantile,
  type PairedEstimate,
} from './bootstrap';

/**
 * One seed's row of a seeds × tasks design: the same tasks, in the same
 * order, scored before and after (or control and treatment) under that seed.
 */
export type SeedRow = {
  before: readonly number[];
  after: readonly number[];
};

/** A crossed two-way bootstrap estimate: the interval and the spread of its resampled means. */
export type CrossedEstimate = PairedEstimate & {
  /** Seeds (rows of the grid). */
  seeds: number;
  /** Tasks (columns of the grid). */
  tasks: number;
  /** Standard deviation of the resampled means: the design's standard error (0 when exact). */
  standardError: number;
};

function invalid(message: string): SealError {
  return new SealError({ code: 'INVALID_ARGUMENT', message });
}

function checkSettings(level: number, resamples: number): void {
  if (!(level > 0 && level < 1))
    throw invalid(`level must lie in (0, 1), got ${level}`);
  if (!Number.isInteger(resamples) || resamples < 1)
    throw invalid(`resamples must be a positive integer, got ${resamples}`);
}

/**
 * The per-cell differences `after − before` of a seeds × tasks grid, checked:
 * at least one seed and one task, every row as long as the first (the same
 * tasks under every seed), every value finite.
 */
function differenceGrid(rows: readonly SeedRow[]): number[][] {
  if (rows.length === 0) throw invalid('no seeds: the grid is empty');
  const tasks = rows[0]!.before.length;
  if (tasks === 0) throw invalid('no tasks: the grid has empty rows');
  return rows.map((row, s) => {
    if (row.before.length !== tasks || row.after.length !== tasks)
      throw invalid(
        `ragged grid: seed row ${s} has ${row.before.length} before and ${row.after.length} after values, the first row ${tasks} (a crossed design scores the same tasks under every seed)`,
      );
    return row.before.map((b, t) => {
      const a = row.after[t]!;
      if (!Number.isFinite(a) || !Number.isFinite(b))
        throw invalid(
          `paired samples must be finite numbers, got ${Number.isFinite(a) ? b : a} (seed row ${s}, task ${t})`,
        );
      return a - b;
    });
  });
}

/**
 * Crossed two-way paired percentile bootstrap for a seeds × tasks design,
 * where every seed (training run) is scored on the same tasks. Each resample
 * draws S seeds and T tasks with replacement, independently (seeds first,
 * then tasks, from one `PyRandom` stream), and averages the per-cell
 * differences over the drawn seeds × drawn tasks. Unlike the nested
 * {@link clusteredPairedBootstrap} (tasks drawn afresh within each drawn
 * seed), a task drawn once counts under every drawn seed, as it does in the
 * data; where tasks differ in a way every seed shares, the nested interval
 * averages that variation away over S·T draws and is too narrow, the crossed
 * one keeps it (Owen 2007, "The pigeonhole bootstrap"; the two-way bootstrap
 * is mildly conservative: it counts the seed × task interaction twice).
 *
 * One seed needs no seed draw, so with one row the result is the plain
 * {@link pairedBootstrap} of that row, draw for draw. Every difference equal
 * gives the exact interval (resamples 0). Deterministic for its seed.
 */
export function crossedPairedBootstrap({
  rows,
  level = 0.95,
  resamples = 10_000,
  seed = 0,
}: {
  /** One row per seed, each over the same tasks in the same order. */
  rows: readonly SeedRow[];
  level?: number;
  resamples?: number;
  seed?: number;
}): CrossedEstimate {
  checkSettings(level, resamples);
  const grid = differenceGrid(rows);
  const seeds = grid.length;
  const tasks = grid[0]!.length;
  const n = seeds * tasks;
  const mean = grid.flat().reduce((a, b) => a + b, 0) / n;
  if (grid.every((row) => row.every((d) => d === grid[0]![0])))
    return {
      mean,
      low: mean,
      high: mean,
      level,
      n,
      resamples: 0,
      seeds,
      tasks,
      standardError: 0,
    };
  const random = new PyRandom(seed);
  const means = new Float64Array(resamples);
  const drawnSeeds = new Int32Array(seeds);
  const drawnTasks = new Int32Array(tasks);
  for (let r = 0; r < resamples; r++) {
    for (let s = 0; s < seeds; s++)
      drawnSeeds[s] = seeds === 1 ? 0 : Math.floor(random.random() * seeds);
    for (let t = 0; t < tasks; t++)
      drawnTasks[t] = Math.floor(random.random() * tasks);
    let sum = 0;
    for (let s = 0; s < seeds; s++) {
      const row = grid[drawnSeeds[s]!]!;
      for (let t = 0; t < tasks; t++) sum += row[drawnTasks[t]!]!;
    }
    means[r] = sum / n;
  }
  const sorted = [...means].sort((a, b) => a - b);
  const tail = (1 - level) / 2;
  return {
    mean,
    low: rank(sorted, tail, 'low'),
    high: rank(sorted, 1 - tail, 'high'),
    level,
    n,
    resamples,
    seeds,
    tasks,
    standardError: sampleStandardDeviation(sorted),
  };
}

/**
 * The t-interval over per-seed gains: mean ± t₍₁₊level₎/₂,S−1 · sd / √S,
 * where each seed's gain is its mean paired difference over the tasks and sd
 * their sample standard deviation. It treats the seed (the training run) as
 * the unit and the tasks as fixed. Needs at least two seeds: one seed says
 * nothing of the spread between runs.
 */
export function seedTInterval({
  gains,
  level = 0.95,
}: {
  /** Each seed's mean paired difference. */
  gains: readonly number[];
  level?: number;
}): PairedEstimate {
  if (!(level > 0 && level < 1))
    throw invalid(`level must lie in (0, 1), got ${level}`);
  if (gains.length < 2)
    throw invalid(
      `a t-interval over seeds needs at least 2 seeds, got ${gains.length}`,
    );
  for (const gain of gains)
    if (!Number.isFinite(gain))
      throw invalid(`per-seed gains must be finite numbers, got ${gain}`);
  const s = gains.length;
  const mean = gains.reduce((a, b) => a + b, 0) / s;
  const half =
    (studentTQuantile((1 + level) / 2, s - 1) *
      sampleStandardDeviation(gains)) /
    Math.sqrt(s);
  return {
    mean,
    low: mean - half,
    high: mean + half,
    level,
    n: s,
    resamples: 0,
  };
}

/**
 * The minimum detectable effect of a design from its standard error: the
 * smallest true difference a two-sided test at `alpha` finds with
 * probability `power`, (z₁₋α/₂ + z_power) · SE. At α = 0.05 and power 0.8
 * the factor is 1.960 + 0.842 = 2.802 (the usual "2.8 × SE"). Normal
 * quantiles: the SE here is the crossed bootstrap's, not a t statistic's.
 */
export function minimumDetectableEffectFromStandardError({
  standardError,
  alpha = 0.05,
  power = 0.8,
}: {
  standardError: number;
  alpha?: number;
  power?: number;
}): number {
  if (!(standardError >= 0) || !Number.isFinite(standardError))
    throw invalid(
      `standardError must be a finite non-negative number, got ${standardError}`,
    );
  if (!(alpha > 0 && alpha < 1))
    throw invalid(`alpha must lie in (0, 1), got ${alpha}`);
  if (!(power > 0 && power < 1))
    throw invalid(`power must lie in (0, 1), got ${power}`);
  return (
    (normalQuantile(1 - alpha / 2) + normalQuantile(power)) * standardError
  );
}

/** A paired comparison pooled over a seeds × tasks design, as the reports print it. */
export type CrossedComparison = {
  /** The crossed two-way bootstrap interval (seeds and tasks resampled independently). */
  crossed: CrossedEstimate;
  /** Each seed's mean paired difference, in row order. */
  seedGains: number[];
  /** The t-interval over `seedGains`; undefined ("n/a") with one seed. */
  tInterval: PairedEstimate | undefined;
  /**
   * The minimum detectable effect at power 0.8, two-sided α = 0.05, from the
   * crossed standard error (2.802 × SE); undefined when the differences do
   * not vary (an SE of 0 says nothing of what could be detected).
   */
  minimumDetectableEffect: number | undefined;
};

/**
 * Pools a paired comparison over a seeds × tasks design: the crossed two-way
 * bootstrap interval, the t-interval over per-seed gains beside it, and the
 * minimum detectable effect from the crossed standard error.
 */
export function compareCrossed({
  rows,
  level = 0.95,
  resamples = 10_000,
  seed = 0,
}: {
  rows: readonly SeedRow[];
  level?: number;
  resamples?: number;
  seed?: number;
}): CrossedComparison {
  const crossed = crossedPairedBootstrap({ rows, level, resamples, seed });
  const seedGains = rows.map(
    (row) =>
      row.after.reduce((sum, a, t) => sum + a - row.before[t]!, 0) /
      row.after.length,
  );
  return {
    crossed,
    seedGains,
    tInterval:
      seedGains.length < 2
        ? undefined
        : seedTInterval({ gains: seedGains, level }),
    minimumDetectableEffect:
      crossed.standardError > 0
        ? minimumDetectableEffectFromStandardError({
            standardError: crossed.standardError,
          })
        : undefined,
  };
}

const points = (value: number): string =>
  `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}`;

/**
 * A pooled comparison in one line, in points:
 * `+3.1 [−0.8, +6.8] two-way; t over 5 seeds [−0.6, +7.0]; MDE 5.2`
 * (the t-interval reads "n/a (one seed)" with one seed).
 */
export function formatCrossedComparison(comparison: CrossedComparison): string {
  const { crossed, tInterval, minimumDetectableEffect } = comparison;
  const t = tInterval
    ? `t over ${tInterval.n} seeds [${points(tInterval.low)}, ${points(tInterval.high)}]`
    : 't over seeds n/a (one seed)';
  const mde =
    minimumDetectableEffect === undefined
      ? 'MDE n/a'
      : `MDE ${(100 * minimumDetectableEffect).toFixed(1)}`;
  return `${points(crossed.mean)} [${points(crossed.low)}, ${points(crossed.high)}] two-way; ${t}; ${mde}`;
}
