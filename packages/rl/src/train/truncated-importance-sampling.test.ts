import type {
  PolicyV1,
  PolicyV1ScoreOptions,
  PolicyV1TrainOptions,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { trainConfigSchema } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import { oldLogprobSource, updatePolicy } from './ppo-update';
import { truncatedImportanceWeights } from './truncated-importance-sampling';

describe('truncatedImportanceWeights', () => {
  it('should give exp(trainer - sampler) on sampled tokens, truncated at the cap, and 1 elsewhere', () => {
    const weights = truncatedImportanceWeights({
      trainerLogprobs: [0, -1, -1, -0.5, -3],
      samplerLogprobs: [0, -2, -1, -2.5, -1],
      mask: [0, 1, 1, 1, 1],
      cap: 2,
    });
    expect(weights[0]).toBe(1);
    expect(weights[1]).toBe(2); // e^1 = 2.72, truncated
    expect(weights[2]).toBe(1);
    expect(weights[3]).toBe(2); // e^2, truncated
    expect(weights[4]).toBeCloseTo(Math.exp(-2), 12);
  });

  it('should give a token with a missing log-probability no weight', () => {
    expect(
      truncatedImportanceWeights({
        trainerLogprobs: [0, Number.NaN],
        samplerLogprobs: [0, -1],
        mask: [0, 1],
        cap: 2,
      }),
    ).toEqual([1, 0]);
  });
});

describe('updatePolicy with truncated importance sampling', () => {
  // Two rollouts of a 2-token prompt and 3 sampled tokens.
  const rollout = (samplingLogprobs: number[]): Rollout =>
    ({
      group: 'g',
      index: 0,
      tokenIds: [1, 2, 3, 4, 5],
      generatedMask: [0, 0, 1, 1, 1],
      samplingLogprobs,
    }) as unknown as Rollout;
  const rollouts = [
    rollout([0, 0, -1, -1, -1]),
    rollout([0, 0, -0.5, -3, -1.2]),
  ];

  const run = async (cap: number | undefined) => {
    const config = trainConfigSchema.parse({
      runId: 'tis',
      steps: 1,
      optimizerStepsPerStep: 1,
      ppo: {
        learningRate: 1e-4,
        klCoef: 0,
        ...(cap === undefined ? {} : { truncatedImportanceSamplingCap: cap }),
      },
    });
    const scored: number[][][] = [];
    const calls: PolicyV1TrainOptions[] = [];
    // The trainer puts every sampled token at log-probability -1.
    const trainer = {
      specificationVersion: 'v1',
      policyId: 'trainer',
      trainable: true,
      score: ({ sequences }: PolicyV1ScoreOptions) => {
        scored.push(sequences);
        return Promise.resolve({
          logprobs: sequences.map((sequence) => sequence.map(() => -1)),
        });
      },
      train: (options: PolicyV1TrainOptions) => {
        calls.push(options);
        return Promise.resolve({ loss: 0, gradNorm: 0, skipped: false });
      },
    } as unknown as PolicyV1;
    await updatePolicy({
      step: 1,
      rollouts,
      kept: [0, 1],
      advantages: [1, -1],
      config,
      policy: trainer,
      referencePolicy: undefined,
      learningRateScale: 1,
      mark: () => {},
    });
    return { config, scored, sequences: calls[0]!.sequences };
  };

  it('should take the old log-probabilities from the trainer and scale each sampled token by its truncated ratio', async () => {
    const plain = await run(undefined);
    const corrected = await run(2);
    // Untruncated sampling reuses the rollouts' log-probabilities without a
    // cap; with one, the trainer scores the batch.
    expect(oldLogprobSource(plain.config)).toBe('rollout');
    expect(plain.scored).toHaveLength(0);
    expect(oldLogprobSource(corrected.config)).toBe('rescore');
    expect(corrected.scored).toHaveLength(1);
    expect(corrected.sequences[0]!.oldLogprobs).toEqual([-1, -1, -1, -1, -1]);
    // Rollout 0: sampler and trainer agree (ratio 1), weights unchanged.
    expect(corrected.sequences[0]!.tokenWeights).toEqual(
      plain.sequences[0]!.tokenWeights,
    );
    // Rollout 1: ratios e^-0.5, e^2 → cap 2, e^0.2.
    const base = plain.sequences[1]!.tokenWeights;
    const expected = [0, 0, Math.exp(-0.5), 2, Math.exp(0.2)].map(
      (ratio, t) => base[t]! * ratio,
    );
    corrected.sequences[1]!.tokenWeights.forEach((weight, t) =>
      expect(weight).toBeCloseTo(expected[t]!, 12),
    );
  });

  it("should refuse ppo.oldLogprobs 'rollout' beside a cap", () => {
    const parsed = trainConfigSchema.safeParse({
      runId: 'tis',
      steps: 1,
      ppo: { oldLogprobs: 'rollout', truncatedImportanceSamplingCap: 2 },
    });
    expect(parsed.success).toBe(false);
  });
});
