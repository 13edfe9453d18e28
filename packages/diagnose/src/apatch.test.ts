import { describe, expect, it } from 'vitest';
import { applyAPatch, defaultTagWeights, trajectoryWeight } from './apatch';
import { updateDynamicTagWeights } from './closed-loop';

describe('A-Patch', () => {
  // The worked examples of SEAL §5.3.
  it('should weigh a successful miss_func trajectory (4 pass, 1 correct_abstention) at 1.16', () => {
    expect(
      trajectoryWeight({
        tags: ['pass', 'pass', 'correct_abstention', 'pass', 'pass'],
        weights: defaultTagWeights,
      }),
    ).toBeCloseTo(1.16, 12);
  });
  it('should weigh 1 spurious_tool_call and 3 pass at 1.25', () => {
    expect(
      trajectoryWeight({
        tags: ['spurious_tool_call', 'pass', 'pass', 'pass'],
        weights: defaultTagWeights,
      }),
    ).toBeCloseTo(1.25, 12);
  });
  it('should weigh 2 instance_mismatch of 4 turns at 0.8', () => {
    expect(
      trajectoryWeight({
        tags: ['instance_mismatch', 'pass', 'instance_mismatch', 'pass'],
        weights: defaultTagWeights,
      }),
    ).toBeCloseTo(0.8, 12);
  });
  it('should drop checker_error/gt_error, default to 1 and clip to [0.5, 2]', () => {
    expect(
      trajectoryWeight({
        tags: ['gt_error', 'checker_error'],
        weights: defaultTagWeights,
      }),
    ).toBe(1);
    expect(trajectoryWeight({ tags: [], weights: defaultTagWeights })).toBe(1);
    expect(trajectoryWeight({ tags: ['x'], weights: { x: 9 } })).toBe(2);
    expect(trajectoryWeight({ tags: ['x'], weights: { x: 0.1 } })).toBe(0.5);
    expect(
      trajectoryWeight({ tags: ['unknown_tag'], weights: defaultTagWeights }),
    ).toBe(1);
  });
  it('should scale per apply_to and keep signs', () => {
    const tags = [['spurious_tool_call'], ['spurious_tool_call']];
    expect(
      applyAPatch({ advantages: [1, -1], tags, weights: defaultTagWeights })
        .advantages,
    ).toEqual([2, -2]);
    expect(
      applyAPatch({
        advantages: [1, -1],
        tags,
        weights: defaultTagWeights,
        settings: { applyTo: 'positive_advantage' },
      }).advantages,
    ).toEqual([2, -1]);
    expect(
      applyAPatch({
        advantages: [1, -1],
        tags,
        weights: defaultTagWeights,
        settings: { applyTo: 'negative_advantage' },
      }).advantages,
    ).toEqual([1, -2]);
  });
});

describe('updateDynamicTagWeights', () => {
  it('should move toward ρ₀(1 + α·prev·stag·conf) by β', () => {
    // 40 state_mismatch (reward mean 0.25), 40 pass, N = 80.
    const statistics = {
      state_mismatch: { count: 40, rewardSum: 10 },
      pass: { count: 40, rewardSum: 30 },
    };
    const updated = updateDynamicTagWeights({
      base: defaultTagWeights,
      previous: {},
      statistics,
    });
    const target = 1.0 * (1 + 1 * (40 / 80) * (1 - 0.25) * 1); // 1.375
    expect(updated['state_mismatch']).toBeCloseTo(
      0.75 * 1.0 + 0.25 * target,
      12,
    );
    expect(updated['pass']).toBeCloseTo(1, 12);
    // A tag not observed keeps its base target: prevalence 0.
    expect(updated['spurious_tool_call']).toBeCloseTo(2, 12);
    // correct_abstention is treated as a failure tag (only pass is special).
    expect(updated['correct_abstention']).toBeCloseTo(1.8, 12);
  });

  it('should weigh confidence by K and clip the target, and keep excluded tags at 1', () => {
    const updated = updateDynamicTagWeights({
      base: defaultTagWeights,
      previous: { spurious_tool_call: 2, gt_error: 1.4 },
      statistics: {
        spurious_tool_call: { count: 8, rewardSum: 0 },
        gt_error: { count: 100, rewardSum: 0 },
      },
    });
    // N = 8 (gt_error excluded): prev 1, stag 1, conf 8/32 → 2·1.25 = 2.5 → clipped to 2.
    expect(updated['spurious_tool_call']).toBeCloseTo(2, 12);
    expect(updated['gt_error']).toBeCloseTo(0.75 * 1.4 + 0.25 * 1, 12);
  });

  it('should return the base weights when nothing was observed', () => {
    expect(
      updateDynamicTagWeights({
        base: defaultTagWeights,
        previous: { pass: 0.7 },
        statistics: {},
      }),
    ).toEqual(defaultTagWeights);
  });

  it('should drift back to ρ₀ once a failure is solved', () => {
    let weights: Record<string, number> = {};
    for (let i = 0; i < 10; i++) {
      weights = updateDynamicTagWeights({
        base: defaultTagWeights,
        previous: weights,
        statistics: { state_mismatch: { count: 64, rewardSum: 0 } },
      });
    }
    expect(weights['state_mismatch']).toBeGreaterThan(1.8);
    for (let i = 0; i < 30; i++) {
      weights = updateDynamicTagWeights({
        base: defaultTagWeights,
        previous: weights,
        statistics: {
          state_mismatch: { count: 64, rewardSum: 64 },
          pass: { count: 64, rewardSum: 64 },
        },
      });
    }
    expect(weights['state_mismatch']).toBeCloseTo(1, 2);
  });
});
