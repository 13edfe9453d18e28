import { SealError } from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { clusteredPairedBootstrap, pairedBootstrap } from './bootstrap';
import {
  compareCrossed,
  crossedPairedBootstrap,
  formatCrossedComparison,
  minimumDetectableEffectFromStandardError,
  seedTInterval,
} from './crossed-bootstrap';

/** The code of the SealError `run` throws (and its message, to read the failure). */
function errorOf(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (!SealError.isInstance(error)) throw error;
    return { code: error.code, message: error.message };
  }
  throw new Error('expected a SealError');
}

describe('crossedPairedBootstrap', () => {
  it('should resample the tasks once for every seed, so a task effect every seed shares stays in the interval (wider than nested)', () => {
    // Three seeds, each with task differences [0, 1]. Crossed: the two drawn
    // tasks count under every seed, so the resampled mean is 0, 1/2 or 1 with
    // probabilities 1/4, 1/2, 1/4 and the 95% interval is [0, 1]. Nested:
    // each seed draws its own two tasks, so 6 × the mean is Binomial(6, 1/2):
    // P(0) = 1/64 < 2.5% < P(≤ 1) = 7/64, so the interval is [1/6, 5/6].
    const rows = [0, 1, 2].map(() => ({ before: [0, 0], after: [0, 1] }));
    const crossed = crossedPairedBootstrap({ rows, seed: 5 });
    const nested = clusteredPairedBootstrap({ clusters: rows, seed: 5 });
    expect(crossed.mean).toBe(0.5);
    expect([crossed.low, crossed.high]).toEqual([0, 1]);
    expect(nested.low).toBeCloseTo(1 / 6, 12);
    expect(nested.high).toBeCloseTo(5 / 6, 12);
    expect(crossed.high - crossed.low).toBeGreaterThan(
      nested.high - nested.low,
    );
    expect(crossed).toMatchObject({ seeds: 3, tasks: 2, n: 6 });
  });

  it('should give the standard error of the hand-computed resampling distribution', () => {
    // As above: the mean of two Bernoulli(1/2) task draws, variance 1/8.
    const rows = [0, 1, 2].map(() => ({ before: [0, 0], after: [0, 1] }));
    const crossed = crossedPairedBootstrap({
      rows,
      resamples: 40_000,
      seed: 2,
    });
    expect(crossed.standardError).toBeCloseTo(Math.sqrt(1 / 8), 2);
  });

  it('should resample the seeds: seeds that differ and tasks that do not give the seeds-only distribution', () => {
    // Seed 1 gains 0 on both tasks, seed 2 gains 1: the resampled mean is
    // the mean of two seed draws, 0, 1/2 or 1, so the interval is [0, 1].
    const estimate = crossedPairedBootstrap({
      rows: [
        { before: [1, 0], after: [1, 0] },
        { before: [0, 0], after: [1, 1] },
      ],
      seed: 9,
    });
    expect(estimate.mean).toBe(0.5);
    expect([estimate.low, estimate.high]).toEqual([0, 1]);
  });

  it('should be the plain paired bootstrap with one seed, draw for draw', () => {
    const before = [1, 0, 1, 1, 0, 0, 1, 0];
    const after = [1, 1, 0, 1, 1, 1, 1, 0];
    const crossed = crossedPairedBootstrap({
      rows: [{ before, after }],
      seed: 4,
    });
    const plain = pairedBootstrap({ before, after, seed: 4 });
    expect([crossed.mean, crossed.low, crossed.high]).toEqual([
      plain.mean,
      plain.low,
      plain.high,
    ]);
  });

  it('should give an exact interval when every difference is equal, and be deterministic for its seed', () => {
    expect(
      crossedPairedBootstrap({
        rows: [
          { before: [0, 1], after: [1, 2] },
          { before: [0, 0], after: [1, 1] },
        ],
      }),
    ).toEqual({
      mean: 1,
      low: 1,
      high: 1,
      level: 0.95,
      n: 4,
      resamples: 0,
      seeds: 2,
      tasks: 2,
      standardError: 0,
    });
    const rows = [
      { before: [0, 1, 1, 0, 1], after: [1, 1, 0, 1, 1] },
      { before: [1, 1, 0, 0, 0], after: [1, 0, 1, 1, 1] },
    ];
    const a = crossedPairedBootstrap({ rows, seed: 17 });
    expect(crossedPairedBootstrap({ rows, seed: 17 })).toEqual(a);
    expect(crossedPairedBootstrap({ rows, seed: 18 })).not.toEqual(a);
  });

  it('should refuse a ragged grid, non-finite values, an empty grid and bad settings with a clear error', () => {
    const ragged = errorOf(() =>
      crossedPairedBootstrap({
        rows: [
          { before: [0, 1], after: [1, 1] },
          { before: [0], after: [1] },
        ],
      }),
    );
    expect(ragged.code).toBe('INVALID_ARGUMENT');
    expect(ragged.message).toMatch(/ragged grid: seed row 1/);
    expect(
      errorOf(() =>
        crossedPairedBootstrap({ rows: [{ before: [0, 1], after: [1] }] }),
      ).message,
    ).toMatch(/ragged/);
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = errorOf(() =>
        crossedPairedBootstrap({ rows: [{ before: [0, 1], after: [1, bad] }] }),
      );
      expect(error.code).toBe('INVALID_ARGUMENT');
      expect(error.message).toMatch(/finite/);
    }
    expect(errorOf(() => crossedPairedBootstrap({ rows: [] })).message).toMatch(
      /no seeds/,
    );
    expect(
      errorOf(() =>
        crossedPairedBootstrap({ rows: [{ before: [], after: [] }] }),
      ).message,
    ).toMatch(/no tasks/);
    const rows = [{ before: [0, 1], after: [1, 1] }];
    expect(errorOf(() => crossedPairedBootstrap({ rows, level: 1 })).code).toBe(
      'INVALID_ARGUMENT',
    );
    expect(
      errorOf(() => crossedPairedBootstrap({ rows, resamples: 0 })).code,
    ).toBe('INVALID_ARGUMENT');
  });
});

describe('seedTInterval', () => {
  it('should be mean ± t_{0.975, S−1} · sd / √S over the per-seed gains', () => {
    // Gains 0.1..0.5: mean 0.3, sd √0.025 = 0.158114, /√5 = 0.0707107;
    // t_{0.975,4} = 2.776445, half-width 0.196324.
    const interval = seedTInterval({ gains: [0.1, 0.2, 0.3, 0.4, 0.5] });
    expect(interval.mean).toBeCloseTo(0.3, 12);
    expect(interval.low).toBeCloseTo(0.103676, 5);
    expect(interval.high).toBeCloseTo(0.496324, 5);
    expect(interval.n).toBe(5);
    // Two seeds: gains 0 and 0.1, sd/√2 = 0.05, t_{0.975,1} = 12.7062.
    const two = seedTInterval({ gains: [0, 0.1] });
    expect(two.low).toBeCloseTo(0.05 - 0.63531, 4);
    expect(two.high).toBeCloseTo(0.05 + 0.63531, 4);
  });

  it('should refuse fewer than two seeds and non-finite gains', () => {
    const one = errorOf(() => seedTInterval({ gains: [0.1] }));
    expect(one.code).toBe('INVALID_ARGUMENT');
    expect(one.message).toMatch(/at least 2 seeds/);
    expect(
      errorOf(() => seedTInterval({ gains: [0.1, Number.NaN] })).message,
    ).toMatch(/finite/);
  });
});

describe('minimumDetectableEffectFromStandardError', () => {
  it('should be (z_0.975 + z_0.8) · SE = 2.802 · SE', () => {
    expect(
      minimumDetectableEffectFromStandardError({ standardError: 0.01 }),
    ).toBeCloseTo(0.0280158, 6);
    expect(
      minimumDetectableEffectFromStandardError({
        standardError: 0.01,
        power: 0.9,
      }),
    ).toBeCloseTo((1.959964 + 1.281552) * 0.01, 6);
  });

  it('should refuse a negative or non-finite standard error', () => {
    expect(
      errorOf(() =>
        minimumDetectableEffectFromStandardError({ standardError: -1 }),
      ).code,
    ).toBe('INVALID_ARGUMENT');
    expect(
      errorOf(() =>
        minimumDetectableEffectFromStandardError({
          standardError: Number.POSITIVE_INFINITY,
        }),
      ).code,
    ).toBe('INVALID_ARGUMENT');
  });
});

describe('compareCrossed', () => {
  it('should give the crossed interval, the per-seed gains with their t-interval, and the MDE from the crossed SE', () => {
    const rows = [
      { before: [0, 1, 0, 1], after: [1, 1, 0, 1] },
      { before: [0, 0, 1, 1], after: [1, 1, 1, 1] },
      { before: [1, 1, 0, 0], after: [1, 1, 0, 1] },
    ];
    const comparison = compareCrossed({ rows, seed: 3 });
    expect(comparison.seedGains).toEqual([0.25, 0.5, 0.25]);
    expect(comparison.crossed).toEqual(
      crossedPairedBootstrap({ rows, seed: 3 }),
    );
    expect(comparison.tInterval).toEqual(
      seedTInterval({ gains: [0.25, 0.5, 0.25] }),
    );
    expect(comparison.minimumDetectableEffect).toBeCloseTo(
      2.8015834 * comparison.crossed.standardError,
      6,
    );
    expect(formatCrossedComparison(comparison)).toMatch(
      /^\+33\.3 \[[+-]\d+\.\d, [+-]\d+\.\d\] two-way; t over 3 seeds \[-2\.5, \+69\.2\]; MDE \d+\.\d$/,
    );
  });

  it('should say n/a for the t-interval with one seed', () => {
    const comparison = compareCrossed({
      rows: [{ before: [0, 1, 0], after: [1, 1, 1] }],
    });
    expect(comparison.tInterval).toBeUndefined();
    expect(formatCrossedComparison(comparison)).toContain(
      't over seeds n/a (one seed)',
    );
  });
});
