import * as z from 'zod';

/**
 * The legacy completions endpoint (`POST /v1/completions`) as vLLM and
 * SGLang serve it for RL rollouts: prompts as token ids, and each choice's
 * generated `token_ids` (vLLM's `return_token_ids`, 0.10.2 and later) with
 * per-token `logprobs` (`token_logprobs`, the sampled token's). Only the
 * fields this project reads and writes; others are ignored.
 */

const tokenIdsSchema = z.array(z.number().int().nonnegative());

/** A completions request body, as `seal serve-policy` reads it. */
export const openAiCompletionRequestSchema = z.object({
  model: z.string().nullish(),
  /** Text, token ids, or a batch of either (one choice per prompt). */
  prompt: z.union([
    z.string(),
    tokenIdsSchema.min(1),
    z.array(z.string()).min(1),
    z.array(tokenIdsSchema.min(1)).min(1),
  ]),
  max_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nonnegative().nullish(),
  top_p: z.number().gt(0).lte(1).nullish(),
  /** vLLM: -1 (or 0) is off. */
  top_k: z.number().int().min(-1).nullish(),
  seed: z.number().int().nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  /** vLLM's extension: token ids that end a sequence (kept in the output). */
  stop_token_ids: tokenIdsSchema.nullish(),
  /** Number of top log-probabilities per token; any value ≥ 0 returns the sampled token's. */
  logprobs: z.number().int().nonnegative().nullish(),
  /** vLLM's extension: put `prompt_token_ids` and `token_ids` in each choice. */
  return_token_ids: z.boolean().nullish(),
  n: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  echo: z.boolean().nullish(),
  /** vLLM: `false` keeps special tokens in `text`. */
  skip_special_tokens: z.boolean().nullish(),
  /** vLLM: keep the text of a matched stop string. */
  include_stop_str_in_output: z.boolean().nullish(),
});

/** A completions request body. */
export type OpenAiCompletionRequest = z.input<
  typeof openAiCompletionRequestSchema
>;

/** One choice of a completions answer. */
export const openAiCompletionChoiceSchema = z.object({
  index: z.number().int().nonnegative(),
  text: z.string().nullish(),
  finish_reason: z.string().nullish(),
  logprobs: z
    .object({
      tokens: z.array(z.string()).nullish(),
      /** The sampled token's log-probability, per generated token. */
      token_logprobs: z.array(z.number().nullable()).nullish(),
      top_logprobs: z
        .array(z.record(z.string(), z.number()).nullable())
        .nullish(),
      text_offset: z.array(z.number()).nullish(),
    })
    .nullish(),
  /** vLLM's `return_token_ids`: the generated token ids. */
  token_ids: tokenIdsSchema.nullish(),
  /** vLLM's `return_token_ids`: the prompt's token ids. */
  prompt_token_ids: tokenIdsSchema.nullish(),
});

/** A completions answer (the fields read). */
export const openAiCompletionResponseSchema = z.object({
  id: z.string().nullish(),
  object: z.string().nullish(),
  created: z.number().nullish(),
  model: z.string().nullish(),
  choices: z.array(openAiCompletionChoiceSchema),
  usage: z
    .object({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      total_tokens: z.number().nullish(),
    })
    .nullish(),
});

/** A completions answer. */
export type OpenAiCompletionResponse = z.output<
  typeof openAiCompletionResponseSchema
>;
