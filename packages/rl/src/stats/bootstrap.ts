import { PyRandom } from '@seal/python';
import { SealError } from '@seal/spec';

/** A mean difference with its bootstrap confidence interval. */
export type PairedEstimate = {
  /** Mean of `after - before` over the pairs. */
  mean: number;
  /** Lower end of the interval. */
  low: number;
  /** Upper end of the interval. */
  high: number;
  /** The interval's level (0.95 for a 95% interval). */
  level: number;
  /** Number of pairs. */
  n: number;
  /** Bootstrap resamples drawn (0 when the interval is exact: every difference equal). */
  resamples: number;
};

function assertPairs(
  before: readonly number[],
  after: readonly number[],
): void {
  if (before.length !== after.length) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `paired samples differ in length (${before.length} before, ${after.length} after)`,
    });
  }
  for (const value of [...before, ...after]) {
    if (!Number.isFinite(value))
      throw new SealError({
        code: 'INVALID_ARGUMENT',
        message: `paired samples must be finite numbers, got ${value}`,
      });
  }
}

/**
 * The `q`-quantile of sorted values, by the "lower/higher nearest rank" rule
 * used for percentile bootstrap intervals: the lower end takes the value at
 * rank floor(q·(B−1)), the upper end at rank ceil(q·(B−1)), so the interval
 * never claims more precision than the resamples hold.
 *
 * @internal
 */
export function rank(
  sorted: readonly number[],
  q: number,
  side: 'low' | 'high',
): number {
  const position = q * (sorted.length - 1);
  const index =
    side === 'low' ? Math.floor(position + 1e-9) : Math.ceil(position - 1e-9);
  return sorted[Math.min(sorted.length - 1, Math.max(0, index))]!;
}

/**
 * Paired percentile bootstrap of the mean difference `after − before`:
 * resamples the pairs (tasks, or task × seed cells) with replacement and
 * reads the interval off the resampled means. Deterministic for its seed.
 * The same tasks scored before and after training form the pairs, so the
 * interval measures what changed, not how hard the tasks are. (The
 * one-cluster case of {@link clusteredPairedBootstrap}.)
 */
export function pairedBootstrap({
  before,
  after,
  level = 0.95,
  resamples = 10_000,
  seed = 0,
}: {
  before: readonly number[];
  after: readonly number[];
  level?: number;
  resamples?: number;
  seed?: number;
}): PairedEstimate {
  const { clusters: _clusters, ...estimate } = clusteredPairedBootstrap({
    clusters: [{ before, after }],
    level,
    resamples,
    seed,
  });
  return estimate;
}

/**
 * Two-stage paired percentile bootstrap for pairs grouped in clusters (the
 * tasks of one training run, one cluster per seed): each resample draws the
 * clusters with replacement, then the pairs of each drawn cluster with
 * replacement, and takes the mean of the drawn differences. The interval so
 * covers the variation between runs as well as between tasks, which a
 * bootstrap over (seed, task) cells misses: the cells of one run share its
 * training, so they are not independent. Drawing with replacement at both
 * stages makes the interval slightly conservative. With one cluster it is the
 * ordinary paired bootstrap of that cluster's pairs, draw for draw; `mean` is
 * the mean over every pair. Deterministic for its seed.
 */
export function clusteredPairedBootstrap({
  clusters,
  level = 0.95,
  resamples = 10_000,
  seed = 0,
}: {
  clusters: readonly { before: readonly number[]; after: readonly number[] }[];
  level?: number;
  resamples?: number;
  seed?: number;
}): PairedEstimate & { clusters: number } {
  for (const cluster of clusters) assertPairs(cluster.before, cluster.after);
  if (!(level > 0 && level < 1))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `level must lie in (0, 1), got ${level}`,
    });
  if (!Number.isInteger(resamples) || resamples < 1)
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `resamples must be a positive integer, got ${resamples}`,
    });
  const groups = clusters
    .map((cluster) => cluster.before.map((b, i) => cluster.after[i]! - b))
    .filter((group) => group.length > 0);
  const all = groups.flat();
  const n = all.length;
  const k = groups.length;
  if (n === 0)
    return { mean: 0, low: 0, high: 0, level, n, resamples: 0, clusters: 0 };
  const mean = all.reduce((a, b) => a + b, 0) / n;
  if (all.every((d) => d === all[0]))
    return { mean, low: mean, high: mean, level, n, resamples: 0, clusters: k };
  const random = new PyRandom(seed);
  const means = new Float64Array(resamples);
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    let count = 0;
    for (let c = 0; c < k; c++) {
      // One cluster needs no draw: the stream is then the plain paired bootstrap's.
      const group =
        k === 1 ? groups[0]! : groups[Math.floor(random.random() * k)]!;
      for (let i = 0; i < group.length; i++)
        sum += group[Math.floor(random.random() * group.length)]!;
      count += group.length;
    }
    means[r] = sum / count;
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
    clusters: k,
  };
}

/** Quantile of the standard normal distribution (Acklam's rational approximation, |error| < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `p must lie in (0, 1), got ${p}`,
    });
  const a = [
    -3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2,
    1.38357751867269e2, -3.066479806614716e1, 2.506628277459239,
  ];
  const b = [
    -5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2,
    6.680131188771972e1, -1.328068155288572e1,
  ];
  const c = [
    -7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838,
    -2.549732539343734, 4.374664141464968, 2.938163982698783,
  ];
  const d = [
    7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996,
    3.754408661907416,
  ];
  const low = 0.02425;
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c[0]! * q + c[1]!) * q + c[2]!) * q + c[3]!) * q + c[4]!) * q +
        c[5]!) /
      ((((d[0]! * q + d[1]!) * q + d[2]!) * q + d[3]!) * q + 1)
    );
  }
  if (p > 1 - low) return -normalQuantile(1 - p);
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0]! * r + a[1]!) * r + a[2]!) * r + a[3]!) * r + a[4]!) * r +
      a[5]!) *
      q) /
    (((((b[0]! * r + b[1]!) * r + b[2]!) * r + b[3]!) * r + b[4]!) * r + 1)
  );
}

/**
 * The minimum detectable effect of a paired design: the smallest true mean
 * difference a two-sided test at `alpha` finds with probability `power`,
 * (z₁₋α/₂ + z_power) · sd / √n, where sd is the standard deviation of the
 * paired differences and n the number of pairs.
 */
export function minimumDetectableEffect({
  n,
  sdDifference,
  alpha = 0.05,
  power = 0.8,
}: {
  n: number;
  sdDifference: number;
  alpha?: number;
  power?: number;
}): number {
  if (!(n > 0))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `n must be positive, got ${n}`,
    });
  if (!(sdDifference >= 0))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `sdDifference must be non-negative, got ${sdDifference}`,
    });
  return (
    ((normalQuantile(1 - alpha / 2) + normalQuantile(power)) * sdDifference) /
    Math.sqrt(n)
  );
}

/** ln Γ(x) for x > 0 (Lanczos approximation, g = 7, about 15 significant digits). */
function logGamma(x: number): number {
  const g = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028,
    771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  if (x < 0.5)
    return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = g[0]!;
  for (let i = 1; i < 9; i++) sum += g[i]! / (z + i);
  const t = z + 7.5;
  return (
    0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum)
  );
}

/** The regularized incomplete beta function I_x(a, b), by its continued fraction (modified Lentz). */
function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use the symmetry otherwise.
  if (x > (a + 1) / (a + b + 2)) return 1 - incompleteBeta(1 - x, b, a);
  const front =
    Math.exp(
      logGamma(a + b) -
        logGamma(a) -
        logGamma(b) +
        a * Math.log(x) +
        b * Math.log(1 - x),
    ) / a;
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = 1 / (Math.abs(d) < tiny ? tiny : d);
  let f = d;
  for (let m = 1; m <= 500; m++) {
    for (const even of [true, false]) {
      const numerator = even
        ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m))
        : (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + numerator * d;
      d = 1 / (Math.abs(d) < tiny ? tiny : d);
      c = 1 + numerator / c;
      if (Math.abs(c) < tiny) c = tiny;
      f *= c * d;
    }
    if (Math.abs(c * d - 1) < 1e-15) break;
  }
  return front * f;
}

/** The CDF of Student's t distribution with `df` degrees of freedom. */
function studentTCdf(t: number, df: number): number {
  const tail = 0.5 * incompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t >= 0 ? 1 - tail : tail;
}

/** Quantile of Student's t distribution with `df` > 0 degrees of freedom (bisection on its CDF, |error| < 1e-9). */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `p must lie in (0, 1), got ${p}`,
    });
  if (!(df > 0))
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `df must be positive, got ${df}`,
    });
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  let low = 0;
  let high = 1;
  while (studentTCdf(high, df) < p) high *= 2;
  for (let i = 0; i < 200 && high - low > 1e-12 * Math.max(1, high); i++) {
    const middle = (low + high) / 2;
    if (studentTCdf(middle, df) < p) low = middle;
    else high = middle;
  }
  return (low + high) / 2;
}

/**
 * The minimum detectable effect of a design whose unit is the training run:
 * (t₁₋α/₂ + t_power) · sd / √k with k − 1 degrees of freedom, where sd is the
 * standard deviation over the k runs (seeds) of each run's mean paired
 * difference. It counts the variation between runs, which the cell-level
 * {@link minimumDetectableEffect} leaves out; undefined for fewer than two runs.
 */
export function minimumDetectableEffectOverRuns({
  runDifferences,
  alpha = 0.05,
  power = 0.8,
}: {
  /** Each run's mean paired difference. */
  runDifferences: readonly number[];
  alpha?: number;
  power?: number;
}): number | undefined {
  const k = runDifferences.length;
  if (k < 2) return undefined;
  const df = k - 1;
  return (
    ((studentTQuantile(1 - alpha / 2, df) + studentTQuantile(power, df)) *
      sampleStandardDeviation(runDifferences)) /
    Math.sqrt(k)
  );
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleStandardDeviation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(
    values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (values.length - 1),
  );
}

/** Formats an estimate in points: `+12.5 [+6.3, +18.8]` (values are fractions). */
export function formatPoints(
  estimate: Pick<PairedEstimate, 'mean' | 'low' | 'high'>,
): string {
  const points = (value: number) =>
    `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)}`;
  return `${points(estimate.mean)} [${points(estimate.low)}, ${points(estimate.high)}]`;
}
