import type { ChatMessage } from '../../task/v1/chat-message';

/** Why a completion ended (OpenAI's `finish_reason`). */
export type ChatModelV1FinishReason = 'stop' | 'length' | 'tool_calls';

/** The answer to a {@link ChatModelV1Request}. */
export type ChatModelV1Result = {
  /**
   * The assistant message: its text and, in function-calling mode, its tool
   * calls (`toolCalls[i].argumentsText` holds the JSON arguments as sent;
   * `callText` may be empty, the environment derives it).
   */
  message: ChatMessage;
  /** Why the reply ended. */
  finishReason: ChatModelV1FinishReason;
  /** Token counts, as the model reports them. */
  usage: {
    /** Tokens of the rendered prompt. */
    promptTokens: number;
    /** Tokens of the reply. */
    completionTokens: number;
  };
};
