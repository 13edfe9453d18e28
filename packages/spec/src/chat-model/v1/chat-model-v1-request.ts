import type { ChatMessage } from '../../task/v1/chat-message';

/**
 * A tool offered to a chat model, in OpenAI's function-calling shape
 * (`{ type: 'function', function: { name, description, parameters } }`,
 * parameters as JSON Schema), as `toOpenAiTool` from `@seal/env` makes it.
 */
export type ChatModelV1ToolDefinition = {
  /** Always `function` (the only kind of tool OpenAI's API defines). */
  type: 'function';
  /** `name`, `description` and `parameters` (JSON Schema), passed through unchanged. */
  function: Record<string, unknown>;
};

/** One chat completion request: the fields of OpenAI's request that SEAL uses. */
export type ChatModelV1Request = {
  /** The conversation so far (assistant tool calls and tool results included). */
  messages: readonly ChatMessage[];
  /**
   * Tools the model may call (function-calling mode). Absent in prompting
   * mode, where the tools are described in the system prompt instead.
   */
  tools?: readonly ChatModelV1ToolDefinition[];
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

/** Per-call settings of {@link ChatModelV1.complete} that are not part of the request. */
export type ChatModelV1CompleteOptions = {
  /** Aborts the call (and any retries still to come). */
  signal?: AbortSignal;
};
