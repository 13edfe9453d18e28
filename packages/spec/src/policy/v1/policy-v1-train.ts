import * as z from 'zod';

const tokenArray = z.array(z.number());

/**
 * One training sequence. Every per-token array is aligned with `tokenIds`
 * (same length): entry `t` concerns the prediction of `tokenIds[t]` from the
 * tokens before it, so entry 0 is ignored (the first token has no prediction).
 */
export const policyV1TrainSequenceSchema = z.strictObject({
  /** The full sequence: prompt, generated tokens and environment tokens. */
  tokenIds: z.array(z.number().int().nonnegative()).min(2),
  /**
   * Per-token loss weights; 0 on prompt and environment tokens. The loss is
   * `Σ_sequences Σ_t tokenWeights[t] · ℓ_t`, exactly: normalisation is the
   * caller's choice. Token-mean over a batch: `mask / (total masked tokens)`;
   * per-sequence mean (original GRPO): `mask / (tokens of this sequence) /
   * (number of sequences)`; a constant (Dr. GRPO): `mask / C`.
   */
  tokenWeights: tokenArray,
  /** Per-token advantages (PPO only; broadcast a sequence advantage yourself). */
  advantages: tokenArray.optional(),
  /** Per-token log-probabilities of the behaviour policy, from `score` (PPO only). */
  oldLogprobs: tokenArray.optional(),
  /** Per-token log-probabilities of the reference policy (PPO with `klCoef > 0`). */
  refLogprobs: tokenArray.optional(),
});

/** One training sequence. */
export type PolicyV1TrainSequence = z.input<typeof policyV1TrainSequenceSchema>;

/** Optimizer and loss settings of one {@link PolicyV1.train} call. */
export const policyV1TrainSettingsSchema = z.strictObject({
  /** AdamW learning rate. */
  learningRate: z.number().nonnegative(),
  /** PPO lower clip: ratios below `1 - clipLow` stop contributing gradient. Default 0.2. */
  clipLow: z.number().nonnegative().optional(),
  /** PPO upper clip: ratios above `1 + clipHigh` stop contributing gradient. Default 0.2. */
  clipHigh: z.number().nonnegative().optional(),
  /**
   * Dual-clip constant c > 1: for negative advantages the per-token loss is
   * capped at `-c · A` (Ye et al. 2020). Default 10; a huge value (1e30)
   * disables it (JSON has no `Infinity`).
   */
  dualClipC: z.number().gt(1).optional(),
  /**
   * Coefficient β of the low-variance (k3) KL estimator to the reference
   * policy, `exp(ref - lp) - (ref - lp) - 1`, added per token. Default 0.
   */
  klCoef: z.number().nonnegative().optional(),
  /** Global gradient-norm clip (after accumulation over micro-batches). Default 1; a huge value (1e30) disables it. */
  maxGradNorm: z.number().positive().optional(),
  /** AdamW decoupled weight decay (not applied to norms and biases). Default 0.01. */
  weightDecay: z.number().nonnegative().optional(),
  /**
   * Multiplies the learning rate (and decay) of the token-embedding matrix
   * (also the output head where the model ties them). 0 freezes it: the
   * update then moves only the transformer layers, norms and an untied head.
   * Default 1.
   */
  embeddingLearningRateScale: z.number().min(0).max(1).optional(),
  /**
   * Multiplies the learning rate of the final norm's gain, which scales
   * every logit: the model's own inverse temperature. Adam moves each weight
   * by about the learning rate per step, so at RL's small rates a gain near 1
   * cannot move far; a larger multiplier lets the update sharpen (or flatten)
   * the whole distribution. Default 1.
   */
  outputNormLearningRateScale: z.number().min(0).max(10000).optional(),
  /**
   * Multiplies the learning rate of the other vectors: every layer's norm
   * gains and the attention biases (a few thousand weights beside the
   * matrices' millions). With a small `learningRate` and a large multiplier
   * the update is confined to that low-dimensional subspace. Default 1.
   */
  vectorLearningRateScale: z.number().min(0).max(10000).optional(),
  /**
   * Multiplies the learning rate of the weight matrices (the attention and
   * MLP projections): 0 freezes them, so that with the embeddings and
   * vectors frozen too only the final norm's gain learns (temperature-only
   * RL, the control arm of issue 44). Default 1.
   */
  matrixLearningRateScale: z.number().min(0).max(1).optional(),
  /**
   * The final norm's gain moves only as a whole: one learned scale of every
   * logit (the policy's inverse temperature), stepped multiplicatively at
   * `learningRate × outputNormLearningRateScale` per unit of Adam's update.
   * Its gradient sums over the hidden dimensions, so it is far less noisy
   * than any one element's. Default false.
   */
  outputNormUniform: z.boolean().optional(),
  /** AdamW betas. Default `[0.9, 0.999]`. */
  betas: z.tuple([z.number().min(0).lt(1), z.number().min(0).lt(1)]).optional(),
  /** AdamW epsilon. Default 1e-8. */
  eps: z.number().positive().optional(),
  /**
   * The loss's log-probabilities are those of `softmax(logits / temperature)`.
   * Default 1. For PPO, use the rollouts' sampling temperature, and the same
   * value for `score` when computing `oldLogprobs` and `refLogprobs`.
   */
  temperature: z.number().positive().optional(),
});

/** Optimizer and loss settings of one {@link PolicyV1.train} call. */
export type PolicyV1TrainSettings = z.input<typeof policyV1TrainSettingsSchema>;

/** The options of {@link PolicyV1.train}. */
export const policyV1TrainOptionsSchema = z.strictObject({
  /**
   * `ppo`: clipped surrogate with dual clip plus optional k3 KL, per token
   * `ℓ_t = max-min surrogate(ratio_t, A_t) + β·KL_t`, with
   * `ratio_t = exp(lp_t - oldLogprobs_t)`. `cross-entropy`: `ℓ_t = -lp_t`
   * (supervised warm starts; advantages and logprobs are ignored).
   */
  objective: z.enum(['ppo', 'cross-entropy']),
  /** The batch; the engine buckets it into micro-batches and accumulates gradients. */
  sequences: z.array(policyV1TrainSequenceSchema).min(1),
  /** Optimizer and loss settings. */
  options: policyV1TrainSettingsSchema,
});

/** The options of {@link PolicyV1.train}. */
export type PolicyV1TrainOptions = z.input<typeof policyV1TrainOptionsSchema>;

/** The result of {@link PolicyV1.train}. */
export type PolicyV1TrainResult = {
  /** `Σ w·ℓ` over the batch, before the step. */
  loss: number;
  /** Global L2 norm of the gradient before clipping (NaN when the loss was not finite). */
  gradNorm: number;
  /**
   * True when the loss or the gradient norm was NaN or infinite: the step was
   * refused and weights, optimizer moments and the step counter are unchanged.
   */
  skipped: boolean;
  /** Optimizer steps applied so far, this one included. */
  step: number;
  /** Diagnostics, weighted by `tokenWeights` and normalised by their sum. */
  metrics: {
    /** Weighted fraction of tokens whose surrogate was clipped (PPO; 0 for cross-entropy). */
    clipFraction: number;
    /** Weighted mean of the k3 KL estimator (0 when no `refLogprobs`). */
    kl: number;
    /** Weighted mean of `exp(lp - oldLogprobs)` (1 for cross-entropy). */
    ratioMean: number;
    /** Weighted mean of `-lp` (the cross-entropy, also reported for PPO). */
    negativeLogLikelihood: number;
    /** Tokens with non-zero weight. */
    tokens: number;
  };
};
