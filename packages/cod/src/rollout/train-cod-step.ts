import type {
  PolicyV1,
  PolicyV1TrainResult,
  PolicyV1TrainSettings,
} from '@seal/spec';
import { computePackAdvantages } from '../credit/group-baseline';
import {
  recLoss,
  recTrainSequences,
  type RecSettings,
} from '../credit/rec-loss';
import {
  redReweight,
  type RedResult,
  type RedSettings,
} from '../credit/red-weighting';
import type { ReturnStyle } from '../credit/reward-to-go';
import type { EpisodeTokens, PackRunResult } from './run-pack-runs';

/** Options of {@link trainCodStep}. */
export type TrainCodStepOptions = {
  policy: PolicyV1;
  /** The pack runs of the batch (all G runs of every pack); their records get the advantages. */
  results: readonly PackRunResult[];
  /** Reward-to-go style. Default mean. */
  returns?: ReturnStyle;
  /** RED settings, or false to turn RED off (the paper's ablation). */
  red?: RedSettings | false;
  /** The REC trust region. */
  rec?: RecSettings;
  /**
   * Optimizer settings of the step (`klCoef` is forced to 0: CoD trains
   * without KL). `temperature` should be the sampling temperature.
   */
  train: Omit<PolicyV1TrainSettings, 'klCoef'>;
};

/** What one {@link trainCodStep} did. */
export type TrainCodStepResult = {
  /** The engine's result (null when the batch had no response tokens). */
  train: PolicyV1TrainResult | null;
  /** RED's reweighting over the batch. */
  red: RedResult | null;
  /** The REC loss of the batch before the step (token mean). */
  loss: number;
  /** Fraction of response tokens outside the trust region. */
  maskedFraction: number;
  /** Episodes (solve and update) trained on. */
  episodes: number;
  /** Response tokens trained on. */
  tokens: number;
};

type Episode = {
  tokens: EpisodeTokens;
  advantage: number;
  assign: (value: number) => void;
};

/** A run of `independentTasks`: several tasks and no update episode. */
const independent = (result: PackRunResult) =>
  result.record.updates.length === 0 && result.record.taskRewards.length > 1;

function countGenerated(tokens: EpisodeTokens): number {
  let count = 0;
  for (const flag of tokens.generatedMask) count += flag;
  return count;
}

/**
 * One Connect the Dots update (spec B4): causal reward-to-go advantages with
 * the group baseline per (pack, kind, index), RED over the whole batch, then
 * one `PolicyV1.train` step of REC-OneSide-NoIS: token mean over every
 * response token, no importance weight, KL 0. The behaviour log-probabilities
 * are the sampler's; the current ones come from `score` right before the
 * step. Each record's `advantages` is filled in.
 */
export async function trainCodStep(
  options: TrainCodStepOptions,
): Promise<TrainCodStepResult> {
  const { policy, results } = options;
  const credit = computePackAdvantages({
    runs: results.map((result) => ({
      packId: result.record.packId,
      taskRewards: result.record.taskRewards,
      // Runs of independent tasks have no update episodes: their (unused) hint returns see no penalty.
      hintRewards: independent(result)
        ? result.record.taskRewards.slice(1).map(() => 0)
        : result.record.hintRewards,
    })),
    ...(options.returns === undefined ? {} : { returns: options.returns }),
  });
  const episodes: Episode[] = [];
  results.forEach((result, index) => {
    const runCredit = credit[index]!;
    const advantages = {
      solve: [...runCredit.solveAdvantages],
      update: independent(result) ? [] : [...runCredit.updateAdvantages],
    };
    result.record.advantages = advantages;
    result.solveTokens.forEach((tokens, i) =>
      episodes.push({
        tokens,
        advantage: advantages.solve[i]!,
        assign: (value) => (advantages.solve[i] = value),
      }),
    );
    result.updateTokens.forEach((tokens, i) =>
      episodes.push({
        tokens,
        advantage: advantages.update[i]!,
        assign: (value) => (advantages.update[i] = value),
      }),
    );
  });
  const trained = episodes.filter(
    (episode) =>
      episode.tokens.tokenIds.length >= 2 && countGenerated(episode.tokens) > 0,
  );
  let red: RedResult | null = null;
  if (options.red !== false) {
    red = redReweight({
      episodes: trained.map((episode) => ({
        advantage: episode.advantage,
        tokens: countGenerated(episode.tokens),
      })),
      ...(options.red === undefined ? {} : { settings: options.red }),
    });
    red.advantages.forEach((value, i) => {
      trained[i]!.advantage = value;
      trained[i]!.assign(value);
    });
  }
  if (trained.length === 0)
    return {
      train: null,
      red,
      loss: 0,
      maskedFraction: 0,
      episodes: 0,
      tokens: 0,
    };
  const temperature = options.train.temperature ?? 1;
  const { logprobs } = await policy.score({
    sequences: trained.map((episode) => episode.tokens.tokenIds),
    temperature,
  });
  const sequences = trained.map((episode, i) => ({
    tokenIds: episode.tokens.tokenIds,
    advantages: episode.tokens.generatedMask.map(
      (flag) => flag * episode.advantage,
    ),
    logprobs: Array.from(logprobs[i]!),
    oldLogprobs: episode.tokens.samplingLogprobs,
    responseMask: episode.tokens.generatedMask,
  }));
  const settings = options.rec ?? {};
  const loss = recLoss({ sequences, settings });
  const train = await policy.train({
    objective: 'ppo',
    sequences: recTrainSequences({ sequences, settings }),
    options: { ...options.train, klCoef: 0 },
  });
  return {
    train,
    red,
    loss: loss.loss,
    maskedFraction: loss.maskedFraction,
    episodes: trained.length,
    tokens: loss.tokens,
  };
}
