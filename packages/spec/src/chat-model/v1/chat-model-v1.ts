import type {
  ChatModelV1CompleteOptions,
  ChatModelV1Request,
} from './chat-model-v1-request';
import type { ChatModelV1Result } from './chat-model-v1-result';

/**
 * A chat model at the level of messages: what an OpenAI-compatible endpoint
 * offers (`createOpenAiChatModel` in `@seal/openai`), and what a local
 * `PolicyV1` offers once its chat template and tool-call protocol are
 * applied (`createPolicyChatModel`, `createInProcessChatModel`). Evaluation
 * talks to either through this contract, so a model served over HTTP and the
 * same model in process run the very same episodes.
 */
export type ChatModelV1 = {
  readonly specificationVersion: 'v1';
  /** A name for logs and records (the endpoint's model name, or the policy id). */
  readonly modelId: string;
  /**
   * Completes one conversation. Throws a SealError: retryable ones
   * (`NETWORK_ERROR`, `TIMEOUT`) only after the implementation's own
   * retries; a prompt that does not fit the model's context (with
   * `maxTokens` of room for the reply) is `CONTEXT_LENGTH_EXCEEDED`.
   */
  complete(
    request: ChatModelV1Request,
    options?: ChatModelV1CompleteOptions,
  ): PromiseLike<ChatModelV1Result>;
};
