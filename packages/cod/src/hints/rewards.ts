import { SealError } from '@seal/spec';
import type { HintParseResult } from './parse-hint-block';

/** Settings of {@link taskReward}; the defaults are the released configs'. */
export type TaskRewardSettings = {
  /** Weight `c_len` of the length penalties. Default 0.1. */
  lengthPenaltyCoef?: number;
  /**
   * Response-length ramp: 0 at `zeroPenaltyTokens` average tokens per call,
   * 1 at `fullPenaltyTokens`. Default off (the released thresholds, 1e6 and
   * 2e6 tokens, never trigger).
   */
  responseLength?: { zeroPenaltyTokens: number; fullPenaltyTokens: number };
};

/**
 * The task reward r_i (spec B3): the environment outcome in [0, 1], minus
 * `c_len · (response-length ramp + stepsUsed / maxSteps)` only when the
 * outcome is positive, floored at 0. A solved task thus earns slightly more
 * when solved in fewer steps; a failed one earns its outcome (0) unpenalised.
 */
export function taskReward({
  outcome,
  stepsUsed,
  maxSteps,
  meanResponseTokens = 0,
  settings = {},
}: {
  outcome: number;
  stepsUsed: number;
  maxSteps: number;
  meanResponseTokens?: number;
  settings?: TaskRewardSettings;
}): number {
  if (!(outcome >= 0 && outcome <= 1) || !(maxSteps > 0) || !(stepsUsed >= 0)) {
    throw new SealError({
      code: 'INVALID_ARGUMENT',
      message: `task reward: need an outcome in [0, 1], maxSteps > 0 and stepsUsed ≥ 0 (got ${outcome}, ${maxSteps}, ${stepsUsed})`,
      details: { outcome, maxSteps, stepsUsed },
    });
  }
  if (outcome <= 0) return outcome;
  const coef = settings.lengthPenaltyCoef ?? 0.1;
  let lengthRamp = 0;
  const ramp = settings.responseLength;
  if (ramp !== undefined) {
    const span = ramp.fullPenaltyTokens - ramp.zeroPenaltyTokens;
    lengthRamp =
      span <= 0
        ? meanResponseTokens >= ramp.fullPenaltyTokens
          ? 1
          : 0
        : Math.min(
            1,
            Math.max(0, (meanResponseTokens - ramp.zeroPenaltyTokens) / span),
          );
  }
  return Math.max(
    0,
    outcome - coef * (lengthRamp + Math.min(1, stepsUsed / maxSteps)),
  );
}

/**
 * The reward h_j of an update-context episode (spec B3): `−penalty` when its
 * hint block could not be used (missing, unterminated, blank or over the
 * length limit), else 0. Never positive.
 */
export function hintReward({
  parse,
  penalty = 0.1,
}: {
  parse: HintParseResult;
  penalty?: number;
}): number {
  return parse.success ? 0 : -Math.abs(penalty);
}
