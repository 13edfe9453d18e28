import { describe, expect, it } from 'vitest';
import { policyV1GenerateOptionsSchema } from './policy-v1-generate';
import { policyV1TrainOptionsSchema } from './policy-v1-train';

describe('policyV1TrainOptionsSchema', () => {
  it('should accept a PPO batch with per-token arrays', () => {
    const parsed = policyV1TrainOptionsSchema.parse({
      objective: 'ppo',
      sequences: [
        {
          tokenIds: [1, 2, 3],
          tokenWeights: [0, 0.5, 0.5],
          advantages: [0, 1, 1],
          oldLogprobs: [0, -1, -2],
        },
      ],
      options: { learningRate: 1e-5, klCoef: 0.01, betas: [0.9, 0.95] },
    });
    expect(parsed.sequences[0]!.advantages).toEqual([0, 1, 1]);
  });

  it('should reject unknown options and bad values', () => {
    const base = {
      objective: 'cross-entropy',
      sequences: [{ tokenIds: [1, 2], tokenWeights: [0, 1] }],
    };
    expect(
      policyV1TrainOptionsSchema.safeParse({
        ...base,
        options: { learningRate: 1, momentum: 0.9 },
      }).success,
    ).toBe(false);
    expect(
      policyV1TrainOptionsSchema.safeParse({
        ...base,
        options: { learningRate: -1 },
      }).success,
    ).toBe(false);
    expect(
      policyV1TrainOptionsSchema.safeParse({
        ...base,
        objective: 'dpo',
        options: { learningRate: 1 },
      }).success,
    ).toBe(false);
  });
});

describe('policyV1GenerateOptionsSchema', () => {
  it('should accept token prompts or chats with sampling settings', () => {
    expect(
      policyV1GenerateOptionsSchema.safeParse({
        prompts: [[1, 2]],
        maxTokens: 4,
        topP: 0.9,
        topK: 20,
        seed: 3,
      }).success,
    ).toBe(true);
    expect(
      policyV1GenerateOptionsSchema.safeParse({
        chats: [{ messages: [{ role: 'user', content: 'hi' }] }],
        maxTokens: 1,
      }).success,
    ).toBe(true);
    expect(
      policyV1GenerateOptionsSchema.safeParse({
        prompts: [[1]],
        maxTokens: 4,
        topP: 0,
      }).success,
    ).toBe(false);
  });
});
