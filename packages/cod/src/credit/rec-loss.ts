import { SealError, type PolicyV1TrainSequence } from '@seal/spec';

/** Trust-region settings of the REC loss (spec B4 step 5: ε = 0.2 on both sides). */
export type RecSettings = {
  /** Tokens with `A ≤ 0` stay in the region while `ρ ≥ 1 − clipLow`. Default 0.2. */
  clipLow?: number;
  /** Tokens with `A ≥ 0` stay in the region while `ρ ≤ 1 + clipHigh`. Default 0.2. */
  clipHigh?: number;
};

/** One sequence for the REC loss; every array is aligned with the sequence's tokens. */
export type RecSequence = {
  /** Per-token advantages. */
  advantages: readonly number[];
  /** Log-probabilities of the tokens under the current policy. */
  logprobs: readonly number[];
  /** Log-probabilities under the policy that sampled the tokens. */
  oldLogprobs: readonly number[];
  /** 1 on response tokens (the only ones trained), 0 elsewhere. */
  responseMask: readonly number[];
};

/**
 * REC-OneSide's trust region per token: with `ρ = exp(logprob − oldLogprob)`
 * (detached), a token with `A ≥ 0` stays while `ρ ≤ 1 + clipHigh` and one
 * with `A ≤ 0` while `ρ ≥ 1 − clipLow`. Tokens outside get no gradient.
 * Returns 1 (in) or 0 (out) per token; tokens outside the response mask are 0.
 */
export function recTrustRegionMask({
  sequence,
  settings = {},
}: {
  sequence: RecSequence;
  settings?: RecSettings;
}): number[] {
  const clipLow = settings.clipLow ?? 0.2;
  const clipHigh = settings.clipHigh ?? 0.2;
  const { advantages, logprobs, oldLogprobs, responseMask } = sequence;
  const length = responseMask.length;
  if (
    advantages.length !== length ||
    logprobs.length !== length ||
    oldLogprobs.length !== length
  ) {
    throw new SealError({
      code: 'SHAPE_MISMATCH',
      message: `REC: advantages (${advantages.length}), logprobs (${logprobs.length}) and oldLogprobs (${oldLogprobs.length}) must align with the response mask (${length})`,
      details: { length },
    });
  }
  return responseMask.map((inResponse, t) => {
    if (inResponse === 0) return 0;
    const ratio = Math.exp(logprobs[t]! - oldLogprobs[t]!);
    const advantage = advantages[t]!;
    if (advantage > 0) return ratio <= 1 + clipHigh ? 1 : 0;
    if (advantage < 0) return ratio >= 1 - clipLow ? 1 : 0;
    return 1 - clipLow <= ratio && ratio <= 1 + clipHigh ? 1 : 0;
  });
}

/** The REC loss of a batch and its diagnostics. */
export type RecLoss = {
  /** `Σ −A·logπ·inRegion / (response tokens)`: token mean, no importance weight, no KL. */
  loss: number;
  /** Response tokens in the batch (the token-mean denominator). */
  tokens: number;
  /** Fraction of response tokens outside the trust region. */
  maskedFraction: number;
};

/**
 * REC-OneSide-NoIS (spec B4 step 5): per token `−A · logπ_θ(token) ·
 * 1[in trust region]`, averaged over every response token of the batch
 * (token mean; tokens outside the region count in the denominator with a
 * zero loss). There is no importance weight and no KL term. Its gradient is
 * `−A·∇logπ` on in-region tokens: plain REINFORCE with the group baseline.
 */
export function recLoss({
  sequences,
  settings = {},
}: {
  sequences: readonly RecSequence[];
  settings?: RecSettings;
}): RecLoss {
  let total = 0;
  let tokens = 0;
  let masked = 0;
  for (const sequence of sequences) {
    const region = recTrustRegionMask({ sequence, settings });
    sequence.responseMask.forEach((inResponse, t) => {
      if (inResponse === 0) return;
      tokens++;
      if (region[t] === 0) masked++;
      else total += -sequence.advantages[t]! * sequence.logprobs[t]!;
    });
  }
  return {
    loss: tokens === 0 ? 0 : total / tokens,
    tokens,
    maskedFraction: tokens === 0 ? 0 : masked / tokens,
  };
}

/**
 * Turns a REC batch into {@link PolicyV1TrainSequence}s for a `ppo`
 * `PolicyV1.train` call that computes exactly the REC gradient: the trust
 * region goes into `tokenWeights` (in-region response tokens weigh
 * `1 / response tokens`, the token mean), and `oldLogprobs` are the
 * *current* log-probabilities (those of `score` right before the step), so
 * the engine's ratio is exactly 1: its clipped surrogate `−ρ·A` then has the
 * gradient `−A·∇logπ`, with no importance weight and no clipping. Call with
 * `klCoef: 0`.
 */
export function recTrainSequences({
  sequences,
  settings = {},
}: {
  sequences: readonly (RecSequence & { tokenIds: readonly number[] })[];
  settings?: RecSettings;
}): PolicyV1TrainSequence[] {
  let tokens = 0;
  for (const sequence of sequences)
    for (const inResponse of sequence.responseMask)
      if (inResponse !== 0) tokens++;
  const scale = tokens === 0 ? 0 : 1 / tokens;
  return sequences.map((sequence) => {
    if (sequence.tokenIds.length !== sequence.responseMask.length) {
      throw new SealError({
        code: 'SHAPE_MISMATCH',
        message: `REC: ${sequence.tokenIds.length} tokens but a response mask of ${sequence.responseMask.length}`,
        details: {},
      });
    }
    const region = recTrustRegionMask({ sequence, settings });
    return {
      tokenIds: [...sequence.tokenIds],
      tokenWeights: region.map((inRegion) => inRegion * scale),
      advantages: [...sequence.advantages],
      oldLogprobs: [...sequence.logprobs],
    };
  });
}
