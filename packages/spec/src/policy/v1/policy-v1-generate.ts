import * as z from 'zod';
import {
  policyV1ChatMessageSchema,
  policyV1ToolDefinitionSchema,
} from './policy-v1-chat';

/**
 * The options of {@link PolicyV1.generate}. Prompts are token ids (the
 * normal case in RL, where the loop owns the token context) or chats that
 * the policy renders with its chat template and `addGenerationPrompt`.
 */
export const policyV1GenerateOptionsSchema = z.strictObject({
  /**
   * Prompts as token ids. Exactly one of `prompts` and `chats` is given.
   * Prompts of different lengths are batched together (left padding).
   */
  prompts: z.array(z.array(z.number().int().nonnegative())).optional(),
  /** Prompts as chats, rendered with the chat template and a generation prompt. */
  chats: z
    .array(
      z.strictObject({
        /** The conversation. */
        messages: z.array(policyV1ChatMessageSchema),
        /** Tools offered to the model. */
        tools: z.array(policyV1ToolDefinitionSchema).optional(),
      }),
    )
    .optional(),
  /** Upper bound on generated tokens per prompt (stop tokens included). */
  maxTokens: z.number().int().positive(),
  /** Sampling temperature; 0 means greedy (argmax). Default 1. */
  temperature: z.number().nonnegative().optional(),
  /** Nucleus sampling: keep the smallest set of tokens with this much probability. Default 1 (off). */
  topP: z.number().gt(0).lte(1).optional(),
  /** Keep only the k most likely tokens; 0 means off. Default 0. */
  topK: z.number().int().nonnegative().optional(),
  /**
   * Token ids that end a sequence (the stop token is part of the output).
   * Default: the tokenizer's `stopTokenIds`.
   */
  stopTokenIds: z.array(z.number().int().nonnegative()).optional(),
  /**
   * Strings that end a sequence as soon as the decoded output contains one of
   * them (checked after each token; the token that completes the string is
   * kept, and nothing is trimmed).
   */
  stopStrings: z.array(z.string().min(1)).optional(),
  /** Seed of the sampler. Same seed, prompts and weights give the same tokens. Default 0. */
  seed: z.number().int().optional(),
});

/** The options of {@link PolicyV1.generate}, as the caller writes them. */
export type PolicyV1GenerateOptions = z.input<
  typeof policyV1GenerateOptionsSchema
>;

/** Why a generated sequence ended. */
export type PolicyV1FinishReason = 'stop' | 'length';

/** One generated continuation, in the order of the prompts. */
export type PolicyV1Generation = {
  /** The generated token ids (prompt excluded; the stop token included when there was one). */
  tokenIds: number[];
  /** `tokenIds` decoded, special tokens kept. */
  text: string;
  /**
   * Per generated token, the log-probability of that token under the
   * distribution it was actually sampled from (after temperature, top-k and
   * top-p; 0 for greedy). This is the behaviour policy of the sampler.
   */
  logprobs: number[];
  /**
   * Per generated token, the log-probability under the unmodified model
   * distribution (temperature 1, no truncation), from the generate graph.
   * Close to, but not bit-identical with, `score`; use `score` for PPO ratios.
   */
  modelLogprobs: number[];
  /** `stop` when a stop token or stop string ended it, `length` when `maxTokens` did. */
  finishReason: PolicyV1FinishReason;
  /** The prompt's token ids (the rendered chat when the prompt was a chat). */
  promptTokenIds: number[];
};

/** The result of {@link PolicyV1.generate}. */
export type PolicyV1GenerateResult = {
  /** One entry per prompt, in order. */
  generations: PolicyV1Generation[];
  /** Token counts of the call. */
  usage: {
    /** Prompt tokens processed (padding excluded). */
    promptTokens: number;
    /** Tokens generated. */
    completionTokens: number;
  };
};
