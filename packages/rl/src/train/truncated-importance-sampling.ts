/**
 * Truncated importance sampling (TIS; Yao et al. 2025, "Your efficient RL
 * framework secretly brings you off-policy RL training"): when the rollouts
 * come from another engine (vLLM, SGLang, `seal serve-policy`), its
 * probabilities differ from the trainer's even at the same weights (other
 * kernels, other precision) and more when its weights lag. The policy
 * gradient is taken under the trainer's old policy, so each sampled token is
 * reweighted by `π_trainer(t) / π_sampler(t)`, truncated at `cap` to bound
 * the variance (the paper's and verl's default cap is 2). The weight is a
 * constant of the loss (no gradient flows through it).
 *
 * Returns one weight per token: `min(exp(trainer - sampler), cap)` where
 * `mask` is nonzero, 1 elsewhere (prompt and environment tokens carry no
 * loss weight anyway).
 */
export function truncatedImportanceWeights({
  trainerLogprobs,
  samplerLogprobs,
  mask,
  cap,
}: {
  /** The trainer's log-probabilities of the sequence's tokens (a score pass). */
  trainerLogprobs: readonly number[];
  /** The sampler's log-probabilities of the same tokens (what it returned). */
  samplerLogprobs: readonly number[];
  /** Nonzero on sampled tokens. */
  mask: readonly number[];
  /** The truncation C ≥ 1. */
  cap: number;
}): number[] {
  return mask.map((m, t) => {
    if (m === 0) return 1;
    const ratio = Math.exp(trainerLogprobs[t]! - samplerLogprobs[t]!);
    // A NaN ratio (a missing log-probability) must not poison the step.
    return Number.isNaN(ratio) ? 0 : Math.min(ratio, cap);
  });
}
