import type {
  PolicyV1,
  PolicyV1ScoreOptions,
  PolicyV1TrainOptions,
  PolicyV1TrainSequence,
} from '@seal/spec';
import { describe, expect, it } from 'vitest';
import { trainConfigSchema } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import { chooseUpdateRollouts, updatePolicy } from './ppo-update';

describe('chooseUpdateRollouts', () => {
  const kept = [0, 1, 2, 3, 4, 5, 6, 7];
  const advantages = [1, 0, -1, 0, 0, 0, 2, 0];

  it('should take every kept rollout at weight 1 by default, the k-th in mini-batch k mod n', () => {
    const chosen = chooseUpdateRollouts({
      kept,
      advantages,
      miniBatches: 3,
      klCoef: 0.05,
      zeroAdvantageShare: 1,
      seed: 1,
    });
    expect(chosen.map((entry) => entry.rollout)).toEqual(kept);
    expect(chosen.map((entry) => entry.miniBatch)).toEqual([
      0, 1, 2, 0, 1, 2, 0, 1,
    ]);
    expect(chosen.map((entry) => entry.miniBatchSize)).toEqual([
      3, 3, 2, 3, 3, 2, 3, 3,
    ]);
    expect(chosen.every((entry) => entry.weight === 1)).toBe(true);
  });

  it('should leave zero-advantage rollouts out without a KL term, keeping an empty mini-batch at weight 0', () => {
    // Mini-batch 1 holds rollouts 1, 3, 5, 7: all of advantage 0.
    const chosen = chooseUpdateRollouts({
      kept,
      advantages,
      miniBatches: 2,
      klCoef: 0,
      zeroAdvantageShare: 1,
      seed: 1,
    });
    expect(chosen).toEqual([
      { rollout: 0, miniBatch: 0, miniBatchSize: 4, weight: 1 },
      { rollout: 1, miniBatch: 1, miniBatchSize: 4, weight: 0 },
      { rollout: 2, miniBatch: 0, miniBatchSize: 4, weight: 1 },
      { rollout: 6, miniBatch: 0, miniBatchSize: 4, weight: 1 },
    ]);
  });

  it('should keep about the share of zero-advantage rollouts, weighted so that their expected total is their count', () => {
    const many = Array.from({ length: 4000 }, (_, i) => i);
    const zeros = many.map((i) => (i % 10 === 0 ? 1 : 0));
    const chosen = chooseUpdateRollouts({
      kept: many,
      advantages: zeros,
      miniBatches: 2,
      klCoef: 0.05,
      zeroAdvantageShare: 0.25,
      seed: 7,
    });
    const zeroEntries = chosen.filter((entry) => zeros[entry.rollout] === 0);
    // 3,600 zero-advantage rollouts: binomial(3600, 0.25) has sd 26.
    expect(zeroEntries.length).toBeGreaterThan(900 - 100);
    expect(zeroEntries.length).toBeLessThan(900 + 100);
    expect(zeroEntries.every((entry) => entry.weight === 4)).toBe(true);
    expect(chosen.filter((entry) => zeros[entry.rollout] !== 0)).toHaveLength(
      400,
    );
    // Seeded: the same seed draws the same rollouts, another seed others.
    const again = chooseUpdateRollouts({
      kept: many,
      advantages: zeros,
      miniBatches: 2,
      klCoef: 0.05,
      zeroAdvantageShare: 0.25,
      seed: 7,
    });
    const other = chooseUpdateRollouts({
      kept: many,
      advantages: zeros,
      miniBatches: 2,
      klCoef: 0.05,
      zeroAdvantageShare: 0.25,
      seed: 8,
    });
    expect(again).toEqual(chosen);
    expect(other.map((entry) => entry.rollout)).not.toEqual(
      chosen.map((entry) => entry.rollout),
    );
  });
});

/** A policy that records what `train` is asked to do. */
function recordingPolicy(calls: PolicyV1TrainOptions[]): PolicyV1 {
  return {
    specificationVersion: 'v1',
    policyId: 'recording',
    trainable: true,
    generate: () => Promise.reject(new Error('not used')),
    score: ({ sequences }: PolicyV1ScoreOptions) =>
      Promise.resolve({
        logprobs: sequences.map((sequence: number[]) => sequence.map(() => -1)),
      }),
    train: (options: PolicyV1TrainOptions) => {
      calls.push(options);
      return Promise.resolve({
        loss: 0,
        gradNorm: 0,
        skipped: false,
        tokens: 0,
      });
    },
  } as unknown as PolicyV1;
}

/** A rollout of `generated` generated tokens after a 2-token prompt. */
function rollout(generated: number): Rollout {
  return {
    group: 'g',
    index: 0,
    tokenIds: Array.from({ length: 2 + generated }, (_, i) => i + 1),
    generatedMask: [0, 0, ...Array.from({ length: generated }, () => 1)],
    samplingLogprobs: Array.from({ length: 2 + generated }, () => -0.5),
  } as unknown as Rollout;
}

describe('updatePolicy', () => {
  const rollouts = [rollout(2), rollout(4), rollout(1), rollout(3)];
  const advantages = [1, 0, 0, -1];
  const run = async (ppo: {
    klCoef: number;
    zeroAdvantageShare: number;
  }): Promise<PolicyV1TrainSequence[][]> => {
    const config = trainConfigSchema.parse({
      runId: 'update',
      steps: 1,
      optimizerStepsPerStep: 2,
      ppo: { learningRate: 1e-4, ...ppo },
    });
    const calls: PolicyV1TrainOptions[] = [];
    await updatePolicy({
      step: 1,
      rollouts,
      kept: [0, 1, 2, 3],
      advantages,
      config,
      policy: recordingPolicy(calls),
      referencePolicy: recordingPolicy([]),
      learningRateScale: 1,
      mark: () => {},
    });
    return calls.map((call) => call.sequences);
  };
  const weightSums = (batches: PolicyV1TrainSequence[][]): number[][] =>
    batches.map((batch) =>
      batch.map((sequence) => sequence.tokenWeights.reduce((a, b) => a + b, 0)),
    );

  it('should give each rollout a token mean over its whole mini-batch, with or without its zero-advantage rollouts', async () => {
    // Mini-batches {0, 2} and {1, 3}: each rollout's weights sum to 1 / 2.
    const all = await run({ klCoef: 0.05, zeroAdvantageShare: 1 });
    expect(weightSums(all)).toEqual([
      [0.5, 0.5],
      [0.5, 0.5],
    ]);
    expect(all[0]![0]!.tokenWeights).toEqual([0, 0, 0.25, 0.25]);
    // Without a KL term the zero-advantage rollouts carry nothing and stay
    // out; the others keep the weights they had beside them.
    const withoutKl = await run({ klCoef: 0, zeroAdvantageShare: 1 });
    expect(weightSums(withoutKl)).toEqual([[0.5], [0.5]]);
    expect(
      withoutKl.map((batch) =>
        batch.map((sequence) => sequence.tokenIds.length),
      ),
    ).toEqual([[4], [5]]);
    expect(withoutKl[0]![0]!.tokenWeights).toEqual(all[0]![0]!.tokenWeights);
  });

  it('should train per-token advantages as given, and count a rollout with any nonzero token as carrying signal', async () => {
    const config = trainConfigSchema.parse({
      runId: 'update',
      steps: 1,
      optimizerStepsPerStep: 1,
      ppo: { learningRate: 1e-4, klCoef: 0 },
    });
    const calls: PolicyV1TrainOptions[] = [];
    // Episode advantages all 0 (no episode-level signal); rollout 1's second token carries turn credit.
    const tokenAdvantages = rollouts.map((r, i) =>
      r.tokenIds.map((_, t) => (i === 1 && t === 3 ? 0.7 : 0)),
    );
    await updatePolicy({
      step: 1,
      rollouts,
      kept: [0, 1, 2, 3],
      advantages: [0, 0, 0, 0],
      tokenAdvantages,
      config,
      policy: recordingPolicy(calls),
      referencePolicy: undefined,
      learningRateScale: 1,
      mark: () => {},
    });
    expect(calls).toHaveLength(1);
    expect(calls[0]!.sequences).toHaveLength(1);
    expect(calls[0]!.sequences[0]!.advantages).toEqual(tokenAdvantages[1]);
  });
});
