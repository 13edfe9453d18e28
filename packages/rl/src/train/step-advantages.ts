import {
  applyAPatch,
  defaultTagWeights,
  updateDynamicTagWeights,
  type CapabilityState,
} from '@seal/diagnose';
import { grpoAdvantages, zeroVarianceGroups } from '../advantages/grpo';
import type { MethodComponents, TrainConfig } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import { tagStatistics } from './step-overlay';

/** The advantages of a step's rollouts and which rollouts train. */
export type StepAdvantages = {
  /** One per rollout. */
  advantages: number[];
  /** The tag weights A-Patch used (the defaults without reweighting). */
  tagWeights: Record<string, number>;
  /** Groups left out by dynamic sampling (all rewards equal). */
  dropped: Set<string>;
  /** Indices of the rollouts that train: outside dropped groups, with generated tokens. */
  kept: number[];
};

/**
 * GRPO advantages, then (for methods that reweight) the closed-loop ρ update
 * of the tag weights, recorded in the capability state, and A-Patch scaling;
 * then dynamic sampling's zero-variance groups are left out.
 */
export function stepAdvantages({
  rollouts,
  rewards,
  tags,
  components,
  capability,
  config,
}: {
  rollouts: readonly Rollout[];
  rewards: number[];
  /** Per rollout, the failure tag of each turn. */
  tags: string[][];
  components: MethodComponents;
  capability: CapabilityState;
  config: TrainConfig;
}): StepAdvantages {
  const groups = rollouts.map((rollout) => rollout.group);
  let advantages = grpoAdvantages({ rewards, groups });
  let tagWeights: Record<string, number> = { ...defaultTagWeights };
  if (components.reweight) {
    if (components.closedLoop) {
      tagWeights = updateDynamicTagWeights({
        base: defaultTagWeights,
        previous: capability.dynamicTagWeights,
        statistics: tagStatistics(capability.activeTagStats()),
      });
      capability.setDynamicTagWeights(tagWeights);
    }
    advantages = applyAPatch({
      advantages,
      tags,
      weights: tagWeights,
    }).advantages;
  }
  const dropped = config.dynamicSampling
    ? zeroVarianceGroups({ rewards, groups })
    : new Set<string>();
  const kept = rollouts
    .map((_, i) => i)
    .filter(
      (i) =>
        !dropped.has(groups[i]!) &&
        rollouts[i]!.generatedMask.some((m) => m > 0),
    );
  return { advantages, tagWeights, dropped, kept };
}
