import type { PolicyV1TrainResult, TrainStepEvent } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import type { StepAdvantages } from './step-advantages';
import type { LoopVerdict as Verdict } from './training-environment';

/**
 * The `train-step` event of a step: rewards, success, tags, the update's
 * means, the interface and, with the frozen baseline, its success, with one
 * sample per rollout. Its timing is zero until the step ends.
 */
export function trainStepEvent({
  step,
  config,
  rollouts,
  verdicts,
  rewards,
  tags,
  advantages,
  trainResults,
  overlayHash,
  stage,
  baselineSuccess,
  refill,
}: {
  step: number;
  config: TrainConfig;
  rollouts: readonly Rollout[];
  verdicts: readonly Verdict[];
  rewards: readonly number[];
  tags: readonly string[][];
  advantages: StepAdvantages;
  trainResults: readonly PolicyV1TrainResult[];
  overlayHash: string;
  /** Environment Tuning's stage of the step. */
  stage: string | undefined;
  /** The frozen baseline's verdicts by `taskId#index`, when it ran. */
  baselineSuccess: ReadonlyMap<string, boolean> | undefined;
  /** With dynamic sampling's refill: the groups drawn beyond the scheduled batch and the rounds it took. */
  refill?: { refilledGroups: number; rounds: number };
}): TrainStepEvent {
  const tagCounts: Record<string, number> = {};
  for (const list of tags) {
    for (const tag of list) tagCounts[tag] = (tagCounts[tag] ?? 0) + 1;
  }
  const applied = trainResults.filter((r) => !r.skipped);
  const kept = new Set(advantages.kept);
  return {
    schemaVersion: 1,
    type: 'train-step',
    step,
    method: config.method,
    rewardMean: mean(rewards),
    successRate: mean(verdicts.map((v) => (v.official.valid ? 1 : 0))),
    tagCounts,
    loss: mean(applied.map((r) => r.loss)),
    gradNorm: mean(applied.map((r) => r.gradNorm)),
    kl: mean(applied.map((r) => r.metrics.kl)),
    clipFraction: mean(applied.map((r) => r.metrics.clipFraction)),
    skippedUpdates: trainResults.length - applied.length,
    droppedGroups: advantages.dropped.size,
    ...(refill
      ? { refilledGroups: refill.refilledGroups, refillRounds: refill.rounds }
      : {}),
    overlayHash,
    tagWeights: advantages.tagWeights,
    ...(stage ? { curriculumStage: stage } : {}),
    ...(baselineSuccess
      ? {
          baselineSuccessRate: mean(
            [...baselineSuccess.values()].map((ok) => (ok ? 1 : 0)),
          ),
        }
      : {}),
    timing: { model: 0, other: 0, total: 0, parts: {} },
    samples: rollouts.map((rollout, i) => ({
      episodeId: rollout.record.episodeId,
      taskId: rollout.task.id,
      success: verdicts[i]!.official.valid,
      reward: rewards[i]!,
      advantage: kept.has(i) ? advantages.advantages[i]! : 0,
      tags: tags[i]!,
      ...(baselineSuccess
        ? {
            baselineSuccess:
              baselineSuccess.get(`${rollout.task.id}#${rollout.index}`) ??
              false,
          }
        : {}),
    })),
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0
    ? 0
    : values.reduce((a, b) => a + b, 0) / values.length;
}
