import { describe, expect, it } from 'vitest';
import { grpoAdvantages, zeroVarianceGroups } from './grpo';

describe('grpoAdvantages', () => {
  it('should normalise within groups with the unbiased std', () => {
    // Group a: rewards 1, 0, 0, 1 → mean 0.5, unbiased std sqrt(1/3).
    const advantages = grpoAdvantages({ rewards: [1, 0, 0, 1, 1], groups: ['a', 'a', 'a', 'a', 'b'] });
    const std = Math.sqrt(1 / 3);
    expect(advantages[0]).toBeCloseTo(0.5 / (std + 1e-6), 12);
    expect(advantages[1]).toBeCloseTo(-0.5 / (std + 1e-6), 12);
    // A group of one: mean 0, std 1.
    expect(advantages[4]).toBeCloseTo(1 / (1 + 1e-6), 12);
  });

  it('should give zeros to a group with equal rewards', () => {
    expect(grpoAdvantages({ rewards: [1, 1, 1], groups: ['a', 'a', 'a'] })).toEqual([0, 0, 0]);
    expect([...zeroVarianceGroups({ rewards: [1, 1, 0, 1], groups: ['a', 'a', 'b', 'b'] })]).toEqual(['a']);
  });
});
