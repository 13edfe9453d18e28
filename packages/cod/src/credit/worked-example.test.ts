import { describe, expect, it } from 'vitest';
import { computePackAdvantages } from './group-baseline';

/**
 * The worked example of spec B4 (n = 4, two runs of one pack): run A
 * rewards [0, 1, 1, 1], run B [0, 0, 1, 0], every hint reward 0. All
 * expected numbers are worked out by hand below.
 */
describe('computePackAdvantages (the spec worked example)', () => {
  const [runA, runB] = computePackAdvantages({
    runs: [
      { packId: 'p', taskRewards: [0, 1, 1, 1], hintRewards: [0, 0, 0] },
      { packId: 'p', taskRewards: [0, 0, 1, 0], hintRewards: [0, 0, 0] },
    ],
  });

  it('should give the reward-to-go returns of both runs', () => {
    expect(runA!.solveReturns).toEqual([0.75, 1, 1, 1]);
    expect(runB!.solveReturns).toEqual([0.25, 1 / 3, 0.5, 0]);
  });

  it('should use the mean return per position as the baseline', () => {
    // (0.75 + 0.25)/2, (1 + 1/3)/2, (1 + 0.5)/2, (1 + 0)/2
    expect(runA!.solveBaselines[0]).toBeCloseTo(0.5, 12);
    expect(runA!.solveBaselines[1]).toBeCloseTo(2 / 3, 12);
    expect(runA!.solveBaselines[2]).toBeCloseTo(0.75, 12);
    expect(runA!.solveBaselines[3]).toBeCloseTo(0.5, 12);
    expect(runB!.solveBaselines).toEqual(runA!.solveBaselines);
  });

  it('should give run A solve advantages +0.25, +1/3, +0.25, +0.5 and run B their negatives', () => {
    const expected = [0.25, 1 / 3, 0.25, 0.5];
    runA!.solveAdvantages.forEach((value, i) =>
      expect(value).toBeCloseTo(expected[i]!, 12),
    );
    runB!.solveAdvantages.forEach((value, i) =>
      expect(value).toBeCloseTo(-expected[i]!, 12),
    );
  });

  it('should reinforce the hint after the failed first task by +0.25', () => {
    // G^h_1: A mean(0, 1, 1, 1) = 0.75, B mean(0, 0, 1, 0) = 0.25, baseline 0.5.
    expect(runA!.updateReturns[0]).toBeCloseTo(0.75, 12);
    expect(runB!.updateReturns[0]).toBeCloseTo(0.25, 12);
    expect(runA!.updateAdvantages[0]).toBeCloseTo(0.25, 12);
    // G^h_2: A mean(0, 1, 1) = 2/3, B mean(0, 1, 0) = 1/3 → ±1/6;
    // G^h_3: A mean(0, 1) = 0.5, B mean(0, 0) = 0 → ±0.25.
    expect(runA!.updateAdvantages[1]).toBeCloseTo(1 / 6, 12);
    expect(runA!.updateAdvantages[2]).toBeCloseTo(0.25, 12);
    expect(runB!.updateAdvantages[2]).toBeCloseTo(-0.25, 12);
  });

  it('should not normalise by the standard deviation', () => {
    // With std normalisation position 4 (±0.5) would become ±1.
    expect(runA!.solveAdvantages[3]).toBeCloseTo(0.5, 12);
  });
});

describe('computePackAdvantages', () => {
  it('should keep the baselines of different packs apart', () => {
    const credit = computePackAdvantages({
      runs: [
        { packId: 'a', taskRewards: [1, 1], hintRewards: [0] },
        { packId: 'b', taskRewards: [0, 0], hintRewards: [0] },
      ],
    });
    // One run per pack: the baseline is the run itself.
    expect(
      credit.flatMap((c) => [...c.solveAdvantages, ...c.updateAdvantages]),
    ).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('should carry a hint penalty into that hint advantage only', () => {
    const [penalised, clean] = computePackAdvantages({
      runs: [
        { packId: 'p', taskRewards: [1, 1], hintRewards: [-0.1] },
        { packId: 'p', taskRewards: [1, 1], hintRewards: [0] },
      ],
    });
    expect(penalised!.solveAdvantages).toEqual([0, 0]);
    expect(penalised!.updateAdvantages[0]).toBeCloseTo(-0.025, 12);
    expect(clean!.updateAdvantages[0]).toBeCloseTo(0.025, 12);
  });

  it('should refuse runs of one pack with different lengths', () => {
    expect(() =>
      computePackAdvantages({
        runs: [
          { packId: 'p', taskRewards: [1, 1], hintRewards: [0] },
          { packId: 'p', taskRewards: [1], hintRewards: [] },
        ],
      }),
    ).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' }));
  });
});
