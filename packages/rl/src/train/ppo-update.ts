import { performance } from 'node:perf_hooks';
import type {
  PolicyV1,
  PolicyV1TrainResult,
  PolicyV1TrainSequence,
} from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import { deriveSeed, type Rollout } from '../rollout/run-rollouts';
import { truncatedImportanceWeights } from './truncated-importance-sampling';

/**
 * The policy update of a step: old log-probabilities (the rollouts' own, or
 * a score pass; see {@link oldLogprobSource}) and the reference's from its
 * score graph, then PPO over mini-batches with per-trajectory token means.
 * All use the sampling temperature (as verl does): the policy being
 * optimised is the one the rollouts were drawn from, softmax(logits / T).
 * Nothing trains when no kept rollout has a nonzero advantage. Zero-advantage
 * rollouts may be sampled out of the update ({@link chooseUpdateRollouts},
 * `ppo.zeroAdvantageShare`).
 */
export async function updatePolicy({
  step,
  rollouts,
  kept,
  advantages,
  tokenAdvantages,
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
  /**
   * Per rollout, one advantage per token (turn-level credit); without it
   * every generated token takes its rollout's advantage. A rollout counts as
   * zero-advantage only when all its tokens' advantages are 0.
   */
  tokenAdvantages?: readonly (readonly number[])[];
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
  // What decides whether a rollout moves the policy beyond the KL term.
  const signal = tokenAdvantages
    ? tokenAdvantages.map((perToken) => (perToken.some((a) => a !== 0) ? 1 : 0))
    : advantages;
  if (kept.length === 0 || !kept.some((i) => signal[i] !== 0)) {
    return trainResults;
  }
  const miniBatches = Math.min(config.optimizerStepsPerStep, kept.length);
  const chosen = chooseUpdateRollouts({
    kept,
    advantages: signal,
    miniBatches,
    klCoef: config.ppo.klCoef,
    zeroAdvantageShare: config.ppo.zeroAdvantageShare,
    seed: deriveSeed(config.seed, 0x2e70, step),
  });
  const sequences = chosen.map(({ rollout }) => rollouts[rollout]!.tokenIds);
  const temperature =
    config.sampling.temperature > 0 ? config.sampling.temperature : 1;
  const old =
    oldLogprobSource(config) === 'rollout'
      ? {
          logprobs: chosen.map(
            ({ rollout }) => rollouts[rollout]!.samplingLogprobs,
          ),
        }
      : await policy.score({ sequences, temperature });
  const ref =
    config.ppo.klCoef > 0 && referencePolicy
      ? await referencePolicy.score({ sequences, temperature })
      : undefined;
  const t0 = performance.now();
  const batches: PolicyV1TrainSequence[][] = Array.from(
    { length: miniBatches },
    () => [],
  );
  // Each rollout's token mean, over its mini-batch's full size (a rollout
  // left out still counts there), times its weight.
  chosen.forEach(
    ({ rollout: rolloutIndex, miniBatch, miniBatchSize, weight }, k) => {
      const rollout = rollouts[rolloutIndex]!;
      const masked = rollout.generatedMask.reduce((a, b) => a + b, 0);
      // Rollouts from another engine: the trainer-to-sampler ratio, truncated.
      const cap = config.ppo.truncatedImportanceSamplingCap;
      const importance =
        cap === undefined
          ? undefined
          : truncatedImportanceWeights({
              trainerLogprobs: old.logprobs[k]!,
              samplerLogprobs: rollout.samplingLogprobs,
              mask: rollout.generatedMask,
              cap,
            });
      batches[miniBatch]!.push({
        tokenIds: rollout.tokenIds,
        tokenWeights: rollout.generatedMask.map(
          (m, t) =>
            (masked > 0 ? (weight * m) / masked / miniBatchSize : 0) *
            (importance?.[t] ?? 1),
        ),
        advantages: tokenAdvantages
          ? [...tokenAdvantages[rolloutIndex]!]
          : rollout.generatedMask.map(() => advantages[rolloutIndex]!),
        oldLogprobs: [...old.logprobs[k]!],
        ...(ref ? { refLogprobs: [...ref.logprobs[k]!] } : {}),
      });
    },
  );
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
            outputNormLearningRateScale: config.ppo.outputNormLearningRateScale,
            vectorLearningRateScale: config.ppo.vectorLearningRateScale,
            ...(config.ppo.matrixLearningRateScale === undefined
              ? {}
              : {
                  matrixLearningRateScale: config.ppo.matrixLearningRateScale,
                }),
            outputNormUniform: config.ppo.outputNormUniform,
            temperature,
          },
        }),
      );
    }
  }
  return trainResults;
}

/** A rollout that goes into the update: its mini-batch and its loss weight. */
export type UpdateRollout = {
  /** Index into the step's rollouts. */
  rollout: number;
  miniBatch: number;
  /** The mini-batch's size before any rollout was left out (the token means' divisor). */
  miniBatchSize: number;
  /** 1, or 1 / share for a zero-advantage rollout kept with probability `share`. */
  weight: number;
};

/**
 * The kept rollouts that go into the update, in order: the k-th kept
 * rollout belongs to mini-batch k mod `miniBatches`. Every rollout with a
 * nonzero advantage goes in. A zero-advantage one moves the policy only
 * through the KL term: with `klCoef` 0 it is left out, otherwise it goes in
 * with probability `zeroAdvantageShare` (a seeded draw per rollout) and
 * weight 1 / share, so the expected loss is the whole batch's. A
 * mini-batch never ends up empty: it keeps its first rollout at weight 0, so
 * that its optimizer step still runs (Adam's momentum and weight decay move
 * the weights even without a gradient), as it did with every rollout in.
 */
export function chooseUpdateRollouts({
  kept,
  advantages,
  miniBatches,
  klCoef,
  zeroAdvantageShare,
  seed,
}: {
  kept: readonly number[];
  advantages: readonly number[];
  miniBatches: number;
  klCoef: number;
  zeroAdvantageShare: number;
  seed: number;
}): UpdateRollout[] {
  // Mini-batch b holds the kept rollouts k ≡ b (mod miniBatches).
  const sizes = Array.from({ length: miniBatches }, (_, b) =>
    Math.ceil((kept.length - b) / miniBatches),
  );
  const chosen = kept.flatMap((rollout, k): UpdateRollout[] => {
    const miniBatch = k % miniBatches;
    const entry = { rollout, miniBatch, miniBatchSize: sizes[miniBatch]! };
    if (advantages[rollout] !== 0) return [{ ...entry, weight: 1 }];
    if (klCoef === 0) return [];
    if (zeroAdvantageShare >= 1) return [{ ...entry, weight: 1 }];
    const draw = deriveSeed(seed, rollout) / 0x80000000;
    return draw < zeroAdvantageShare
      ? [{ ...entry, weight: 1 / zeroAdvantageShare }]
      : [];
  });
  for (let miniBatch = 0; miniBatch < miniBatches; miniBatch++) {
    if (chosen.some((entry) => entry.miniBatch === miniBatch)) continue;
    chosen.push({
      rollout: kept[miniBatch]!,
      miniBatch,
      miniBatchSize: sizes[miniBatch]!,
      weight: 0,
    });
  }
  const position = new Map(kept.map((rollout, k) => [rollout, k]));
  return chosen.sort(
    (a, b) => position.get(a.rollout)! - position.get(b.rollout)!,
  );
}

/**
 * Where a run's PPO old log-probabilities come from (`ppo.oldLogprobs`,
 * with `auto` resolved): the rollouts' sampling log-probabilities equal a
 * score pass at the sampling temperature only when sampling is untruncated
 * and not greedy (greedy rollouts report 0). With truncated importance
 * sampling (rollouts from another engine) always `rescore`.
 */
export function oldLogprobSource(
  config: Pick<TrainConfig, 'ppo' | 'sampling'>,
): 'rollout' | 'rescore' {
  const { oldLogprobs } = config.ppo;
  // Importance sampling needs the trainer's own probabilities.
  if (config.ppo.truncatedImportanceSamplingCap !== undefined) return 'rescore';
  if (oldLogprobs !== 'auto') return oldLogprobs;
  const { temperature, topP, topK } = config.sampling;
  return temperature > 0 && topP === 1 && topK === 0 ? 'rollout' : 'rescore';
}

/** The share of the learning rate training step `step` (1-based) uses under a linear warm-up of `warmupSteps` steps. */
export function warmupFactor(step: number, warmupSteps: number): number {
  return warmupSteps <= 0 ? 1 : Math.min(1, step / warmupSteps);
}
