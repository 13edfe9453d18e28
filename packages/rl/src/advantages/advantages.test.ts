import { describe, expect, it } from 'vitest';
import { grpoAdvantages, turnAdvantages, zeroVarianceGroups } from './grpo';

describe('grpoAdvantages', () => {
  it('should normalise within groups with the unbiased std', () => {
    // Group a: rewards 1, 0, 0, 1 → mean 0.5, unbiased std sqrt(1/3).
    const advantages = grpoAdvantages({
      rewards: [1, 0, 0, 1, 1],
      groups: ['a', 'a', 'a', 'a', 'b'],
    });
    const std = Math.sqrt(1 / 3);
    expect(advantages[0]).toBeCloseTo(0.5 / (std + 1e-6), 12);
    expect(advantages[1]).toBeCloseTo(-0.5 / (std + 1e-6), 12);
    // A group of one: mean 0, std 1.
    expect(advantages[4]).toBeCloseTo(1 / (1 + 1e-6), 12);
  });

  it('should give zeros to a group with equal rewards', () => {
    expect(
      grpoAdvantages({ rewards: [1, 1, 1], groups: ['a', 'a', 'a'] }),
    ).toEqual([0, 0, 0]);
    expect([
      ...zeroVarianceGroups({
        rewards: [1, 1, 0, 1],
        groups: ['a', 'a', 'b', 'b'],
      }),
    ]).toEqual(['a']);
  });
});

describe('turnAdvantages', () => {
  it('should normalise each turn over the group, leaving agreeing turns and lone rollouts at 0', () => {
    // Group a, turn 0: 1, 1, 0 (mean 2/3, unbiased std sqrt(1/3)); turn 1: all 0.
    // Group b has one rollout: nothing to compare it with.
    const result = turnAdvantages({
      turnRewards: [
        [1, 0],
        [1, 0],
        [0, 0],
        [1, 1],
      ],
      groups: ['a', 'a', 'a', 'b'],
    });
    const std = Math.sqrt(1 / 3);
    expect(result[0]![0]).toBeCloseTo(1 / 3 / (std + 1e-6), 12);
    expect(result[2]![0]).toBeCloseTo(-(2 / 3) / (std + 1e-6), 12);
    expect(result.map((turns) => turns[1])).toEqual([0, 0, 0, 0]);
    expect(result[3]).toEqual([0, 0]);
  });

  it('should give a failing episode credit for a turn it got right where its group differs', () => {
    // Every episode fails (episode advantages all 0), but turn 0 tells them apart.
    const result = turnAdvantages({
      turnRewards: [
        [1, 0],
        [0, 0],
      ],
      groups: ['a', 'a'],
    });
    expect(result[0]![0]).toBeGreaterThan(0);
    expect(result[1]![0]).toBeLessThan(0);
    expect(() => turnAdvantages({ turnRewards: [[1]], groups: [] })).toThrow(
      RangeError,
    );
  });
});
