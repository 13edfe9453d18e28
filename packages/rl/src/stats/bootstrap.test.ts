import { describe, expect, it } from 'vitest';
import {
  clusteredPairedBootstrap,
  formatPoints,
  minimumDetectableEffect,
  minimumDetectableEffectOverRuns,
  normalQuantile,
  pairedBootstrap,
  sampleStandardDeviation,
  studentTQuantile,
} from './bootstrap';

describe('pairedBootstrap', () => {
  it('gives an exact interval when every difference is the same', () => {
    const estimate = pairedBootstrap({
      before: [0, 1, 0, 1],
      after: [1, 2, 1, 2],
    });
    expect(estimate).toEqual({
      mean: 1,
      low: 1,
      high: 1,
      level: 0.95,
      n: 4,
      resamples: 0,
    });
  });

  it('matches the hand-computed resampling distribution of two pairs', () => {
    // Differences [0, 1]: a resampled mean is 0, 0.5 or 1 with probabilities
    // 1/4, 1/2, 1/4, so the 2.5% and 97.5% quantiles are 0 and 1.
    const estimate = pairedBootstrap({
      before: [0, 0],
      after: [0, 1],
      seed: 3,
    });
    expect(estimate.mean).toBe(0.5);
    expect([estimate.low, estimate.high]).toEqual([0, 1]);
  });

  it('matches the binomial quantiles of four pairs at the 50% level', () => {
    // Differences [0, 0, 0, 1]: 4 × the resampled mean is Binomial(4, 1/4),
    // whose CDF is 0.316 at 0 and 0.738 at 1, so the 25% quantile of the mean
    // is 0 and the 75% quantile 2/4.
    const estimate = pairedBootstrap({
      before: [1, 1, 1, 0],
      after: [1, 1, 1, 1],
      level: 0.5,
      resamples: 40_000,
      seed: 7,
    });
    expect(estimate.mean).toBe(0.25);
    expect([estimate.low, estimate.high]).toEqual([0, 0.5]);
  });

  it('is deterministic for its seed and sees a negative change', () => {
    const before = [1, 1, 1, 1, 1, 0, 1, 1, 1, 1];
    const after = [0, 0, 1, 0, 0, 0, 1, 0, 0, 1];
    const a = pairedBootstrap({ before, after, seed: 11 });
    expect(pairedBootstrap({ before, after, seed: 11 })).toEqual(a);
    expect(a.mean).toBeCloseTo(-0.6, 12);
    expect(a.high).toBeLessThan(0);
    expect(a.low).toBeGreaterThanOrEqual(-1);
  });

  it('rejects unpaired samples and bad settings with a clear error', () => {
    expect(() => pairedBootstrap({ before: [1], after: [1, 0] })).toThrow(
      /differ in length/,
    );
    expect(() => pairedBootstrap({ before: [Number.NaN], after: [1] })).toThrow(
      /finite/,
    );
    expect(() =>
      pairedBootstrap({ before: [1], after: [0], level: 1 }),
    ).toThrow(/level/);
  });
});

describe('clusteredPairedBootstrap', () => {
  it('matches the hand-computed distribution of two runs whose tasks all moved alike', () => {
    // Run A: every task +1; run B: every task 0. Within a run the redraw of
    // tasks changes nothing, so a resampled mean is 1 (A, A), 0.5 (A, B or
    // B, A) or 0 (B, B) with probabilities 1/4, 1/2, 1/4: the 95% interval is
    // [0, 1], and the run-to-run spread is all of it.
    const clusters = [
      { before: [0, 0, 0, 0], after: [1, 1, 1, 1] },
      { before: [1, 0, 1, 0], after: [1, 0, 1, 0] },
    ];
    const estimate = clusteredPairedBootstrap({ clusters, seed: 5 });
    expect(estimate).toMatchObject({
      mean: 0.5,
      low: 0,
      high: 1,
      n: 8,
      clusters: 2,
    });
    // A bootstrap over the eight cells treats them as independent and is narrower.
    const cells = pairedBootstrap({
      before: clusters.flatMap((c) => c.before),
      after: clusters.flatMap((c) => c.after),
      seed: 5,
    });
    expect(cells.high - cells.low).toBeLessThan(estimate.high - estimate.low);
  });

  it('is the paired bootstrap of the pairs with a single cluster', () => {
    // Differences [0, 1] in one run: means 0, 0.5, 1 with probabilities 1/4, 1/2, 1/4.
    const estimate = clusteredPairedBootstrap({
      clusters: [{ before: [0, 0], after: [0, 1] }],
      seed: 3,
    });
    expect(estimate).toMatchObject({
      mean: 0.5,
      low: 0,
      high: 1,
      n: 2,
      clusters: 1,
    });
    // Differences [0, 0, 0, 1] at the 50% level: the binomial quantiles 0 and 2/4.
    const four = clusteredPairedBootstrap({
      clusters: [{ before: [1, 1, 1, 0], after: [1, 1, 1, 1] }],
      level: 0.5,
      resamples: 40_000,
      seed: 7,
    });
    expect([four.low, four.high]).toEqual([0, 0.5]);
  });

  it('gives an exact interval when every difference is the same, and is deterministic for its seed', () => {
    expect(
      clusteredPairedBootstrap({
        clusters: [
          { before: [0, 1], after: [1, 2] },
          { before: [0], after: [1] },
        ],
      }),
    ).toEqual({
      mean: 1,
      low: 1,
      high: 1,
      level: 0.95,
      n: 3,
      resamples: 0,
      clusters: 2,
    });
    const clusters = [
      { before: [1, 1, 0, 1], after: [0, 1, 0, 0] },
      { before: [1, 0, 1, 1], after: [1, 0, 0, 1] },
      { before: [0, 1, 1, 1], after: [0, 0, 1, 0] },
    ];
    const a = clusteredPairedBootstrap({ clusters, seed: 9 });
    expect(clusteredPairedBootstrap({ clusters, seed: 9 })).toEqual(a);
    expect(a.mean).toBeCloseTo(-5 / 12, 12);
    expect(a.high).toBeLessThan(0);
  });

  it('rejects unpaired samples and bad settings with a clear error', () => {
    expect(() =>
      clusteredPairedBootstrap({ clusters: [{ before: [1], after: [1, 0] }] }),
    ).toThrow(/differ in length/);
    expect(() =>
      clusteredPairedBootstrap({
        clusters: [{ before: [1], after: [Number.POSITIVE_INFINITY] }],
      }),
    ).toThrow(/finite/);
    expect(() =>
      clusteredPairedBootstrap({
        clusters: [{ before: [1], after: [0] }],
        resamples: 0,
      }),
    ).toThrow(/resamples/);
    expect(clusteredPairedBootstrap({ clusters: [] })).toMatchObject({
      mean: 0,
      n: 0,
      clusters: 0,
    });
  });
});

describe('minimumDetectableEffect', () => {
  it('is (z_0.975 + z_0.8) · sd / √n', () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 6);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621, 6);
    expect(normalQuantile(0.01)).toBeCloseTo(-2.326348, 6);
    expect(minimumDetectableEffect({ n: 100, sdDifference: 1 })).toBeCloseTo(
      0.2801585,
      6,
    );
    expect(
      minimumDetectableEffect({
        n: 4,
        sdDifference: 0.5,
        alpha: 0.1,
        power: 0.5,
      }),
    ).toBeCloseTo((1.644854 * 0.5) / 2, 6);
  });

  it('uses the sample standard deviation of the differences', () => {
    expect(sampleStandardDeviation([1, 2, 3, 4])).toBeCloseTo(
      Math.sqrt(5 / 3),
      12,
    );
    expect(sampleStandardDeviation([2])).toBe(0);
    expect(formatPoints({ mean: 0.125, low: -0.0625, high: 0.3 })).toBe(
      '+12.5 [-6.3, +30.0]',
    );
  });
});

describe('studentTQuantile', () => {
  it('matches tabulated quantiles', () => {
    // Two-sided 95% critical values and one-sided 80% values from t tables.
    expect(studentTQuantile(0.975, 1)).toBeCloseTo(12.7062, 3);
    expect(studentTQuantile(0.975, 2)).toBeCloseTo(4.3027, 4);
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.7764, 4);
    expect(studentTQuantile(0.975, 5)).toBeCloseTo(2.5706, 4);
    expect(studentTQuantile(0.95, 3)).toBeCloseTo(2.3534, 4);
    expect(studentTQuantile(0.995, 9)).toBeCloseTo(3.2498, 4);
    expect(studentTQuantile(0.975, 10)).toBeCloseTo(2.2281, 4);
    expect(studentTQuantile(0.8, 4)).toBeCloseTo(0.941, 3);
    expect(studentTQuantile(0.025, 4)).toBeCloseTo(-2.7764, 4);
    // With many degrees of freedom it approaches the normal quantile.
    expect(studentTQuantile(0.975, 1e6)).toBeCloseTo(normalQuantile(0.975), 4);
  });

  it('rejects a probability or degrees of freedom out of range', () => {
    expect(() => studentTQuantile(1, 4)).toThrow(/p must lie/);
    expect(() => studentTQuantile(0.5, 0)).toThrow(/df must be positive/);
  });
});

describe('minimumDetectableEffectOverRuns', () => {
  it('is (t_0.975 + t_0.8) · sd / √k with k − 1 degrees of freedom', () => {
    // Five runs with mean differences 0.01..0.05: sd 0.0158114, df 4,
    // (2.7764 + 0.9410) · 0.0158114 / √5 = 0.026286.
    expect(
      minimumDetectableEffectOverRuns({
        runDifferences: [0.01, 0.02, 0.03, 0.04, 0.05],
      }),
    ).toBeCloseTo(0.026286, 5);
  });

  it('needs two runs', () => {
    expect(
      minimumDetectableEffectOverRuns({ runDifferences: [0.05] }),
    ).toBeUndefined();
  });
});
