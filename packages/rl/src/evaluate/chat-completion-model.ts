import { SealError, type ChatMessage } from '@seal/spec';

/**
 * A tool offered to a chat model, in OpenAI's function-calling shape
 * (`{ type: 'function', function: { name, description, parameters } }`,
 * parameters as JSON Schema), as `toOpenAiTool` from `@seal/env` makes it.
 */
export type ChatToolDefinition = {
  type: 'function';
  function: Record<string, unknown>;
};

/** One chat completion request, the fields of OpenAI's request we use. */
export type ChatCompletionRequest = {
  /** The conversation so far (assistant tool calls and tool results included). */
  messages: readonly ChatMessage[];
  /**
   * Tools the model may call (function-calling mode). Absent in prompting
   * mode, where the tools are described in the system prompt instead.
   */
  tools?: readonly ChatToolDefinition[];
  /** Upper bound on generated tokens. */
  maxTokens: number;
  /** Sampling temperature; 0 is greedy. */
  temperature: number;
  /** Nucleus sampling (1 is off). */
  topP?: number;
  /** Sampler seed: the same seed, request and weights give the same reply. */
  seed?: number;
  /** Strings that end the reply; the reply excludes them (OpenAI semantics). */
  stop?: readonly string[];
};

/** Why a completion ended (OpenAI's `finish_reason`). */
export type ChatCompletionFinishReason = 'stop' | 'length' | 'tool_calls';

/** The answer to a {@link ChatCompletionRequest}. */
export type ChatCompletionResult = {
  /**
   * The assistant message: its text and, in function-calling mode, its tool
   * calls (`toolCalls[i].argumentsText` holds the JSON arguments as sent;
   * `callText` may be empty, the environment derives it).
   */
  message: ChatMessage;
  finishReason: ChatCompletionFinishReason;
  /** Token counts, as the model reports them. */
  usage: { promptTokens: number; completionTokens: number };
};

/**
 * A chat model at the level of messages: what an OpenAI-compatible endpoint
 * offers, and what a local {@link PolicyV1} offers once its chat template and
 * tool-call protocol are applied (`@seal/server`'s `createPolicyChatModel`).
 * Evaluation talks to either through this contract, so a model served over
 * HTTP and the same model in process run the very same episodes.
 */
export type ChatCompletionModel = {
  /** A name for logs and records (the endpoint's model name, or the policy id). */
  readonly modelId: string;
  /**
   * Completes one conversation. Throws a SealError: retryable ones
   * (`NETWORK_ERROR`, `TIMEOUT`) only after the implementation's own retries;
   * a prompt that does not fit the model's context gives an error for which
   * {@link isContextLengthExceeded} is true.
   */
  complete(
    request: ChatCompletionRequest,
    options?: { signal?: AbortSignal },
  ): Promise<ChatCompletionResult>;
};

/** The `details.reason` (and OpenAI error code) of a prompt that does not fit. */
export const contextLengthExceededReason = 'context_length_exceeded';

/** The error a {@link ChatCompletionModel} throws when a prompt does not fit. */
export function contextLengthExceededError({
  promptTokens,
  maxTokens,
  contextLength,
}: {
  promptTokens?: number;
  maxTokens?: number;
  contextLength?: number;
}): SealError {
  const known =
    promptTokens !== undefined &&
    maxTokens !== undefined &&
    contextLength !== undefined;
  return new SealError({
    code: 'INVALID_ARGUMENT',
    message: known
      ? `the prompt (${promptTokens} tokens) plus max_tokens (${maxTokens}) exceeds the model's context of ${contextLength} tokens`
      : "the prompt exceeds the model's context length",
    details: {
      reason: contextLengthExceededReason,
      ...(promptTokens === undefined ? {} : { promptTokens }),
      ...(maxTokens === undefined ? {} : { maxTokens }),
      ...(contextLength === undefined ? {} : { contextLength }),
    },
  });
}

/** Whether `error` says that a prompt did not fit the model's context. */
export function isContextLengthExceeded(error: unknown): boolean {
  return (
    SealError.isInstance(error) &&
    error.details['reason'] === contextLengthExceededReason
  );
}
