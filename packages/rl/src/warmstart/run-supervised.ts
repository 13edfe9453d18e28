import { PyRandom } from '@seal/python';
import type { PolicyV1 } from '@seal/spec';
import { deriveSeed } from '../rollout/run-rollouts';
import type { Demonstration } from './demonstrations';

/** Progress of {@link runSupervised}. */
export type SupervisedProgress = {
  step: number;
  steps: number;
  epoch: number;
  loss: number;
  tokens: number;
};

/**
 * A supervised warm start: cross-entropy on the assistant tokens of
 * demonstrations, token-mean per batch, a seeded shuffle per epoch, linear
 * warm-up then cosine decay of the learning rate. Sequences longer than the
 * policy's limit are cut. Returns the loss of every step.
 */
export async function runSupervised({
  policy,
  demonstrations,
  epochs,
  batchSize,
  learningRate,
  warmupSteps = 10,
  minLearningRate = learningRate / 10,
  seed = 0,
  contextWeight = 0,
  maxSteps,
  onProgress,
}: {
  policy: PolicyV1;
  demonstrations: readonly Demonstration[];
  epochs: number;
  batchSize: number;
  learningRate: number;
  warmupSteps?: number;
  minLearningRate?: number;
  seed?: number;
  /**
   * Loss weight of the non-assistant tokens relative to the assistant's
   * (default 0: assistant tokens only). A small weight also trains on the
   * prompts and tool results, which speeds up learning to copy values.
   */
  contextWeight?: number;
  /** Stop after this many steps (the learning-rate schedule spans them); default: all epochs. */
  maxSteps?: number;
  onProgress?: (progress: SupervisedProgress) => void;
}): Promise<number[]> {
  const usable = demonstrations
    .map((demo) => ({
      tokenIds: demo.tokenIds.slice(0, policy.maxSequenceLength),
      mask: demo.assistantMask
        .slice(0, policy.maxSequenceLength)
        .map((m) => (m > 0 ? 1 : contextWeight)),
    }))
    .filter(
      (demo) => demo.mask.some((m) => m === 1) && demo.tokenIds.length >= 2,
    );
  const perEpoch = Math.max(1, Math.floor(usable.length / batchSize));
  if (maxSteps !== undefined && (!Number.isInteger(maxSteps) || maxSteps < 1))
    throw new Error(
      `runSupervised: maxSteps must be a positive integer, got ${maxSteps}`,
    );
  const steps = Math.min(
    perEpoch * epochs,
    maxSteps ?? Number.POSITIVE_INFINITY,
  );
  const losses: number[] = [];
  let step = 0;
  for (let epoch = 0; epoch < epochs && step < steps; epoch++) {
    const order = new PyRandom(BigInt(deriveSeed(seed, 0x5f7, epoch))).shuffle([
      ...usable,
    ]);
    for (let b = 0; b < perEpoch && step < steps; b++) {
      const batch = order.slice(b * batchSize, (b + 1) * batchSize);
      const total = batch.reduce(
        (sum, demo) => sum + demo.mask.reduce((a, c) => a + c, 0),
        0,
      );
      const progress = step / Math.max(1, steps - 1);
      const rate =
        step < warmupSteps
          ? (learningRate * (step + 1)) / warmupSteps
          : minLearningRate +
            0.5 *
              (learningRate - minLearningRate) *
              (1 + Math.cos(Math.PI * progress));
      const result = await policy.train({
        objective: 'cross-entropy',
        sequences: batch.map((demo) => ({
          tokenIds: demo.tokenIds,
          tokenWeights: demo.mask.map((m, i) => (i === 0 ? 0 : m / total)),
        })),
        options: { learningRate: rate, maxGradNorm: 1, weightDecay: 0.01 },
      });
      step++;
      losses.push(result.loss);
      onProgress?.({ step, steps, epoch, loss: result.loss, tokens: total });
    }
  }
  return losses;
}
