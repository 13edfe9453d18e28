import { performance } from 'node:perf_hooks';
import type {
  PolicyV1,
  PolicyV1TrainResult,
  PolicyV1TrainSequence,
} from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';

/**
 * The policy update of a step: old log-probabilities (the rollouts' own, or
 * a score pass; see {@link oldLogprobSource}) and the reference's from its
 * score graph, then PPO over mini-batches with per-trajectory token means.
 * All use the sampling temperature (as verl does): the policy being
 * optimised is the one the rollouts were drawn from, softmax(logits / T).
 * Nothing trains when no kept rollout has a nonzero advantage.
 */
export async function updatePolicy({
  step,
  rollouts,
  kept,
  advantages,
  config,
  policy,
  referencePolicy,
  learningRateScale,
  mark,
}: {
  step: number;
  rollouts: readonly Rollout[];
  /** Indices of the rollouts that train. */
  kept: readonly number[];
  /** One per rollout. */
  advantages: readonly number[];
  config: TrainConfig;
  policy: PolicyV1;
  /** Scores the reference log-probabilities when `ppo.klCoef > 0`. */
  referencePolicy: PolicyV1 | undefined;
  /** The gap monitor's learning-rate scale (1 without rollbacks). */
  learningRateScale: number;
  /** Counts time towards a phase of the step's clock. */
  mark: (name: string, since: number) => void;
}): Promise<PolicyV1TrainResult[]> {
  const trainResults: PolicyV1TrainResult[] = [];
  if (kept.length === 0 || !kept.some((i) => advantages[i] !== 0)) {
    return trainResults;
  }
  const sequences = kept.map((i) => rollouts[i]!.tokenIds);
  const temperature =
    config.sampling.temperature > 0 ? config.sampling.temperature : 1;
  const old =
    oldLogprobSource(config) === 'rollout'
      ? { logprobs: kept.map((i) => rollouts[i]!.samplingLogprobs) }
      : await policy.score({ sequences, temperature });
  const ref =
    config.ppo.klCoef > 0 && referencePolicy
      ? await referencePolicy.score({ sequences, temperature })
      : undefined;
  const t0 = performance.now();
  const miniBatches = Math.min(config.optimizerStepsPerStep, kept.length);
  const batches: PolicyV1TrainSequence[][] = Array.from(
    { length: miniBatches },
    () => [],
  );
  kept.forEach((rolloutIndex, k) => {
    const rollout = rollouts[rolloutIndex]!;
    const masked = rollout.generatedMask.reduce((a, b) => a + b, 0);
    const target = batches[k % miniBatches]!;
    target.push({
      tokenIds: rollout.tokenIds,
      // Filled below once the mini-batch size is known.
      tokenWeights: rollout.generatedMask.map((m) =>
        masked > 0 ? m / masked : 0,
      ),
      advantages: rollout.generatedMask.map(() => advantages[rolloutIndex]!),
      oldLogprobs: [...old.logprobs[k]!],
      ...(ref ? { refLogprobs: [...ref.logprobs[k]!] } : {}),
    });
  });
  for (const miniBatch of batches) {
    for (const sequence of miniBatch) {
      sequence.tokenWeights = sequence.tokenWeights.map(
        (w) => w / miniBatch.length,
      );
    }
  }
  mark('bookkeeping', t0);
  // PPO epochs: each pass goes over every mini-batch again against the
  // same old log-probabilities (the clip bounds how far the policy moves).
  for (let epoch = 0; epoch < config.ppo.epochs; epoch++) {
    for (const miniBatch of batches) {
      if (miniBatch.length === 0) continue;
      trainResults.push(
        await policy.train({
          objective: 'ppo',
          sequences: miniBatch,
          options: {
            learningRate:
              config.ppo.learningRate *
              learningRateScale *
              warmupFactor(step, config.ppo.warmupSteps),
            clipLow: config.ppo.clipLow,
            clipHigh: config.ppo.clipHigh,
            dualClipC: config.ppo.dualClipC,
            klCoef: config.ppo.klCoef,
            maxGradNorm: config.ppo.maxGradNorm,
            weightDecay: config.ppo.weightDecay,
            embeddingLearningRateScale: config.ppo.embeddingLearningRateScale,
            temperature,
          },
        }),
      );
    }
  }
  return trainResults;
}

/**
 * Where a run's PPO old log-probabilities come from (`ppo.oldLogprobs`,
 * with `auto` resolved): the rollouts' sampling log-probabilities equal a
 * score pass at the sampling temperature only when sampling is untruncated
 * and not greedy (greedy rollouts report 0).
 */
export function oldLogprobSource(config: Pick<TrainConfig, 'ppo' | 'sampling'>): 'rollout' | 'rescore' {
  const { oldLogprobs } = config.ppo;
  if (oldLogprobs !== 'auto') return oldLogprobs;
  const { temperature, topP, topK } = config.sampling;
  return temperature > 0 && topP === 1 && topK === 0 ? 'rollout' : 'rescore';
}

/** The share of the learning rate training step `step` (1-based) uses under a linear warm-up of `warmupSteps` steps. */
export function warmupFactor(step: number, warmupSteps: number): number {
  return warmupSteps <= 0 ? 1 : Math.min(1, step / warmupSteps);
}
