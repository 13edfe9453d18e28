import { describe, expect, it } from 'vitest';
import { redReweight, redTokenSum } from './red-weighting';

// A typical CoD batch: short successes, long failures; Σ A·L < 0.
const episodes = [
  { advantage: 1, tokens: 20 },
  { advantage: 0.5, tokens: 10 },
  { advantage: -0.5, tokens: 40 },
  { advantage: -1, tokens: 8 },
];

describe('redReweight', () => {
  it('should find a τ where the token-weighted sum crosses zero', () => {
    const result = redReweight({ episodes });
    expect(result.tokenSumBefore).toBeCloseTo(20 + 5 - 20 - 8, 12);
    expect(result.active).toBe(true);
    expect(result.crossed).toBe(true);
    const tau = result.temperature!;
    expect(tau).toBeGreaterThanOrEqual(0.8);
    expect(tau).toBeLessThanOrEqual(100);
    // The root lies inside the final bracket around τ.
    expect(
      redTokenSum({ episodes, temperature: tau - result.bracket }),
    ).toBeGreaterThan(0);
    expect(
      redTokenSum({ episodes, temperature: tau + result.bracket }),
    ).toBeLessThanOrEqual(0);
    expect(Math.abs(result.tokenSumAfter)).toBeLessThan(
      Math.abs(result.tokenSumBefore),
    );
  });

  it('should stop with a bracket under 0.05 within 20 iterations', () => {
    const result = redReweight({ episodes });
    expect(result.bracket).toBeLessThan(0.05);
    expect(result.iterations).toBeLessThanOrEqual(20);
    expect(result.iterations).toBeGreaterThan(0);
  });

  it('should honour a smaller iteration cap even when the bracket is still wide', () => {
    const result = redReweight({ episodes, settings: { maxIterations: 3 } });
    expect(result.iterations).toBe(3);
    expect(result.bracket).toBeGreaterThan(0.05);
  });

  it('should rescale each advantage by exp(A/τ), up-weighting positives relative to negatives', () => {
    const result = redReweight({ episodes });
    const tau = result.temperature!;
    result.advantages.forEach((value, i) =>
      expect(value).toBeCloseTo(
        episodes[i]!.advantage * Math.exp(episodes[i]!.advantage / tau),
        12,
      ),
    );
    expect(result.advantages[0]! / 1).toBeGreaterThan(1);
    expect(result.advantages[3]! / -1).toBeLessThan(1);
  });

  it('should use the sharpest τ when the sum stays negative over the whole bracket', () => {
    // Small positive advantages on few tokens: even τ = 0.8 cannot balance them.
    const result = redReweight({
      episodes: [
        { advantage: 0.25, tokens: 10 },
        { advantage: -0.25, tokens: 200 },
      ],
    });
    expect(result.active).toBe(true);
    expect(result.crossed).toBe(false);
    expect(result.temperature).toBe(0.8);
    expect(result.tokenSumAfter).toBeLessThan(0);
  });

  it('should be off when the token-mean advantage is non-negative', () => {
    const balanced = [
      { advantage: 0.5, tokens: 10 },
      { advantage: -0.5, tokens: 10 },
    ];
    const result = redReweight({ episodes: balanced });
    expect(result.active).toBe(false);
    expect(result.temperature).toBeNull();
    expect(result.advantages).toEqual([0.5, -0.5]);
    expect(
      redReweight({
        episodes: [
          { advantage: 0.1, tokens: 40 },
          { advantage: -0.5, tokens: 4 },
        ],
      }).active,
    ).toBe(false);
  });

  it('should leave a batch without positive advantages unchanged', () => {
    const result = redReweight({
      episodes: [
        { advantage: -0.2, tokens: 5 },
        { advantage: 0, tokens: 5 },
      ],
    });
    expect(result.active).toBe(false);
    expect(result.advantages).toEqual([-0.2, 0]);
  });

  it('should refuse a bad bracket or a non-finite advantage by code', () => {
    expect(() =>
      redReweight({
        episodes,
        settings: { minTemperature: 5, maxTemperature: 1 },
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
    expect(() =>
      redReweight({ episodes: [{ advantage: Number.NaN, tokens: 1 }] }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
