import {
  applyAPatch,
  defaultTagWeights,
  updateDynamicTagWeights,
  type CapabilityState,
} from '@seal/diagnose';
import {
  grpoAdvantages,
  turnAdvantages,
  zeroVarianceGroups,
} from '../advantages/grpo';
import type { MethodComponents, TrainConfig } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import { dynamicSamplingOf } from './dynamic-sampling';
import { tagStatistics } from './step-overlay';

/** The advantages of a step's rollouts and which rollouts train. */
export type StepAdvantages = {
  /** One per rollout. */
  advantages: number[];
  /** The tag weights A-Patch used (the defaults without reweighting). */
  tagWeights: Record<string, number>;
  /** Groups left out by dynamic sampling (no gradient: all rewards equal). */
  dropped: Set<string>;
  /** Indices of the rollouts that train: outside dropped groups, with generated tokens. */
  kept: number[];
  /**
   * With turn-level credit (`turnAdvantageWeight` > 0): per rollout, the
   * advantage of each token (aligned with its `tokenIds`; 0 off the
   * generated tokens). Without it, every generated token takes its
   * rollout's advantage.
   */
  tokenAdvantages?: number[][];
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
  turnRewards,
  components,
  capability,
  config,
}: {
  rollouts: readonly Rollout[];
  rewards: number[];
  /** Per rollout, the failure tag of each turn. */
  tags: string[][];
  /** Per rollout, each turn's verdict: 1 if it passed or correctly abstained, else 0 (for turn-level credit). */
  turnRewards?: number[][];
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
  // Groups without gradient: their rewards agree and, under turn-level
  // credit, so does each turn's verdict.
  const creditedTurns =
    config.turnAdvantageWeight > 0 ? turnRewards : undefined;
  const dropped = dynamicSamplingOf(config)
    ? zeroVarianceGroups({
        rewards,
        groups,
        ...(creditedTurns ? { turnRewards: creditedTurns } : {}),
      })
    : new Set<string>();
  const kept = rollouts
    .map((_, i) => i)
    .filter(
      (i) =>
        !dropped.has(groups[i]!) &&
        rollouts[i]!.generatedMask.some((m) => m > 0),
    );
  const tokenAdvantages = creditedTurns
    ? rolloutTokenAdvantages({
        rollouts,
        advantages,
        turns: turnAdvantages({ turnRewards: creditedTurns, groups }),
        weight: config.turnAdvantageWeight,
      })
    : undefined;
  return {
    advantages,
    tagWeights,
    dropped,
    kept,
    ...(tokenAdvantages ? { tokenAdvantages } : {}),
  };
}

/**
 * Per-token advantages under turn-level credit: each generated token takes
 * its rollout's advantage plus `weight` times the advantage of the turn its
 * model call belongs to (the record's turns list their steps, one per call,
 * in call order). A rollout whose calls and steps do not line up keeps its
 * episode advantage on every token.
 */
export function rolloutTokenAdvantages({
  rollouts,
  advantages,
  turns,
  weight,
}: {
  rollouts: readonly Pick<
    Rollout,
    'tokenIds' | 'generatedMask' | 'callStarts' | 'record'
  >[];
  /** One per rollout (the episode's). */
  advantages: readonly number[];
  /** Per rollout, one advantage per turn (indexed by the turn number). */
  turns: readonly (readonly number[])[];
  weight: number;
}): number[][] {
  return rollouts.map((rollout, r) => {
    const callTurns = rollout.record.turns.flatMap((turn) =>
      turn.steps.map(() => turn.turn),
    );
    const episode = advantages[r]!;
    const aligned = callTurns.length === rollout.callStarts.length;
    const perToken = rollout.generatedMask.map((m) => (m > 0 ? episode : 0));
    if (!aligned) return perToken;
    rollout.callStarts.forEach((start, call) => {
      const end = rollout.callStarts[call + 1] ?? rollout.tokenIds.length;
      const extra = weight * (turns[r]![callTurns[call]!] ?? 0);
      for (let i = start; i < end; i++)
        if (rollout.generatedMask[i]! > 0) perToken[i] = episode + extra;
    });
    return perToken;
  });
}
