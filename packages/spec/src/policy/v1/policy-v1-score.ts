import * as z from 'zod';

/** The options of {@link PolicyV1.score}. */
export const policyV1ScoreOptionsSchema = z.strictObject({
  /** Full token sequences (prompt and continuation) to score; lengths may differ. */
  sequences: z.array(z.array(z.number().int().nonnegative()).min(1)).min(1),
  /**
   * Score under `softmax(logits / temperature)`, the distribution that
   * sampling at this temperature draws from. Default 1. Pass the sampling
   * temperature when the log-probabilities feed a policy-gradient ratio.
   */
  temperature: z.number().positive().optional(),
});

/** The options of {@link PolicyV1.score}. */
export type PolicyV1ScoreOptions = z.input<typeof policyV1ScoreOptionsSchema>;

/** The result of {@link PolicyV1.score}. */
export type PolicyV1ScoreResult = {
  /**
   * Per sequence, aligned with its tokens: `logprobs[t] = log p(tokens[t] |
   * tokens[<t])` for `t >= 1`, and `logprobs[0] = 0` (the first token has no
   * prediction). Computed with the same operations as the training graph, so
   * a `train` call right after `score` sees PPO ratios of exactly 1.
   */
  logprobs: number[][];
};
