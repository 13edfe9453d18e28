import { describe, expect, it } from 'vitest';
import { computeAPatchWeights } from './apatch-weights';

describe('computeAPatchWeights', () => {
  describe('fixed weights', () => {
    it("should reproduce SEAL's worked examples (§5.3)", () => {
      const result = computeAPatchWeights({
        failure_tags: [
          ['pass', 'pass', 'pass', 'pass', 'correct_abstention'],
          ['spurious_tool_call', 'pass', 'pass', 'pass'],
          ['instance_mismatch', 'instance_mismatch', 'pass', 'pass'],
          ['checker_error', 'gt_error'],
          [],
        ],
        advantages: [1, -1, -0.5, 2, 0.3],
        dynamic: false,
      });
      expect(result.scales.map((scale) => Number(scale.toFixed(6)))).toEqual([
        1.16, 1.25, 0.8, 1, 1,
      ]);
      expect(
        result.advantages!.map((value) => Number(value.toFixed(6))),
      ).toEqual([1.16, -1.25, -0.4, 2, 0.3]);
      expect(result.scaled_count).toBe(3);
      expect(result.weights['spurious_tool_call']).toBe(2);
    });

    it('should scale only the advantages apply_to selects', () => {
      const result = computeAPatchWeights({
        failure_tags: [['spurious_tool_call'], ['spurious_tool_call']],
        advantages: [1, -1],
        apply_to: 'negative_advantage',
        dynamic: false,
      });
      expect(result.advantages).toEqual([1, -2]);
    });

    it('should clip to min_scale and max_scale', () => {
      const result = computeAPatchWeights({
        failure_tags: [['spurious_tool_call'], ['instance_mismatch']],
        min_scale: 0.7,
        max_scale: 1.5,
        dynamic: false,
      });
      expect(result.scales).toEqual([1.5, 0.7]);
    });
  });

  describe('closed loop', () => {
    it('should add the batch to the statistics and move ρ toward the target by β', () => {
      const result = computeAPatchWeights({
        failure_tags: Array.from({ length: 32 }, () => ['state_mismatch']),
        rewards: Array.from({ length: 32 }, () => 0),
      });
      expect(result.tag_statistics).toEqual({
        state_mismatch: { count: 32, reward_sum: 0 },
      });
      // target = 1 · (1 + 1 · 1 · 1 · 1) = 2; ρ = 0.75 · 1 + 0.25 · 2.
      expect(result.weights['state_mismatch']).toBeCloseTo(1.25, 12);
      expect(result.scales[0]).toBeCloseTo(1.25, 12);
      const next = computeAPatchWeights({
        failure_tags: [['state_mismatch']],
        rewards: [1],
        tag_statistics: result.tag_statistics,
        dynamic_weights: result.dynamic_weights,
      });
      expect(next.tag_statistics['state_mismatch']).toEqual({
        count: 33,
        reward_sum: 1,
      });
      expect(next.weights['state_mismatch']).toBeGreaterThan(1.25);
    });

    it('should count a trajectory without tags as unknown', () => {
      const result = computeAPatchWeights({
        failure_tags: [[]],
        rewards: [0.5],
      });
      expect(result.tag_statistics).toEqual({
        unknown: { count: 1, reward_sum: 0.5 },
      });
    });
  });

  describe('errors', () => {
    it('should name the parameter of a malformed request', () => {
      expect(() =>
        computeAPatchWeights({ failure_tags: [['pass']], advantages: [1, 2] }),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          details: { path: 'params.advantages' },
        }),
      );
      expect(() => computeAPatchWeights({})).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          details: { path: 'params.failure_tags' },
        }),
      );
      expect(() =>
        computeAPatchWeights({ failure_tags: [], min_scale: 2, max_scale: 1 }),
      ).toThrow(
        expect.objectContaining({
          code: 'INVALID_ARGUMENT',
          details: { path: 'params.min_scale' },
        }),
      );
      expect(() =>
        computeAPatchWeights({ failure_tags: [], tag_weights: { pass: -1 } }),
      ).toThrow(
        expect.objectContaining({
          details: { path: 'params.tag_weights.pass' },
        }),
      );
    });
  });
});
