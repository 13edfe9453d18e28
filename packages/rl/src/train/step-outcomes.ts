import type { VerifierV1Result } from '@seal/spec';
import type { TrainConfig } from '../config/train-config';
import type { Rollout } from '../rollout/run-rollouts';
import type { GroupOutcomes } from './dynamic-sampling';
import type { LoopVerdict, TrainingEnvironment } from './training-environment';
import { trainingReward } from './training-reward';

/** A verifier's verdict on one rollout (BFCL's, or a v2 environment's generic verdict). */
export type Verdict = LoopVerdict;

/** A step's rollouts (or one refill round's) with their verdicts and rewards. */
export type StepOutcomes = GroupOutcomes & {
  rollouts: Rollout[];
  /** The frozen baseline's rollouts of the same tasks, when it ran. */
  baselineRollouts: Rollout[] | undefined;
  verdicts: Verdict[];
  rewards: number[];
  /** Per rollout, each turn's verdict (for turn-level credit). */
  turnRewards: number[][];
  /** The frozen baseline's verdicts, by `taskId#index` (its episodes may finish in another order). */
  baselineSuccess: Map<string, boolean>;
};

/**
 * Each turn's verdict for turn-level credit, indexed by turn number: 1 if the
 * turn passed or correctly abstained (irrelevance 1), else 0; a turn the
 * verdict does not list counts 0.
 */
export function turnVerdicts(verdict: {
  readonly turns: readonly Pick<
    VerifierV1Result['turns'][number],
    'turn' | 'valid' | 'irrelevance'
  >[];
}): number[] {
  const rewardsByTurn: number[] = [];
  for (const turn of verdict.turns) {
    rewardsByTurn[turn.turn] =
      turn.valid === true || turn.irrelevance === 1 ? 1 : 0;
  }
  return Array.from(rewardsByTurn, (reward) => reward ?? 0);
}

/**
 * Verifies rollouts (and the frozen baseline's) in order and computes their
 * training rewards.
 */
export async function verifyOutcomes({
  rollouts,
  baselineRollouts,
  environment,
  config,
  stageReward,
}: {
  rollouts: Rollout[];
  baselineRollouts: Rollout[] | undefined;
  environment: TrainingEnvironment;
  config: TrainConfig;
  /** The Environment Tuning stage's reward, if a stage is running. */
  stageReward: 'format' | 'progress' | undefined;
}): Promise<StepOutcomes> {
  const verdicts: Verdict[] = [];
  for (const rollout of rollouts)
    verdicts.push(
      await environment.verify({ task: rollout.task, record: rollout.record }),
    );
  const baselineSuccess = new Map<string, boolean>();
  for (const rollout of baselineRollouts ?? []) {
    const verdict = await environment.verify({
      task: rollout.task,
      record: rollout.record,
    });
    baselineSuccess.set(
      `${rollout.task.id}#${rollout.index}`,
      verdict.official.valid,
    );
  }
  const rewards = verdicts.map((verdict) =>
    trainingReward({
      verdict,
      progressWeight: config.progressWeight,
      strictAbstention: config.strictAbstention,
      stageReward,
    }),
  );
  return {
    rollouts,
    baselineRollouts,
    verdicts,
    rewards,
    turnRewards: verdicts.map(turnVerdicts),
    groups: rollouts.map((rollout) => rollout.group),
    baselineSuccess,
  };
}

/** One step's outcomes from the scheduled batch's and each refill round's, in that order. */
export function mergeOutcomes(parts: readonly StepOutcomes[]): StepOutcomes {
  if (parts.length === 1) return parts[0]!;
  const baseline = parts.every((part) => part.baselineRollouts !== undefined);
  return {
    rollouts: parts.flatMap((part) => part.rollouts),
    baselineRollouts: baseline
      ? parts.flatMap((part) => part.baselineRollouts!)
      : undefined,
    verdicts: parts.flatMap((part) => part.verdicts),
    rewards: parts.flatMap((part) => part.rewards),
    turnRewards: parts.flatMap((part) => part.turnRewards),
    groups: parts.flatMap((part) => part.groups),
    baselineSuccess: new Map(
      parts.flatMap((part) => [...part.baselineSuccess]),
    ),
  };
}
