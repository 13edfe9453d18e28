import { describe, expect, it } from 'vitest';
import { trainConfigSchema } from '../config/train-config';
import { oldLogprobSource } from './ppo-update';
import { warmupFactor } from './run-training';

describe('warmupFactor', () => {
  it('should raise the rate linearly over the warm-up steps and hold it after', () => {
    expect([1, 2, 3, 4, 10].map((step) => warmupFactor(step, 3))).toEqual([
      1 / 3,
      2 / 3,
      1,
      1,
      1,
    ]);
  });

  it('should leave the rate alone without a warm-up', () => {
    expect(warmupFactor(1, 0)).toBe(1);
  });

  it('should default to no warm-up and refuse a negative one', () => {
    expect(
      trainConfigSchema.parse({ runId: 'r', steps: 1 }).ppo.warmupSteps,
    ).toBe(0);
    expect(
      trainConfigSchema.safeParse({
        runId: 'r',
        steps: 1,
        ppo: { warmupSteps: -1 },
      }).success,
    ).toBe(false);
  });
});

describe('oldLogprobSource', () => {
  const parse = (input: Record<string, unknown>) =>
    trainConfigSchema.parse({ runId: 'r', steps: 1, ...input });

  it("should reuse the rollouts' log-probabilities only where they equal a score pass", () => {
    expect(oldLogprobSource(parse({}))).toBe('rollout');
    expect(
      oldLogprobSource(parse({ sampling: { maxTokens: 8, temperature: 0.7 } })),
    ).toBe('rollout');
    expect(
      oldLogprobSource(
        parse({ sampling: { maxTokens: 8, temperature: 1, topP: 0.9 } }),
      ),
    ).toBe('rescore');
    expect(
      oldLogprobSource(
        parse({ sampling: { maxTokens: 8, temperature: 1, topK: 50 } }),
      ),
    ).toBe('rescore');
    expect(
      oldLogprobSource(parse({ sampling: { maxTokens: 8, temperature: 0 } })),
    ).toBe('rescore');
    expect(oldLogprobSource(parse({ ppo: { oldLogprobs: 'rescore' } }))).toBe(
      'rescore',
    );
  });

  it('should refuse rollout log-probabilities from truncated or greedy sampling, naming the setting', () => {
    const result = trainConfigSchema.safeParse({
      runId: 'r',
      steps: 1,
      sampling: { maxTokens: 8, temperature: 1, topP: 0.9 },
      ppo: { oldLogprobs: 'rollout' },
    });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['ppo', 'oldLogprobs']);
    expect(result.error!.issues[0]!.message).toMatch(/untruncated sampling/);
  });
});
